package ui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// Follow makes the glass box a read-only view of someone else's run (a
// workshop's instructor): their transitions arrive through Next and are
// drawn as if stepped here. The follower scrolls, inspects payloads and
// goes back in time on their own copy; a stepping key catches up with the
// present; nothing reaches the followed run.
type Follow struct {
	// Who is whom the glass box follows, for the status bar ("instructor").
	Who string
	// Next blocks until there is more of the followed run to show, or ctx
	// ends. ok false: the followed run has ended.
	Next func(ctx context.Context) (b FollowBatch, ok bool)
	// Pull, when set in place of Next, makes the followed run a recording
	// the person steps through (glassbox open: a trace file): a stepping
	// key asks it for the next step (space), the rest of the iteration
	// (i) or of the turn (c). ok false: the recording has no more.
	Pull func(ctx context.Context, how Pull) (b FollowBatch, ok bool)
}

// Pull is how far a stepping key asks a recording to go.
type Pull int

// How far: one step, to the end of the model call's iteration, to the end
// of the turn (the loop idle again).
const (
	PullStep Pull = iota
	PullIteration
	PullTurn
)

// FollowBatch is what a follower is handed at once: the transitions it
// has not seen (in order, none dropped), then the model call in flight as
// it stands now, if one started after them.
type FollowBatch struct {
	Transitions []loop.Transition
	// Live is the followed run's model call in flight: its request and
	// the chunks of its reply so far (a follower that lags gets only the
	// latest). Nil when no call is in flight after Transitions.
	Live *providers.Exchange
	// Note, when set, is said in History: a follower that fell too far
	// behind and was resynchronised.
	Note string
	// ID names where the batch leaves the follower in the followed run
	// (its place in the record and the call in flight), "" when the batch
	// is this follower's own (a resync). Followers that only watch and are
	// at the same ID, with the same notes and terminal size, are in the
	// same state (FollowBatchOf).
	ID string
}

// FollowMsg is the message a follower's glass box takes in when its Next
// returns b and ok: for a front end (or a test) that hands the batches over
// itself.
func FollowMsg(b FollowBatch, ok bool) tea.Msg { return followMsg{b: b, ok: ok} }

// FollowBatchOf is the batch msg carries when msg is what a follower's
// Next returned (ok), and whether it said the followed run ended. A front
// end that serves many followers of one run draws the frame of followers in
// the same state once (ui/serve).
func FollowBatchOf(msg tea.Msg) (b FollowBatch, ended, ok bool) {
	f, ok := msg.(followMsg)
	return f.b, !f.ok, ok
}

// followMsg carries what Next returned.
type followMsg struct {
	b  FollowBatch
	ok bool
}

// followCmd waits for the followed run's next transitions.
func (m Model) followCmd() tea.Cmd {
	f := m.cfg.Follow
	if f == nil || f.Next == nil {
		return nil
	}
	ctx := m.runs[0].base
	return func() tea.Msg {
		b, ok := f.Next(ctx)
		return followMsg{b: b, ok: ok}
	}
}

// pullCmd asks a recording for how much more of it to show.
func (m Model) pullCmd(how Pull) tea.Cmd {
	f := m.cfg.Follow
	ctx := m.runs[0].base
	return func() tea.Msg {
		b, ok := f.Pull(ctx, how)
		return followMsg{b: b, ok: ok}
	}
}

// followed draws what arrived on the run's own record, as a step would: the
// transitions, then the call in flight in the Raw payload pane, as the
// followed run's own glass box shows it. A follower looking at a past step
// stays there.
func (m Model) followed(msg followMsg) (tea.Model, tea.Cmd) {
	r := m.runs[0]
	if msg.b.Note != "" {
		r.history.note(msg.b.Note)
	}
	for _, t := range msg.b.Transitions {
		r.record(t)
	}
	if len(msg.b.Transitions) > 0 {
		r.busy, r.inflight = false, nil
	}
	if ex := msg.b.Live; ex != nil {
		r.busy, r.inflight = true, ex
	}
	if !msg.ok {
		r.busy, r.inflight = false, nil
		if m.cfg.Follow.Pull != nil {
			m.ended = true
			r.history.note(m.cfg.Lang.T("the end of the trace: [ ] go back in time; q quits"))
		} else {
			r.history.note(m.cfg.Lang.F("the %s's run has ended; q quits", m.whom()))
		}
		m.clampScrolls()
		return m, m.fetchPayloads()
	}
	if m.cfg.Follow.Pull != nil {
		m.clampScrolls()
		return m, m.fetchPayloads()
	}
	m.clampScrolls()
	return m, tea.Batch(m.followCmd(), m.fetchPayloads())
}

// record puts one transition of a followed run on the panes.
func (r *runView) record(t loop.Transition) {
	travelling := r.live.travelling()
	r.live.record(r.history, t)
	if !travelling {
		r.payload.follow(&t)
		r.tools.reset()
	}
}

// followKey handles the keys a follower may not use: stepping keys catch
// up with the present, the rest say the run is read-only. It reports
// whether it handled msg.
func (m *Model) followKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	if m.cfg.Follow == nil {
		return false, nil
	}
	k := m.keys
	switch {
	case m.cfg.Follow.Pull != nil && key.Matches(msg, k.Step, k.Iteration, k.Continue):
		return true, m.pullKey(msg)
	case key.Matches(msg, k.Step, k.Iteration, k.Continue):
		if !m.returnToPresent() {
			m.notice = m.cfg.Lang.F("you are at the %s's latest step: the next one appears when they take it", m.whom())
		} else {
			m.notice = m.cfg.Lang.F("caught up: the %s's latest step", m.whom())
		}
		return true, nil
	case key.Matches(msg, k.Fork, k.ForkOnto, k.Abandon, k.WhatIf, k.Pause, k.Input, k.Lessons, k.Branch, k.Predict) || k.typing(msg):
		m.notice = m.readOnly()
		return true, nil
	}
	return false, nil
}

// pullKey steps through a recording: back to the present first when a
// past step is shown, then as far as the key asks.
func (m *Model) pullKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case m.returnToPresent():
		m.notice = m.cfg.Lang.T("back at the latest step shown: press again to step on")
	case m.ended:
		m.notice = m.cfg.Lang.T("the end of the trace: nothing more to step ([ ] go back in time; q quits)")
	case key.Matches(msg, k.Iteration):
		return m.pullCmd(PullIteration)
	case key.Matches(msg, k.Continue):
		return m.pullCmd(PullTurn)
	default:
		return m.pullCmd(PullStep)
	}
	return nil
}

func (m Model) readOnly() string {
	if m.cfg.Follow.Pull != nil {
		return m.cfg.Lang.T("read-only: this is a trace file, not a live agent (space steps · [ ] go back in time · q quits)")
	}
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
