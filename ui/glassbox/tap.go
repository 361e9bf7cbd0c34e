package glassbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Tap makes the glass box a tap's (glassbox tap): the run it shows is an
// agent glassbox does not run, whose model calls arrive from Source as
// steps. Each request and reply may be held: space lets the oldest go, c
// lets the agent run (holding only where a breakpoint stops), p holds
// again, w edits a held request before it goes. What the agent does
// between its calls is out of sight, and the screen says so.
type Tap struct {
	Source TapSource
	// Intro is said first in History: where the tap listens, what to set
	// for an agent to reach it, where the calls go, what it cannot see.
	Intro []string
}

// TapSource is a tap as the glass box drives it (loop/tap.Tap; a tap
// cassette played back).
type TapSource interface {
	// Next waits for news (steps, notes, holds); ok false: the tap ended.
	Next(ctx context.Context) (tap.News, bool)
	Step() bool
	Continue()
	Pause()
	// Body is the body of held request id as it would go, to edit; Edit
	// replaces it (what-if).
	Body(id int) ([]byte, bool)
	Edit(id int, body []byte) error
	// SetBreakpoints puts bps in force: the calls c holds (b and K
	// change them).
	SetBreakpoints(bps []breakpoint.Breakpoint)
}

// tapController is the tap's side of the glass box (Config.Tap): what is
// held, and the keys that release it. Its run has no engine: the steps
// arrive from the tap, as a followed run's arrive from the room.
type tapController struct {
	*kit
	stepper *stepper
	room    *roomController // records a step on the run's panes
	src     TapSource
	holds   []tap.Hold
	mode    tap.Mode
	ended   bool
	now     func() time.Time
	// ticking: a redraw of the holds' age is due.
	ticking bool
	// synced are the breakpoints the tap was last given (once pushed).
	synced []breakpoint.Breakpoint
	pushed bool
}

// syncBreaks gives the tap the breakpoints in force on its run when b, K
// or --break changed them: the tap decides what it holds as the calls
// arrive, out of the glass box's hands.
func (c *tapController) syncBreaks() {
	if c == nil {
		return
	}
	list := c.stepper.runs[0].breaks.List()
	same := slices.EqualFunc(list, c.synced, func(a, b breakpoint.Breakpoint) bool { return a.String() == b.String() })
	if same && c.pushed {
		return
	}
	c.synced, c.pushed = list, true
	c.src.SetBreakpoints(list)
}

// tapMsg carries what the tap's Next returned.
type tapMsg struct {
	news tap.News
	ok   bool
}

// tapTickMsg redraws the age of a hold.
type tapTickMsg struct{}

// tapEditedMsg: the person's editor closed on a held request's body
// (what-if), which was read back (after).
type tapEditedMsg struct {
	hold          int
	before, after []byte
	err, readErr  error
}

// cmd waits for the tap's next news.
func (c *tapController) cmd() tea.Cmd {
	if c == nil || c.ended {
		return nil
	}
	src, ctx := c.src, c.stepper.runs[0].base
	return func() tea.Msg {
		n, ok := src.Next(ctx)
		return tapMsg{news: n, ok: ok}
	}
}

// tick redraws once a second while a call is held, so its age shows.
func (c *tapController) tick() tea.Cmd {
	if len(c.holds) == 0 || c.ticking {
		return nil
	}
	c.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tapTickMsg{} })
}

// ticked is a redraw of the holds' age; the next follows while one is held.
func (c *tapController) ticked() action {
	c.ticking = false
	return action{cmd: c.tick()}
}

// tapped draws the news on the run: each step as a step of its own, each
// note in History, the call in flight in the Raw payload pane.
func (c *tapController) tapped(msg tapMsg) action {
	r, l := c.stepper.runs[0], c.lang
	had := len(c.holds)
	for _, e := range msg.news.Events {
		if e.Step != nil {
			r.stopped = nil // a breakpoint's stop is shown until the next step
		}
		if e.Note != nil {
			r.history.note(l.Error(e.Note))
			continue
		}
		c.room.record(r, *e.Step)
		if r.observe != nil {
			r.observe(*e.Step)
		}
	}
	stop := c.stopped(r, msg.news.Holds)
	c.holds, c.mode = msg.news.Holds, msg.news.Mode
	r.busy, r.inflight = false, nil
	if ex := msg.news.Live; ex != nil && len(c.holds) == 0 {
		r.busy, r.inflight = true, ex
		if r.observeWire != nil {
			r.observeWire(*ex)
		}
	}
	a := action{settle: true, cmd: tea.Batch(c.cmd(), c.stepper.fetchPayloads(), c.tick())}
	if !msg.ok {
		c.ended, c.holds = true, nil
		r.busy, r.inflight = false, nil
		r.history.note(l.T("the tap has stopped: no call reaches it any more; q quits"))
	} else if len(c.holds) > had {
		a.notice = c.heldNotice()
	}
	if stop != "" {
		a.notice = stop + " — " + a.notice
	}
	return a
}

// stopped notes in History each hold a breakpoint began (the hits are the
// tap's: it is fed every step, held or not), and keeps the latest for the
// status bar. It returns what the latest says ("" for none).
func (c *tapController) stopped(r *runView, holds []tap.Hold) string {
	said := ""
	for _, h := range holds {
		if h.Stop == nil || slices.ContainsFunc(c.holds, func(o tap.Hold) bool { return o.ID == h.ID }) {
			continue
		}
		hit := *h.Stop
		r.stopped = &hit
		said = r.breakStopped(hit, r.live.stepAt(hit.Seq))
		r.history.note(said)
	}
	return said
}

