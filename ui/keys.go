package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// handleKey routes a key: ctrl+c first, then the dialog on top (top), then
// the input line if it has focus, then the stepper and the focused pane.
func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
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
		return d.update(m, msg)
	case m.inputFocused:
		return m.inputKey(msg)
	}
	return m.stepperKey(msg)
}

// manyRunes takes several runes that arrived at once: a sentence typed (or
// pasted) into the stepper goes to the input whole; keys pressed faster
// than the terminal is read ("[[[", "nnn") are taken one by one.
func (m Model) manyRunes(msg tea.KeyMsg, quitting bool) (tea.Model, tea.Cmd) {
	if m.keys.typing(msg) && !quitting {
		if key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[:1]}, m.keys.Input) {
			// "/" and the text typed after it arrived together.
			msg.Runes = msg.Runes[1:]
		}
		return m.typeIntoInput(msg)
	}
	var next tea.Model = m
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		var cmd tea.Cmd
		nm := next.(Model)
		if nm.inputFocused {
			// A key before switched to typing: the rest is text.
			next, cmd = nm.inputKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]})
			cmds = append(cmds, cmd)
			break
		}
		next, cmd = nm.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return next, tea.Batch(cmds...)
}

// typeIntoInput gives the keyboard to the input line and types msg there:
// text typed at the stepper is never lost.
func (m Model) typeIntoInput(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.cfg.Follow != nil {
		m.notice = m.readOnly()
		return m, nil
	}
	cmd := m.focusInput()
	next, cmd2 := m.inputKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes})
	nm := next.(Model)
	nm.notice = m.cfg.Lang.T("typing into the input (it had no focus): Enter sends · esc goes back to stepping")
	return nm, tea.Batch(cmd, cmd2)
}

// idleKeyNotice says why a stepper key did nothing here: most are a
// pane's own keys, pressed while another pane has the focus.
func (m Model) idleKeyNotice(msg tea.KeyMsg) string {
	r := m.cur()
	var in []string
	for p, c := range r.panes {
		if paneID(p) != m.pane && slices.ContainsFunc(c.keys(m.keys), func(b key.Binding) bool { return key.Matches(msg, b) }) {
			in = append(in, c.title(m.cfg.Lang))
		}
	}
	if len(in) == 0 {
		return ""
	}
	return m.cfg.Lang.F("%s works in %s: tab there first (now: %s)", msg.String(), andList(m.cfg.Lang, in), r.panes[m.pane].title(m.cfg.Lang))
}

// midEvent is the state of a run that is in the middle of an event, or "":
// a request sent now waits behind it.
func (m Model) midEvent() string {
	for _, r := range m.runs {
		if r.busy || r.live.state != loop.WaitingForEvent {
			return string(r.live.state)
		}
	}
	return ""
}

// hasHistory reports whether quitting would lose something: a step taken
// or a request queued in some run.
func (m Model) hasHistory() bool {
	for _, r := range m.runs {
		if len(r.live.steps) > 0 || r.live.queued > 0 || r.busy {
			return true
		}
	}
	return false
}

// askQuit is q: quit at once on a fresh screen; on a run with history,
// ask first.
func (m Model) askQuit() (tea.Model, tea.Cmd) {
	if !m.hasHistory() {
		return m.quit()
	}
	m.open(quitDialog{})
	return m, nil
}

// quitKey answers "quit glassbox?": y or q quits, n or esc stays, and any
// other key stays and does what it does — a letter that is not a stepper
// key starts typing, with the q in front ("quickly…" loses nothing).
func (m Model) quitKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.close(quitDialog{})
	switch {
	case key.Matches(msg, m.quitKeys.Yes):
		return m.quit()
	case key.Matches(msg, m.quitKeys.No):
		m.notice = m.cfg.Lang.T("not quitting")
		return m, nil
	case m.keys.typing(msg):
		return m.typeIntoInput(tea.KeyMsg{Type: tea.KeyRunes, Runes: append([]rune{'q'}, msg.Runes...)})
	}
	return m.handleKey(msg)
}

// interrupt is ctrl+c: cancel the steps in flight, or quit when there are
// none (or when a cancel is already pending).
func (m Model) interrupt() (tea.Model, tea.Cmd) {
	if !m.busy() || m.quitPending {
		return m.quit()
	}
	var cmds []tea.Cmd
	for _, r := range m.runs {
		if ok, cmd := r.interrupt(); ok {
			cmds = append(cmds, cmd)
		}
	}
	m.quitPending = true
	m.notice = m.cfg.Lang.T("cancelling… (ctrl+c again quits)")
	return m, tea.Batch(cmds...)
}

