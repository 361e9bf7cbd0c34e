package glassbox

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// handleKey routes a key: ctrl+c first, then the dialog on top (top), then
// the input line if it has focus, then the stepper and the focused pane.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Cancel) {
		return m.interrupt()
	}
	d := m.top()
	_, quitting := d.(quitDialog)
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.inputFocused && (d == nil || quitting) {
		return m.manyRunes(msg, quitting)
	}
	switch {
	case d != nil:
		// The dialog on top takes the key; what it asks is applied, and
		// a key that is not its own goes on to the stepper under it
		// (pass), or anew once it has closed (again).
		a := d.update(msg)
		cmd := m.apply(a)
		switch {
		case a.again:
			return tea.Batch(cmd, m.handleKey(msg))
		case a.pass:
			return tea.Batch(cmd, m.stepperKey(msg))
		}
		return cmd
	case m.inputFocused:
		return m.inputKey(msg)
	}
	return m.stepperKey(msg)
}

// manyRunes takes several runes that arrived at once: a sentence typed (or
// pasted) into the stepper goes to the input whole; keys pressed faster
// than the terminal is read ("[[[", "nnn") are taken one by one.
func (m *Model) manyRunes(msg tea.KeyMsg, quitting bool) tea.Cmd {
	if m.keys.typing(msg) && !quitting {
		runes := msg.Runes
		if key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: runes[:1]}, m.keys.Input) {
			// "/" and the text typed after it arrived together.
			runes = runes[1:]
		}
		return m.typeIntoInput(runes)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.inputFocused {
			// A key before switched to typing: the rest is text.
			cmds = append(cmds, m.inputKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]}))
			break
		}
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// typeIntoInput gives the keyboard to the input line and types runes there:
// text typed at the stepper is never lost.
func (m *Model) typeIntoInput(runes []rune) tea.Cmd {
	if !m.who.May(role.Send) {
		m.bar.notice = m.who.Refusal(m.lang, role.Send, m.whom)
		return nil
	}
	cmd := m.focusInput()
	cmd2 := m.inputKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: runes})
	m.bar.notice = m.lang.T("typing into the input (it had no focus): Enter sends · esc goes back to stepping")
	return tea.Batch(cmd, cmd2)
}

// interrupt is ctrl+c: cancel the steps in flight, or quit when there are
// none (or when a cancel is already pending).
func (m *Model) interrupt() tea.Cmd {
	if !m.stepper.busy() || m.quitPending {
		return m.quit()
	}
	var cmds []tea.Cmd
	for _, r := range m.runs {
		if ok, cmd := r.interrupt(); ok {
			cmds = append(cmds, cmd)
		}
	}
	m.quitPending = true
	m.bar.notice = m.lang.T("cancelling… (ctrl+c again quits)")
	return tea.Batch(cmds...)
}

// quit cancels every step in flight and ends the program.
func (m *Model) quit() tea.Cmd {
	m.stepper.cancelSteps()
	return tea.Quit
}

// inputKey handles a key while the input line has focus: Enter sends,
// esc and tab hand the keyboard to the panes, the rest is typing.
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Send):
		return m.send()
	case key.Matches(msg, m.keys.Leave), key.Matches(msg, m.keys.Focus):
		m.focusPane(m.stepper.pane)
		return nil
	}
	if key.Matches(msg, m.keys.Newline) {
		// Grow first: a textarea that gains a line while still one row
		// high scrolls its first line out of sight, and growing it
		// afterwards does not scroll back.
		m.input.SetHeight(min(m.input.LineCount()+1, maxInputLines))
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.syncSizes() // the input may have grown or shrunk a line
	return cmd
}

// send submits the input as a user_input event from the "ui" source (to
// every run: one input feeds both in compare mode) and hands the keyboard to
// the stepper. It does not step: the learner watches the event sit in the
// queue and presses space to take it. An empty input sends the lesson on
// offer, once.
func (m *Model) send() tea.Cmd {
	text, scored, fromBus, ok := m.lessons.request(strings.TrimSpace(m.input.Value()))
	if !ok {
		m.bar.notice = m.lang.T("type a request first (l opens the lessons)")
		return nil
	}
	m.predict.scoreLesson(scored)
	var cmds []tea.Cmd
	for _, r := range m.runs {
		switch {
		case r.eng == nil:
		case fromBus && r.bus != nil:
			cmds = append(cmds, r.callOverBusCmd(text)) // it arrives as a request from the bus
		default:
			cmds = append(cmds, r.submitCmd(loop.Event{Source: "ui", Type: "user_input", Data: text}))
		}
	}
	if len(cmds) == 0 {
		m.bar.notice = m.lang.T("no engine is attached")
		return nil
	}
	m.input.Reset()
	m.fitPlaceholder()
	m.lessons.refreshWelcome()
	m.focusPane(m.stepper.pane)
	m.syncSizes()
	switch {
	case m.stepper.compare():
		m.bar.notice = m.lang.T("event queued in both runs — space steps both, tab picks one run, c runs both to the answer")
	case m.stepper.busy() || m.stepper.midEvent() != "":
		m.bar.notice = m.lang.F("event queued behind the one in progress (%s): space goes on with that one; c runs it to its answer, then this one is next; A abandons it", m.stepper.midEvent())
	default:
		m.bar.notice = m.lang.T("event queued — press space to take it (new_event), c to run to the answer")
	}
	return tea.Batch(cmds...)
}

