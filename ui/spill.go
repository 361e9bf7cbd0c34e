package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/providers"
)

// A long session must not keep every raw payload in memory: each request
// carries the whole conversation, so the bytes grow with the square of its
// length. With a session on disk, the glass box keeps the payloads of the
// latest model calls and of the step shown, and reads older ones back from
// the session file when time travel reaches them.

// keepPayloads is how many model calls keep their exchanges in memory.
const keepPayloads = 32

// spill drops the exchanges of model calls older than the latest r.keep
// (keepPayloads), except the step shown; they can be read back (load).
func (r *runView) spill() {
	if r.load == nil {
		return
	}
	sel := r.live.selectedIndex()
	held := 0
	for i := len(r.live.steps) - 1; i >= 0; i-- {
		s := &r.live.steps[i]
		if len(s.t.Exchanges) == 0 {
			continue
		}
		held++
		if held > r.keep && i != sel && i != r.live.exchangeStep(sel) {
			s.t.Exchanges = nil
			s.spilled = true
		}
	}
}

// exchangesMsg: the exchanges of a spilled step, read back from the session.
type exchangesMsg struct {
	run, index, seq int
	ex              []providers.Exchange
	err             error
}

func (m exchangesMsg) runID() int { return m.run }

// fetchPayload reads back the exchanges of the step the payload pane shows,
// if they were spilled and are not on their way yet.
func (r *runView) fetchPayload() tea.Cmd {
	es := r.live.exchangeStep(r.live.selectedIndex())
	if es < 0 || r.load == nil {
		return nil
	}
	s := &r.live.steps[es]
	if !s.spilled || s.loading {
		return nil
	}
	s.loading = true
	load, id, seq := r.load, r.id, s.t.Seq
	return func() tea.Msg {
		ex, err := load(seq)
		return exchangesMsg{run: id, index: es, seq: seq, ex: ex, err: err}
	}
}

// loaded takes spilled exchanges back in.
func (r *runView) loaded(msg exchangesMsg) {
	if msg.index >= len(r.live.steps) || r.live.steps[msg.index].t.Seq != msg.seq {
		return // a fork changed the steps meanwhile
	}
	s := &r.live.steps[msg.index]
	s.loading = false
	if msg.err != nil {
		s.loadErr = fmt.Sprintf("could not read this step's payload back from the session: %v", msg.err)
		return
	}
	s.t.Exchanges, s.spilled, s.loadErr = msg.ex, false, ""
}

// fetchPayloads reads back what the runs' payload panes are about to show.
func (m Model) fetchPayloads() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range m.runs {
		cmds = append(cmds, r.fetchPayload())
	}
	return tea.Batch(cmds...)
}
