package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/providers"
)

// A long session must not keep every raw payload in memory: each request
// carries the whole conversation, so the bytes grow with the square of its
// length. With a session on disk, the glass box keeps the payloads of the
// latest model calls and of the step shown, and reads older ones back from
// the session file when time travel reaches them.

// keepPayloads is how many model calls keep their exchanges in memory, and
// keepBytes how many bytes of them at most: late in a long session one
// request alone can be megabytes. The latest call always stays.
const (
	keepPayloads = 32
	keepBytes    = 4 << 20
)

// spill drops the exchanges of model calls older than the latest r.keep
// (keepPayloads, and keepBytes), except the step shown; they can be read
// back (load). Previews of requests go the same way whether or not there is
// a session: the step after each one holds the request as it was sent.
//
// Each call looks only at the steps since the previous one's cut-off
// (spillMark): a long session costs the same per step as a short one.
func (r *runView) spill() {
	sel := r.live.selectedIndex()
	es := r.live.exchangeStep(sel)
	r.spillMark = min(r.spillMark, len(r.live.steps))
	previews, held := spillCount{keep: r.keep}, spillCount{keep: r.keep}
	mark := r.spillMark
	for i := len(r.live.steps) - 1; i >= r.spillMark; i-- {
		s := &r.live.steps[i]
		if s.preview != nil && previews.add(s.preview.ex.BodyBytes()) && i != sel {
			s.preview = nil
		}
		if len(s.t.Exchanges) > 0 && r.load != nil && s.t.ExchangesAt != nil {
			n := 0
			for _, x := range s.t.Exchanges {
				n += x.BodyBytes()
			}
			if held.add(n) && i != sel && i != es {
				s.t.Exchanges = nil
				s.spilled = true
			}
		}
		if (r.load != nil && !held.over()) || !previews.over() {
			mark = i // the steps from here on are looked at again next time
		}
	}
	r.spillMark = mark
}

// spillCount counts the payloads kept so far, newest first: past keep of
// them (or keepBytes), the older ones go.
type spillCount struct{ n, bytes, keep int }

// add counts one more payload of b bytes and reports whether it is one too
// many.
func (c *spillCount) add(b int) bool {
	c.n++
	c.bytes += b
	return c.over()
}

func (c *spillCount) over() bool { return c.n > 1 && (c.n > c.keep || c.bytes > keepBytes) }

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
	load, id, t := r.load, r.id, s.t
	return func() tea.Msg {
		ex, err := load(&t)
		return exchangesMsg{run: id, index: es, seq: t.Seq, ex: ex, err: err}
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
		s.loadErr = r.lang.F("could not read this step's payload back from the session: %v", msg.err)
		return
	}
	s.t.Exchanges, s.spilled, s.loadErr = msg.ex, false, ""
	// One step read back at a time: the one read before goes back to disk.
	if p := r.reloaded; p != msg.index && p >= 0 && p < len(r.live.steps) && r.live.steps[p].t.Seq == r.reloadedSeq {
		r.live.steps[p].t.Exchanges, r.live.steps[p].spilled = nil, true
	}
	r.reloaded, r.reloadedSeq = msg.index, msg.seq
}

// fetchPayloads reads back what the runs' payload panes are about to show.
func (m Model) fetchPayloads() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range m.runs {
		cmds = append(cmds, r.fetchPayload())
	}
	return tea.Batch(cmds...)
}