// paneKey hands a key to the focused pane of every target run, which
// settles itself. It reports whether the pane took it.
func (m *Model) paneKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	L := m.computeLayout()
	page := max(L.paneRect(m.stepper.pane).inner().h-1, 1)
	used := false
	var cmds []tea.Cmd
	for _, r := range m.stepper.targets() {
		if reply := r.panes[m.stepper.pane].key(msg, m.keys, page); reply.taken {
			used = true
			cmds = append(cmds, reply.cmd)
		}
	}
	return used, tea.Batch(cmds...)
}

// stepperKey handles a key while a pane has focus: a hidden dialog comes
// back first, then the focused pane's own keys, then the keys that come
// before the stepper's (firstKey), then the stepper's actions (keyAction).
// Keys that act on a run act on every target run (compare mode: both,
// unless tab picked one).
func (m *Model) stepperKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	m.bar.notice = "" // the last notice was about the last key; this key moves on
	for _, r := range m.runs {
		if !r.busy {
			r.notice = ""
		}
	}
	if r := m.stepper.hiddenDialogRun(); r != nil && bringsDialogBack(m.kit, msg) {
		// The step waits for the person: stepping (or answering) brings
		// the dialog back; the key itself answers nothing.
		r.hidden = false
		m.bar.notice = m.lang.T("the dialog is back: answer it there")
		return nil
	}
	// Keys that mean something else in one pane come first.
	if handled, cmd := m.paneKey(msg); handled {
		return cmd
	}
	if cmd, handled := m.firstKey(msg); handled {
		return cmd
	}
	var cmd tea.Cmd
	switch do, ok := m.keyAction(msg); {
	case key.Matches(msg, k.Step, k.Iteration, k.Continue) && m.stepper.returnToPresent():
		// A past step is shown: come back first, step on the next press.
		m.bar.notice = presentNotice(m.lang)
	case ok:
		cmd = do()
	case k.typing(msg):
		return m.typeIntoInput(msg.Runes)
	default:
		m.bar.notice = m.stepper.idleKeyNotice(msg, k)
	}
	m.clampScrolls()
	return tea.Batch(cmd, m.stepper.fetchPayloads())
}

// firstKey takes the keys that come before the stepper's own actions: q, a
// follower's keys, a step key while a past step is shown, and predict mode's
// question before a step.
func (m *Model) firstKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	if key.Matches(msg, k.Quit) {
		// An instructor with people in the room chooses what happens to
		// them; otherwise, on a fresh screen q quits at once, and on a run
		// with history it asks first.
		if d := m.room.leaving(); d != nil {
			m.stack.push(d)
			return nil, true
		}
		// A trace file loses nothing (glassbox open).
		if !m.stepper.hasHistory() || m.who == role.Reader {
			return m.quit(), true
		}
		m.stack.push(quitDialog{m.kit})
		return nil, true
	}
	if a, handled := m.room.followKey(msg); handled {
		cmd := m.apply(a)
		m.clampScrolls()
		return tea.Batch(cmd, m.stepper.fetchPayloads()), true
	}
	if a, handled := m.tap.key(msg); handled {
		cmd := m.apply(a)
		m.clampScrolls()
		return tea.Batch(cmd, m.stepper.fetchPayloads()), true
	}
	if a, ok := m.keys.need(msg); ok && !m.who.May(a) {
		// Not this person's to press (ui/role): say what they may do.
		return m.apply(say(m.who.Refusal(m.lang, a, m.whom))), true
	}
	if key.Matches(msg, k.Step) && m.stepper.returnToPresent() {
		m.bar.notice = presentNotice(m.lang)
		return m.stepper.fetchPayloads(), true // a past step is shown: come back first
	}
	if a, handled := m.predict.key(msg); handled {
		return m.apply(a), true
	}
	return nil, false
}