// heldNotice says what the oldest hold is and what the keys do with it.
func (c *tapController) heldNotice() string {
	l, h := c.lang, c.holds[0]
	if h.Kind == tap.HeldReply {
		return l.T("held: the service's reply, before the agent gets it — space delivers it · c lets the agent run")
	}
	if h.Editable {
		return l.T("held: the agent's request, before it goes — space sends it · w edits it first · c lets the agent run")
	}
	return l.T("held: the agent's request, before it goes — space sends it · c lets the agent run")
}

// status is the tap's segment of the status bar: stepping or running,
// and the oldest call held with its age, so a held agent is never left
// waiting unseen.
func (c *tapController) status(l lang.Lang) string {
	if c.ended {
		return l.T("stopped")
	}
	mode := l.T("stepping")
	if c.mode == tap.Running {
		mode = l.T("running")
	}
	if len(c.holds) == 0 {
		return mode
	}
	h := c.holds[0]
	what := l.T("request")
	if h.Kind == tap.HeldReply {
		what = l.T("reply")
	}
	age := c.now().Sub(h.Since).Truncate(time.Second)
	s := l.F("%s · held: %s #%d (%s) for %s", mode, what, h.ID, h.Family, age)
	if n := len(c.holds) - 1; n > 0 {
		s += " " + l.F("+%d more", n)
	}
	return s
}

// key handles the keys that mean something else for a tap: the stepping
// keys release what is held, p holds again, w edits a held request, and
// what would act on glassbox's own agent says it cannot. It reports
// whether it handled msg.
func (c *tapController) key(msg tea.KeyMsg) (action, bool) {
	if c == nil {
		return action{}, false
	}
	k, l := c.keys, c.lang
	switch {
	case key.Matches(msg, k.Step, k.Iteration):
		return c.step(), true
	case key.Matches(msg, k.Continue):
		c.stepper.returnToPresent()
		c.stepper.runs[0].stopped = nil
		c.src.Continue()
		if n := c.stepper.runs[0].breaks.Len(); n > 0 {
			return say(l.F("running until a breakpoint (%d in force, K lists them): the agent's calls pass through until one begins to match; p holds them again", n)), true
		}
		return say(l.T("running: the agent's calls pass through as they come (p holds them again)")), true
	case key.Matches(msg, k.Pause):
		c.src.Pause()
		return say(l.T("stepping: the agent's next request and reply will be held")), true
	case key.Matches(msg, k.WhatIf):
		return c.whatIf(), true
	case key.Matches(msg, k.Fork, k.ForkOnto, k.Abandon, k.Input, k.Lessons, k.Branch, k.Predict) || k.typing(msg):
		return say(l.T("a tap shows another agent's calls: it cannot fork them or send a request — talk to the agent in its own terminal")), true
	}
	return action{}, false
}

// step is space: the oldest hold goes (a past step on screen comes back
// to the present first).
func (c *tapController) step() action {
	l := c.lang
	if c.stepper.returnToPresent() {
		return say(presentNotice(l))
	}
	if len(c.holds) == 0 || !c.src.Step() {
		return say(l.T("nothing is held: the agent is working — running its tools, or waiting for its person — out of a tap's sight, or it has not called yet"))
	}
	h := c.holds[0]
	c.holds = c.holds[1:] // until the tap says how things stand
	if h.Kind == tap.HeldReply {
		return say(l.T("delivered: the agent has the reply"))
	}
	return say(l.T("sent: the request is on its way to the service"))
}

// whatIf is w on a tap: the oldest held request's body in $VISUAL or
// $EDITOR (the what-if flow: forkController.ready runs the editor); what is
// saved is what goes when the request is released.
func (c *tapController) whatIf() action {
	l := c.lang
	var h *tap.Hold
	for i := range c.holds {
		if c.holds[i].Kind == tap.HeldRequest {
			h = &c.holds[i]
			break
		}
	}
	switch {
	case h == nil:
		return say(l.T("what-if edits a held request before it goes: none is held (p holds the next one)"))
	case !h.Editable:
		return say(l.T("what-if: this request's body holds a secret or was kept cut, so it is not written to a file for editing"))
	}
	editor := editorCommand()
	if editor == nil {
		return say(l.T("what-if opens the context in your editor: set $VISUAL or $EDITOR (e.g. EDITOR=nano) and start glassbox again"))
	}
	body, ok := c.src.Body(h.ID)
	if !ok {
		return say(l.T("what-if: the request is not held any more"))
	}
	id, run := h.ID, c.stepper.runs[0].id
	return action{cmd: func() tea.Msg {
		dir, err := os.MkdirTemp("", "glassbox-whatif-*")
		if err != nil {
			return whatIfReadyMsg{run: run, hold: id, err: fmt.Errorf("cannot make a temporary file: %w", err)}
		}
		path := filepath.Join(dir, "request.json")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			os.RemoveAll(dir)
			return whatIfReadyMsg{run: run, hold: id, err: fmt.Errorf("cannot write the request: %w", err)}
		}
		return whatIfReadyMsg{run: run, hold: id, dir: dir, path: path, before: body, editor: editor}
	}}
}

// edited takes the edited request back: unchanged, refused (the error says
// why, the request stays as it was) or what goes when released.
func (c *tapController) edited(msg tapEditedMsg) action {
	l := c.lang
	switch {
	case msg.err != nil:
		return say(l.F("what-if: the editor failed (%v); the request is unchanged", msg.err))
	case msg.readErr != nil:
		return say(l.F("what-if: cannot read the edited request: %v", msg.readErr))
	case string(msg.after) == string(msg.before):
		return say(l.T("what-if: nothing changed; space sends the request as it was"))
	}
	if err := c.src.Edit(msg.hold, msg.after); err != nil {
		return say(l.Error(err))
	}
	return say(l.T("what-if: the edited request is what space sends (the step that sends it is marked \"edited\")"))
}
