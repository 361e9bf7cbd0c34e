package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// stepperKey handles a key while a pane has focus: a hidden dialog comes
// back first, then the focused pane's own keys, then the stepper's actions.
// Keys that act on a run act on every target run (compare mode: both,
// unless tab picked one).
func (m Model) stepperKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	m.notice = "" // the last notice was about the last key; this key moves on
	for _, r := range m.runs {
		if !r.busy {
			r.notice = ""
		}
	}
	if r := m.hiddenDialogRun(); r != nil && m.bringsDialogBack(msg) {
		// The step waits for the person: stepping (or answering) brings
		// the dialog back; the key itself answers nothing.
		r.hidden = false
		m.notice = m.cfg.Lang.T("the dialog is back: answer it there")
		return m, nil
	}
	// Keys that mean something else in one pane come first.
	if handled, cmd := m.paneKey(msg); handled {
		return m, cmd
	}
	if key.Matches(msg, k.Quit) {
		return m.askQuit()
	}
	if m.followKey(msg) {
		m.clampScrolls()
		return m, m.fetchPayloads()
	}
	if handled, cmd := m.tapKey(msg); handled {
		m.clampScrolls()
		return m, tea.Batch(cmd, m.fetchPayloads())
	}
	if key.Matches(msg, k.Step) && m.returnToPresent() {
		return m, m.fetchPayloads() // a past step is shown: come back first
	}
	if handled, cmd := m.predictKey(msg); handled {
		return m, cmd
	}
	var cmd tea.Cmd
	switch a, ok := m.action(msg); {
	case key.Matches(msg, k.Step, k.Iteration, k.Continue) && m.returnToPresent():
		// A past step is shown: come back first, step on the next press.
	case ok:
		cmd = a(&m, msg)
	case k.typing(msg):
		return m.typeIntoInput(msg)
	default:
		m.notice = m.idleKeyNotice(msg)
	}
	m.clampScrolls()
	return m, tea.Batch(cmd, m.fetchPayloads())
}

// bringsDialogBack reports whether msg, pressed while a run's dialog is
// hidden, brings it back: a stepping key, an answer, or typing.
func (m Model) bringsDialogBack(msg tea.KeyMsg) bool {
	k := m.keys
	return key.Matches(msg, k.Step, k.Iteration, k.Continue, k.Send) ||
		key.Matches(msg, m.confirmKeys.AllowOnce, m.confirmKeys.AllowSession) || k.typing(msg)
}

// actionFunc is what a stepper key does.
type actionFunc func(m *Model, msg tea.KeyMsg) tea.Cmd

// action finds what msg does at the stepper: the keys as data, each with
// its action, in the order they are matched.
func (m Model) action(msg tea.KeyMsg) (actionFunc, bool) {
	k := m.keys
	table := []struct {
		b  key.Binding
		do actionFunc
	}{
		{k.Step, func(m *Model, msg tea.KeyMsg) tea.Cmd { return m.step(runOne, msg.String()) }}, // n also denies in the dialog a step may open
		{k.Iteration, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.step(runIteration, "") }},
		{k.Continue, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.step(runContinue, "") }},
		{k.Fork, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.fork() }},
		{k.ForkOnto, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.openOnto(); return nil }},
		{k.Abandon, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.abandon() }},
		{k.Branch, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.toggleBranch(); return nil }},
		{k.WhatIf, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.whatIf() }},
		{k.Handout, (*Model).handout},
		{k.Pause, (*Model).pause},
		{k.Input, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.focusInput() }},
		{k.Leave, (*Model).unzoom},
		{k.Help, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.open(helpDialog{}); m.helpTop.off = 0; return nil }},
		{k.Lessons, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.open(&lessonMenu{sel: m.lessonIndex()}); return nil }},
		{k.Focus, (*Model).focusNext},
		{k.FocusBack, (*Model).focusBack},
		{k.Look, (*Model).lookAtNextRun},
		{k.Zoom, (*Model).zoom},
		{k.Prev, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.travel(-1); return nil }},
		{k.Next, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.travel(+1); return nil }},
		{k.ReqResp, (*Model).flipSide},
		{k.Exchange, (*Model).nextExchange},
		{k.Break, (*Model).toggleBreakpoint},
		{k.Predict, (*Model).predictToggle},
		{k.Roster, (*Model).openRoster},
	}
	for _, a := range table {
		if key.Matches(msg, a.b) {
			return a.do, true
		}
	}
	return nil, false
}

// pause is p: the runs of steps in flight stop after their transition.
func (m *Model) pause(tea.KeyMsg) tea.Cmd {
	for _, r := range m.targets() {
		if r.busy && r.mode != runOne {
			r.pauseAsked = true
			m.notice = m.cfg.Lang.T("pausing after this transition…")
		}
	}
	if m.notice == "" {
		m.notice = m.cfg.Lang.T("nothing to pause: p stops a run of steps (i or c) after the transition in flight")
	}
	return nil
}

