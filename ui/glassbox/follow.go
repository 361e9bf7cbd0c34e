package glassbox

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
	// key asks it for the next step (space), the rest of the model call
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

// roomController is the glass box's part in a workshop: following another's
// run (Config.Follow: the transitions arrive, the keys that would change the
// run are refused), the status segment that changes from outside
// (Config.Changed), and for a served glass box the room (Config.Room): the
// roster (R), the seat it tells the room, the handouts (X) and where a served
// learner fetches them.
type roomController struct {
	*kit
	stepper *stepper
	cfg     Config
	predict *predictController // the seat carries the predictions
	// ended: a recording stepped through (Follow.Pull) has no more.
	ended bool
}

// followCmd waits for the followed run's next transitions.
func (c *roomController) followCmd() tea.Cmd {
	f := c.cfg.Follow
	if f == nil || f.Next == nil {
		return nil
	}
	ctx := c.stepper.runs[0].base
	return func() tea.Msg {
		b, ok := f.Next(ctx)
		return followMsg{b: b, ok: ok}
	}
}

// pullCmd asks a recording for how much more of it to show.
func (c *roomController) pullCmd(how Pull) tea.Cmd {
	f := c.cfg.Follow
	ctx := c.stepper.runs[0].base
	return func() tea.Msg {
		b, ok := f.Pull(ctx, how)
		return followMsg{b: b, ok: ok}
	}
}

// followed draws what arrived on the run's own record, as a step would: the
// transitions, then the call in flight in the Raw payload pane, as the
// followed run's own glass box shows it. A follower looking at a past step
// stays there.
func (c *roomController) followed(msg followMsg) action {
	r := c.stepper.runs[0]
	if msg.b.Note != "" {
		r.history.note(msg.b.Note)
	}
	for _, t := range msg.b.Transitions {
		c.record(r, t)
	}
	if len(msg.b.Transitions) > 0 {
		r.busy, r.inflight = false, nil
	}
	if ex := msg.b.Live; ex != nil {
		r.busy, r.inflight = true, ex
	}
	if !msg.ok {
		r.busy, r.inflight = false, nil
		if c.cfg.Follow.Pull != nil {
			c.ended = true
			r.history.note(c.lang.T("the end of the trace: [ ] go back in time; q quits"))
			return action{settle: true, cmd: c.stepper.fetchPayloads()}
		}
		r.history.note(c.lang.F("the %s's run has ended; q quits", c.whom))
		return action{settle: true}
	}
	return action{settle: true, cmd: tea.Batch(c.followCmd(), c.stepper.fetchPayloads())}
}

// record puts one transition of a followed run on its panes.
func (c *roomController) record(r *runView, t loop.Transition) {
	travelling := r.live.travelling()
	r.live.record(r.history, t)
	if !travelling {
		r.payload.follow(&t)
		r.tools.reset()
	}
}

// followKey takes a follower's stepping keys: they catch up with the
// present. The keys a follower may not use are refused by their role, as
// anyone's are (Model.firstKey). It reports whether it handled msg.
func (c *roomController) followKey(msg tea.KeyMsg) (action, bool) {
	k := c.keys
	if c.cfg.Follow == nil || !key.Matches(msg, k.Step, k.Iteration, k.Continue) {
		return action{}, false
	}
	if c.cfg.Follow.Pull != nil {
		return c.pullKey(msg), true
	}
	if !c.stepper.returnToPresent() {
		return say(c.lang.F("you are at the %s's latest step: the next one appears when they take it", c.whom)), true
	}
	return say(c.lang.F("caught up: the %s's latest step", c.whom)), true
}

// pullKey steps through a recording: back to the present first when a
// past step is shown, then as far as the key asks.
func (c *roomController) pullKey(msg tea.KeyMsg) action {
	k := c.keys
	switch {
	case c.stepper.returnToPresent():
		return say(c.lang.T("back at the latest step shown: press again to step on"))
	case c.ended:
		return say(c.lang.T("the end of the trace: nothing more to step ([ ] go back in time; q quits)"))
	case key.Matches(msg, k.Iteration):
		return action{cmd: c.pullCmd(PullIteration)}
	case key.Matches(msg, k.Continue):
		return action{cmd: c.pullCmd(PullTurn)}
	}
	return action{cmd: c.pullCmd(PullStep)}
}

// changedMsg says Config.Status has something new to show.
type changedMsg struct{}

// changedCmd waits for Config.Changed.
func (c *roomController) changedCmd() tea.Cmd {
	ch := c.cfg.Changed
	if ch == nil {
		return nil
	}
	ctx := c.stepper.runs[0].base
	return func() tea.Msg {
		select {
		case <-ch:
			return changedMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

// roomNoteMsg is one thing the room tells the instructor (Room.Notes).
type roomNoteMsg string

// notesCmd waits for the room's next note to the instructor.
func (c *roomController) notesCmd() tea.Cmd {
	if c.cfg.Room == nil || c.cfg.Room.Notes == nil {
		return nil
	}
	ch, ctx := c.cfg.Room.Notes, c.stepper.runs[0].base
	return func() tea.Msg {
		select {
		case n, ok := <-ch:
			if ok {
				return roomNoteMsg(n)
			}
		case <-ctx.Done():
		}
		return nil
	}
}

// noted says the room's note on the notice line and keeps it in History,
// then waits for the next one.
func (c *roomController) noted(n roomNoteMsg) action {
	c.stepper.runs[0].history.note(string(n))
	return action{notice: string(n), settle: true, cmd: c.notesCmd()}
}
