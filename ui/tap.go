package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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
}

// tapController is the tap's side of the glass box: what is held, and the
// keys that release it.
type tapController struct {
	src   TapSource
	holds []tap.Hold
	mode  tap.Mode
	ended bool
	now   func() time.Time
	// ticking: a redraw of the holds' age is due.
	ticking bool
}

// tapMsg carries what the tap's Next returned.
type tapMsg struct {
	news tap.News
	ok   bool
}

// tapTickMsg redraws the age of a hold.
type tapTickMsg struct{}

// tapCmd waits for the tap's next news.
func (m Model) tapCmd() tea.Cmd {
	if m.tap == nil || m.tap.ended {
		return nil
	}
	src, ctx := m.tap.src, m.runs[0].base
	return func() tea.Msg {
		n, ok := src.Next(ctx)
		return tapMsg{news: n, ok: ok}
	}
}

// tapTick redraws once a second while a call is held, so its age shows.
func (m Model) tapTick() tea.Cmd {
	if m.tap == nil || len(m.tap.holds) == 0 || m.tap.ticking {
		return nil
	}
	m.tap.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tapTickMsg{} })
}

// tapped draws the news on the run: each step as a step of its own, each
// note in History, the call in flight in the Raw payload pane.
func (m Model) tapped(msg tapMsg) (tea.Model, tea.Cmd) {
	r, l := m.runs[0], m.cfg.Lang
	had := len(m.tap.holds)
	for _, e := range msg.news.Events {
		if e.Note != nil {
			r.history.note(l.Error(e.Note))
			continue
		}
		r.record(*e.Step)
		if r.observe != nil {
			r.observe(*e.Step)
		}
	}
	m.tap.holds, m.tap.mode = msg.news.Holds, msg.news.Mode
	r.busy, r.inflight = false, nil
	if ex := msg.news.Live; ex != nil && !m.tap.heldNow() {
		r.busy, r.inflight = true, ex
		if r.observeWire != nil {
			r.observeWire(*ex)
		}
	}
	if !msg.ok {
		m.tap.ended, m.tap.holds = true, nil
		r.busy, r.inflight = false, nil
		r.history.note(l.T("the tap has stopped: no call reaches it any more; q quits"))
	} else if len(m.tap.holds) > had {
		m.notice = m.tap.heldNotice(l)
	}
	m.clampScrolls()
	return m, tea.Batch(m.tapCmd(), m.fetchPayloads(), m.tapTick())
}

// heldNow says a call is held: the panes show it, not a call in flight.
func (c *tapController) heldNow() bool { return len(c.holds) > 0 }

// heldNotice says what the oldest hold is and what the keys do with it.
func (c *tapController) heldNotice(l lang.Lang) string {
	h := c.holds[0]
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
	if h.Stop != "" {
		s += " · " + l.F("stopped by %s", h.Stop)
	}
	return s
}

// tapKey handles the keys that mean something else for a tap: the stepping
// keys release what is held, w edits a held request, and what would act on
// glassbox's own agent says it cannot. It reports whether it handled msg.
func (m *Model) tapKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	if m.tap == nil {
		return false, nil
	}
	k, l, c := m.keys, m.cfg.Lang, m.tap
	switch {
	case key.Matches(msg, k.Step, k.Iteration):
		if m.returnToPresent() {
			return true, m.fetchPayloads()
		}
		if len(c.holds) == 0 || !c.src.Step() {
			m.notice = l.T("nothing is held: the agent is working — running its tools, or waiting for its person — out of a tap's sight, or it has not called yet")
			return true, nil
		}
		if c.holds[0].Kind == tap.HeldReply {
			m.notice = l.T("delivered: the agent has the reply")
		} else {
			m.notice = l.T("sent: the request is on its way to the service")
		}
		c.holds = c.holds[1:] // until the tap says how things stand
	case key.Matches(msg, k.Continue):
		m.returnToPresent()
		c.src.Continue()
		m.notice = l.T("running: the agent's calls pass through as they come (p holds them again)")
	case key.Matches(msg, k.Pause):
		c.src.Pause()
		m.notice = l.T("stepping: the agent's next request and reply will be held")
	case key.Matches(msg, k.WhatIf):
		return true, m.tapWhatIf()
	case key.Matches(msg, k.Fork, k.ForkOnto, k.Abandon, k.Input, k.Lessons, k.Branch, k.Predict) || k.typing(msg):
		m.notice = l.T("a tap shows another agent's calls: it cannot fork them or send a request — talk to the agent in its own terminal")
	default:
		return false, nil
	}
	return true, nil
}

// tapWhatIf is w on a tap: the oldest held request's body in $VISUAL or
// $EDITOR; what is saved is what goes when the request is released.
func (m *Model) tapWhatIf() tea.Cmd {
	l := m.cfg.Lang
	var h *tap.Hold
	for i := range m.tap.holds {
		if m.tap.holds[i].Kind == tap.HeldRequest {
			h = &m.tap.holds[i]
			break
		}
	}
	switch {
	case h == nil:
		m.notice = l.T("what-if edits a held request before it goes: none is held (p holds the next one)")
		return nil
	case !h.Editable:
		m.notice = l.T("what-if: this request's body holds a secret or was kept cut, so it is not written to a file for editing")
		return nil
	}
	editor := editorCommand()
	if editor == nil {
		m.notice = l.T("what-if opens the context in your editor: set $VISUAL or $EDITOR (e.g. EDITOR=nano) and start glassbox again")
		return nil
	}
	body, ok := m.tap.src.Body(h.ID)
	if !ok {
		m.notice = l.T("what-if: the request is not held any more")
		return nil
	}
	id, run := h.ID, m.runs[0].id
	return func() tea.Msg {
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
	}
}

// tapEdited takes the edited request back: unchanged, refused (the error
// says why, the request stays as it was) or what goes when released.
func (m Model) tapEdited(msg whatIfDoneMsg) (tea.Model, tea.Cmd) {
	l := m.cfg.Lang
	switch {
	case msg.err != nil:
		m.notice = l.F("what-if: the editor failed (%v); the request is unchanged", msg.err)
	case msg.readErr != nil:
		m.notice = l.F("what-if: cannot read the edited request: %v", msg.readErr)
	case string(msg.after) == string(msg.before):
		m.notice = l.T("what-if: nothing changed; space sends the request as it was")
	default:
		if err := m.tap.src.Edit(msg.hold, msg.after); err != nil {
			m.notice = l.Error(err)
			break
		}
		m.notice = l.T("what-if: the edited request is what space sends (the step that sends it is marked \"edited\")")
	}
	return m, nil
}