func (m Model) quit() (tea.Model, tea.Cmd) {
	m.cancelSteps()
	return m, tea.Quit
}

// cancelSteps cancels every run's step in flight.
func (m Model) cancelSteps() {
	for _, r := range m.runs {
		r.cancelStep()
	}
}

// inputKey handles a key while the input line has focus: Enter sends,
// esc and tab hand the keyboard to the panes, the rest is typing.
func (m Model) inputKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Send):
		return m, m.send()
	case key.Matches(msg, m.keys.Leave), key.Matches(msg, m.keys.Focus):
		m.focusPane(m.pane)
		return m, nil
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
	return m, cmd
}

// send submits the input as a user_input event from the "ui" source (to
// every run: one input feeds both in compare mode) and hands the keyboard to
// the stepper. It does not step: the learner watches
// the event sit in the queue and presses space to take it.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		l, ok := m.currentLesson()
		if !ok || m.lessonSent {
			m.notice = m.cfg.Lang.T("type a request first (l opens the lessons)")
			return nil
		}
		text = l.Request
	}
	fromBus := false
	if l, ok := m.currentLesson(); ok && text == strings.TrimSpace(l.Request) {
		m.lessonSent = true
		m.scoreLesson(l.Name)
		fromBus = l.FromBus
	} else {
		m.scoreLesson("")
	}
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
		m.notice = m.cfg.Lang.T("no engine is attached")
		return nil
	}
	m.input.Reset()
	m.updatePlaceholder()
	m.refreshWelcome()
	m.focusPane(m.pane)
	m.syncSizes()
	switch {
	case m.compare():
		m.notice = m.cfg.Lang.T("event queued in both runs — space steps both, tab picks one run, c runs both to the answer")
	case m.busy() || m.midEvent() != "":
		m.notice = m.cfg.Lang.F("event queued behind the one in progress (%s): space goes on with that one; c runs it to its answer, then this one is next; A abandons it", m.midEvent())
	default:
		m.notice = m.cfg.Lang.T("event queued — press space to take it (new_event), c to run to the answer")
	}
	return tea.Batch(cmds...)
}

// submitCmd queues ev in the run's engine, in a command (the engine writes
// it to the session file). The run counts it as queued at once; a step
// started before the engine has it waits for it (see stepCmd), and events
// go in in the order they were sent.
func (r *runView) submitCmd(ev loop.Event) tea.Cmd {
	r.live.queued++
	eng, before, done := r.eng, r.submitted, make(chan struct{})
	r.submitted = done
	return func() tea.Msg {
		if before != nil {
			<-before
		}
		eng.Submit(ev)
		close(done)
		return nil
	}
}

// paneKey hands a key to the focused pane of every target run. It reports
// whether the pane used it.
func (m *Model) paneKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	L := m.computeLayout()
	page := max(L.paneRect(m.pane).inner().h-1, 1)
	used := false
	var cmds []tea.Cmd
	for _, r := range m.targets() {
		if reply := r.panes[m.pane].key(msg, m.keys, page); reply.taken {
			used = true
			cmds = append(cmds, reply.cmd)
		}
	}
	return used, tea.Batch(cmds...)
}

func (m Model) lessonIndex() int {
	for i, l := range m.cfg.Lessons {
		if l.Name == m.lessonName {
			return i
		}
	}
	return 0
}

// lessonKey drives the lessons menu; a pick puts the lesson's request in
// the input line and gives it the keyboard, ready for Enter.
func (m Model) lessonKey(menu *lessonMenu, msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	lessons := m.offered()
	i, closed := menu.key(msg, m.lessonKeys, len(lessons))
	if !closed {
		return m, nil
	}
	m.close(menu)
	if i < 0 {
		return m, nil
	}
	l := lessons[i]
	m.lessonName = l.Name
	m.refreshWelcome()
	m.input.SetValue(l.Request)
	m.notice = m.cfg.Lang.F("lesson %s: press Enter to send its request", l.Name)
	if at := m.midEvent(); at != "" {
		m.notice = m.cfg.Lang.F("lesson %s: Enter queues its request behind the event in progress (%s), which finishes first (c runs it to its answer; A abandons it)", l.Name, at)
	}
	cmd := m.focusInput()
	m.syncSizes()
	return m, cmd
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