// unzoom is esc at the stepper: out of the zoom.
func (m *Model) unzoom(tea.KeyMsg) tea.Cmd {
	if m.zoomed {
		m.zoomed = false
		m.syncSizes()
	}
	return nil
}

// focusNext is tab: the next pane, or in compare mode the next run the
// keys act on.
func (m *Model) focusNext(tea.KeyMsg) tea.Cmd {
	if m.compare() {
		m.cycleRun()
		return nil
	}
	m.focusPane((m.pane + 1) % numPanes)
	m.syncSizes()
	return nil
}

// focusBack is shift+tab: the previous pane (in compare mode too, where tab
// picks the run).
func (m *Model) focusBack(tea.KeyMsg) tea.Cmd {
	m.focusPane((m.pane + numPanes - 1) % numPanes)
	m.syncSizes()
	return nil
}

// zoom is z: the focused pane fills the body (in compare mode, that pane
// of each run, side by side), or back.
func (m *Model) zoom(tea.KeyMsg) tea.Cmd {
	if !m.zoomed && m.computeLayout().mode == layoutTabs {
		m.notice = m.cfg.Lang.T("each pane already fills the screen here (z zooms from 120 columns)")
		return nil
	}
	m.zoomed = !m.zoomed
	m.syncSizes()
	return nil
}

// travel is [ and ]: back or forward through the steps taken; in compare
// mode with both runs acting, through the model calls of both.
func (m *Model) travel(delta int) {
	if m.compare() && m.focus < 0 {
		m.travelByCall(delta)
		return
	}
	for _, r := range m.targets() {
		r.live.move(delta)
		r.followShown()
		r.tools.reset()
	}
}

// flipSide is r: request or response in the Raw payload.
func (m *Model) flipSide(tea.KeyMsg) tea.Cmd {
	for _, r := range m.targets() {
		r.payload.flip()
	}
	return nil
}

// nextExchange is x: the next HTTP exchange of the model call shown.
func (m *Model) nextExchange(tea.KeyMsg) tea.Cmd {
	for _, r := range m.targets() {
		es := r.live.exchangeStep(r.live.selectedIndex())
		switch {
		case es < 0:
			m.notice = m.cfg.Lang.T("x: no model call yet, so no HTTP exchange to switch to")
		case len(r.live.steps[es].t.Exchanges) < 2:
			m.notice = m.cfg.Lang.T("x: this model call made one HTTP exchange (retries make more)")
		default:
			r.payload.nextExchange(len(r.live.steps[es].t.Exchanges))
		}
	}
	return nil
}

// toggleBreakpoint is b: a breakpoint on the state selected in the run
// shown, set the same in every target run.
func (m *Model) toggleBreakpoint(tea.KeyMsg) tea.Cmd {
	r := m.cur()
	s := r.diagram.toggle()
	for _, o := range m.targets() {
		if o != r {
			o.diagram.set(s, r.diagram.stopsAt(s))
		}
	}
	if !r.diagram.stopsAt(s) {
		m.notice = m.cfg.Lang.F("breakpoint removed from %s", s)
		return nil
	}
	m.notice = m.cfg.Lang.F("breakpoint on %s: i and c stop when the loop enters it", s)
	if m.pane != paneDiagram {
		m.notice += m.cfg.Lang.T(" (to pick another state: tab to State machine, ←/→, b)")
	}
	return nil
}

// cycleRun is tab in compare mode: both runs → the first alone → the second
// alone → both again. A run picked alone takes every key and is the run
// shown, so what the keys drive is always on screen.
func (m *Model) cycleRun() {
	m.focus++
	if m.focus >= len(m.runs) {
		m.focus = -1
	}
	if m.focus >= 0 {
		m.shown = m.focus
		m.notice = m.cfg.Lang.F("keys act on %s alone (tab: next)", m.runs[m.focus].title())
	} else {
		m.notice = m.cfg.Lang.T("keys act on both runs (tab picks one; v shows the other run)")
	}
	m.syncSizes()
}

// lookAtNextRun is v in compare mode: show the other run's panes without
// changing which runs the keys act on. While the keys act on one run alone,
// that run stays on screen.
func (m *Model) lookAtNextRun(tea.KeyMsg) tea.Cmd {
	switch {
	case !m.compare():
		m.notice = m.cfg.Lang.T("v shows the other run in compare mode (--compare)")
	case m.focus >= 0:
		m.notice = m.cfg.Lang.F("the keys act on %s alone, so it stays on screen: tab back to both runs first (z on a pane shows it for both runs)", m.runs[m.focus].title())
	default:
		m.shown = (m.shown + 1) % len(m.runs)
		m.notice = m.cfg.Lang.F("showing %s — the keys still act on both runs (tab picks one)", m.runs[m.shown].title())
		m.syncSizes()
	}
	return nil
}