// presentNotice says that a stepping key came back to the present instead
// of stepping.
func presentNotice(l lang.Lang) string {
	return l.T("back to the present, nothing stepped: you were viewing a past step (press again to step; [ and f fork from a past step)")
}

// bringsDialogBack reports whether msg, pressed while a run's dialog is
// hidden, brings it back: a stepping key, an answer, or typing.
func bringsDialogBack(kt *kit, msg tea.KeyMsg) bool {
	k := kt.keys
	return key.Matches(msg, k.Step, k.Iteration, k.Continue, k.Send) ||
		key.Matches(msg, kt.confirmKeys.AllowOnce, kt.confirmKeys.AllowSession) || k.typing(msg)
}

// keyAction finds what msg does at the stepper: the keys as data, each with
// the controller that acts on it, in the order they are matched.
func (m *Model) keyAction(msg tea.KeyMsg) (func() tea.Cmd, bool) {
	k, s := m.keys, m.stepper
	do := func(a func() action) func() tea.Cmd { return func() tea.Cmd { return m.apply(a()) } }
	notice := func(f func() string) func() tea.Cmd { return do(func() action { return say(f()) }) }
	table := []struct {
		b  key.Binding
		do func() tea.Cmd
	}{
		{k.Step, func() tea.Cmd { return m.step(runOne, msg.String()) }}, // n also denies in the dialog a step may open
		{k.Iteration, func() tea.Cmd { return m.step(runIteration, "") }},
		{k.Continue, func() tea.Cmd { return m.step(runContinue, "") }},
		{k.Fork, do(m.forks.fork)},
		{k.ForkOnto, do(m.forks.openOnto)},
		{k.Abandon, do(m.forks.abandon)},
		{k.Branch, do(m.forks.toggleBranch)},
		{k.WhatIf, do(m.forks.whatIf)},
		{k.Handout, do(m.room.handout)},
		{k.Rosetta, do(m.rosetta.open)},
		{k.Pause, notice(s.pause)},
		{k.Input, func() tea.Cmd {
			// Enter on an empty input that offers a lesson sends it, as
			// the input line says; otherwise the input gets the keyboard.
			if _, ok := m.lessons.onEnter(); ok && msg.Type == tea.KeyEnter && strings.TrimSpace(m.input.Value()) == "" {
				return m.send()
			}
			return m.focusInput()
		}},
		{k.Leave, do(s.unzoom)},
		{k.Help, do(m.helpBox.open)},
		{k.Lessons, do(m.lessons.open)},
		{k.Focus, do(s.nextPane)},
		{k.FocusBack, do(s.prevPane)},
		{k.Look, do(s.lookAtNextRun)},
		{k.Zoom, do(func() action { return s.zoom(m.computeLayout().mode == layoutTabs) })},
		{k.Prev, notice(func() string { return s.travel(-1) })},
		{k.Next, notice(func() string { return s.travel(+1) })},
		{k.ReqResp, do(func() action { s.flipSide(); return action{} })},
		{k.Exchange, notice(s.nextExchange)},
		{k.Break, do(m.breaks.toggleState)},
		{k.Breaks, do(m.breaks.open)},
		{k.Predict, do(m.predict.toggle)},
		{k.Roster, do(m.room.openRoster)},
	}
	for _, a := range table {
		if key.Matches(msg, a.b) {
			return a.do, true
		}
	}
	return nil, false
}

// idleKeyNotice says why a stepper key did nothing here: most are a
// pane's own keys, pressed while another pane has the focus.
func (s *stepper) idleKeyNotice(msg tea.KeyMsg, k keyMap) string {
	r := s.cur()
	var in []string
	for p, c := range r.panes {
		if paneID(p) != s.pane && slices.ContainsFunc(c.keys(k), func(b key.Binding) bool { return key.Matches(msg, b) }) {
			in = append(in, c.title(s.lang))
		}
	}
	if len(in) == 0 {
		return ""
	}
	return s.lang.F("%s works in %s: tab there first (now: %s)", msg.String(), andList(s.lang, in), r.panes[s.pane].title(s.lang))
}

// andList joins items as a sentence of language l does: "a, b and c", or
// 「a、b、c」.
func andList(l lang.Lang, items []string) string {
	n := len(items)
	switch {
	case l == lang.JA:
		return strings.Join(items, "、")
	case n > 1:
		return strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	}
	return strings.Join(items, "")
}
