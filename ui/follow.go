package ui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// Follow makes the glass box a read-only view of someone else's run (a
// workshop's instructor): their transitions arrive through Next and are
// drawn as if stepped here. The follower scrolls, inspects payloads and
// goes back in time on their own copy; a stepping key catches up with the
// present; nothing reaches the followed run.
type Follow struct {
	// Who is whom the glass box follows, for the status bar ("instructor").
	Who string
	// Next blocks until more transitions of the followed run are there (in
	// order, none dropped) or ctx ends. note, when set, is said in History
	// (a follower that fell too far behind and was resynchronised).
	// ok false: the followed run has ended.
	Next func(ctx context.Context) (ts []loop.Transition, note string, ok bool)
}

// followMsg carries the transitions Next returned.
type followMsg struct {
	ts   []loop.Transition
	note string
	ok   bool
}

// followCmd waits for the followed run's next transitions.
func (m Model) followCmd() tea.Cmd {
	f := m.cfg.Follow
	if f == nil {
		return nil
	}
	ctx := m.runs[0].base
	return func() tea.Msg {
		ts, note, ok := f.Next(ctx)
		return followMsg{ts: ts, note: note, ok: ok}
	}
}

// followed draws the transitions that arrived, on the run's own record as
// a step would; a follower looking at a past step stays there.
func (m Model) followed(msg followMsg) (tea.Model, tea.Cmd) {
	r := m.runs[0]
	if msg.note != "" {
		r.hist.add(&historyEntry{kind: entryNote, text: msg.note})
	}
	for _, t := range msg.ts {
		r.record(t)
	}
	if !msg.ok {
		r.hist.add(&historyEntry{kind: entryNote, text: m.cfg.Lang.F("the %s's run has ended; q quits", m.whom())})
		m.clampScrolls()
		return m, nil
	}
	m.clampScrolls()
	return m, tea.Batch(m.followCmd(), m.fetchPayloads())
}

// record puts one transition of a followed run on the panes.
func (r *runView) record(t loop.Transition) {
	travelling := r.live.travelling()
	r.live.record(r.hist, t)
	if !travelling {
		r.payload.follow(&t)
		r.calls.reset()
	}
}

// followKey handles the keys a follower may not use: stepping keys catch
// up with the present, the rest say the run is read-only. It reports
// whether it handled msg.
func (m *Model) followKey(msg tea.KeyMsg) bool {
	if m.cfg.Follow == nil {
		return false
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Step, k.Iteration, k.Continue):
		if !m.returnToPresent() {
			m.notice = m.cfg.Lang.F("you are at the %s's latest step: the next one appears when they take it", m.whom())
		} else {
			m.notice = m.cfg.Lang.F("caught up: the %s's latest step", m.whom())
		}
		return true
	case key.Matches(msg, k.Fork, k.ForkOnto, k.Abandon, k.WhatIf, k.Pause, k.Input, k.Lessons, k.Branch, k.Predict) || k.typing(msg):
		m.notice = m.readOnly()
		return true
	}
	return false
}

func (m Model) readOnly() string {
	return m.cfg.Lang.F("read-only: you follow the %s's run (space catches up · [ ] go back in time · q quits)", m.whom())
}

// whom is whom the glass box follows, in its language ("instructor":
// 講師).
func (m Model) whom() string { return m.cfg.Lang.Dyn(m.cfg.Follow.Who) }

// changedMsg says Config.Status has something new to show.
type changedMsg struct{}

// changedCmd waits for Config.Changed.
func (m Model) changedCmd() tea.Cmd {
	ch := m.cfg.Changed
	if ch == nil {
		return nil
	}
	ctx := m.runs[0].base
	return func() tea.Msg {
		select {
		case <-ch:
			return changedMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}
