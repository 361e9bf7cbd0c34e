package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// handleKey routes a key: ctrl+c first, then an open dialog, then the
// lessons menu or help, then the quit question, then the input line if it
// has focus, then the stepper and the focused pane.
func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.Cancel) {
		return m.interrupt()
	}
	dr := m.dialogRun()
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.inputFocused && dr == nil && m.lessons == nil && !m.helpOpen {
		// Several runes at once: a sentence typed (or pasted) into the
		// stepper goes to the input whole; keys pressed faster than the
		// terminal is read ("[[[", "nnn") are taken one by one.
		if m.keys.typing(msg) && !m.quitAsked {
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
	switch {
	case dr != nil && dr.confirm != nil:
		return m.dialogKey(dr, dr.confirm.update(msg, m.confirmKeys), msg)
	case dr != nil && dr.ask != nil:
		return m.dialogKey(dr, dr.ask.update(msg, m.askKeys), msg)
	case m.forkAsk != nil:
		m.forkKey(msg)
		return m, nil
	case m.ontoAsk != nil:
		m.ontoKey(msg)
		return m, nil
	case m.lessons != nil:
		return m.lessonKey(msg)
	case m.helpOpen:
		k := m.helpKeys
		if key.Matches(msg, k.Close) {
			m.helpOpen = false
		} else {
			m.helpTop.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, 10)
		}
		m.clampHelp()
		return m, nil
	case m.quitAsked:
		return m.quitKey(msg)
	case m.inputFocused:
		return m.inputKey(msg)
	}
	return m.stepperKey(msg)
}

// dialogKey acts on what a key did to run r's dialog.
func (m Model) dialogKey(r *runView, out dialogOutcome, msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch out {
	case dialogAnswered:
		return m, r.answered()
	case dialogHidden:
		r.hidden = true
		m.focusPane(m.pane)
		return m, nil
	case dialogPass:
		return m.stepperKey(msg)
	}
	return m, nil
}

// typeIntoInput gives the keyboard to the input line and types msg there:
// text typed at the stepper is never lost.
func (m Model) typeIntoInput(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	cmd := m.focusInput()
	next, cmd2 := m.inputKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes})
	nm := next.(Model)
	nm.notice = "typing into the input (it had no focus): Enter sends · esc goes back to stepping"
	return nm, tea.Batch(cmd, cmd2)
}

// idleKeyNotice says why a stepper key did nothing here: most are a
// pane's own keys, pressed while another pane has the focus.
func (m Model) idleKeyNotice(msg tea.KeyMsg) string {
	r := m.cur()
	var in []string
	for p, c := range r.panes {
		if paneID(p) != m.pane && slices.ContainsFunc(c.keys(m.keys), func(b key.Binding) bool { return key.Matches(msg, b) }) {
			in = append(in, c.title())
		}
	}
	if len(in) == 0 {
		return ""
	}
	where := strings.Join(in, ", ")
	if n := len(in); n > 1 {
		where = strings.Join(in[:n-1], ", ") + " and " + in[n-1]
	}
	return fmt.Sprintf("%s works in %s: tab there first (now: %s)", msg.String(), where, r.pane(m.pane).title())
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
	m.quitAsked = true
	return m, nil
}

// quitKey answers "quit glassbox?": y or q quits, n or esc stays, and any
// other key stays and does what it does — a letter that is not a stepper
// key starts typing, with the q in front ("quickly…" loses nothing).
func (m Model) quitKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.quitAsked = false
	switch {
	case key.Matches(msg, m.quitKeys.Yes):
		return m.quit()
	case key.Matches(msg, m.quitKeys.No):
		m.notice = "not quitting"
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
	m.notice = "cancelling… (ctrl+c again quits)"
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
			m.notice = "type a request first (l opens the lessons)"
			return nil
		}
		text = l.Request
	}
	if l, ok := m.currentLesson(); ok && text == strings.TrimSpace(l.Request) {
		m.lessonSent = true
	}
	sent := 0
	for _, r := range m.runs {
		if r.eng == nil {
			continue
		}
		r.eng.Submit(loop.Event{Source: "ui", Type: "user_input", Data: text})
		r.live.queued++
		sent++
	}
	if sent == 0 {
		m.notice = "no engine is attached"
		return nil
	}
	m.input.Reset()
	m.updatePlaceholder()
	m.focusPane(m.pane)
	m.syncSizes()
	switch {
	case m.compare():
		m.notice = "event queued in both runs — space steps both, tab picks one run, c runs both to the answer"
		return nil
	case m.busy() || m.midEvent() != "":
		m.notice = "event queued behind the one in progress (" + m.midEvent() + "): space goes on with that one; c runs it to its answer, then this one is next; A abandons it"
	default:
		m.notice = "event queued — press space to take it (new_event), c to run to the answer"
	}
	return nil
}

// stepperKey handles a key while a pane has focus. Keys that act on a run
// act on every target run (compare mode: both, unless tab picked one).
func (m Model) stepperKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	m.notice = "" // the last notice was about the last key; this key moves on
	for _, r := range m.runs {
		if !r.busy {
			r.notice = ""
		}
	}
	if r := m.hiddenDialogRun(); r != nil && (key.Matches(msg, k.Step, k.Iteration, k.Continue, k.Send) ||
		key.Matches(msg, m.confirmKeys.AllowOnce, m.confirmKeys.AllowSession) || k.typing(msg)) {
		// The step waits for the person: stepping (or answering) brings
		// the dialog back; the key itself answers nothing.
		r.hidden = false
		m.notice = "the dialog is back: answer it there"
		return m, nil
	}
	// Keys that mean something else in one pane come first.
	if handled, cmd := m.paneKey(msg); handled {
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Step, k.Iteration, k.Continue) && m.returnToPresent():
		// A past step is shown: come back first, step on the next press.
	case key.Matches(msg, k.Step):
		// "n" or " ": n also denies in the dialog a step may open.
		return m, m.step(runOne, msg.String())
	case key.Matches(msg, k.Iteration):
		return m, m.step(runIteration, "")
	case key.Matches(msg, k.Continue):
		return m, m.step(runContinue, "")
	case key.Matches(msg, k.Fork):
		m.fork()
	case key.Matches(msg, k.ForkOnto):
		m.openOnto()
	case key.Matches(msg, k.Abandon):
		m.abandon()
	case key.Matches(msg, k.Branch):
		m.toggleBranch()
	case key.Matches(msg, k.WhatIf):
		return m, m.whatIf()
	case key.Matches(msg, k.Pause):
		for _, r := range m.targets() {
			if r.busy && r.mode != runOne {
				r.pauseAsked = true
				m.notice = "pausing after this transition…"
			}
		}
	case key.Matches(msg, k.Input):
		return m, m.focusInput()
	case key.Matches(msg, k.Leave):
		if m.zoomed {
			m.zoomed = false
			m.syncSizes()
		}
	case key.Matches(msg, k.Help):
		m.helpOpen = true
		m.helpTop.off = 0
	case key.Matches(msg, k.Lessons):
		m.lessons = &lessonMenu{sel: m.lessonIndex()}
	case key.Matches(msg, k.Focus) && m.compare():
		m.cycleRun()
	case key.Matches(msg, k.Focus):
		m.focusPane((m.pane + 1) % numPanes)
		m.syncSizes()
	case key.Matches(msg, k.FocusBack):
		m.focusPane((m.pane + numPanes - 1) % numPanes)
		m.syncSizes()
	case key.Matches(msg, k.Zoom):
		if m.computeLayout().mode != layoutGrid && !m.zoomed {
			m.notice = "each pane already fills the screen here (z zooms in the four-pane layout, from 120 columns)"
			break
		}
		m.zoomed = !m.zoomed
		m.syncSizes()
	case key.Matches(msg, k.Prev), key.Matches(msg, k.Next):
		delta := -1
		if key.Matches(msg, k.Next) {
			delta = +1
		}
		if m.compare() && m.focus < 0 {
			m.travelByCall(delta)
			break
		}
		for _, r := range m.targets() {
			r.live.move(delta)
			if s := r.live.selected(); s != nil {
				r.payload.follow(&s.t)
			}
			r.calls.reset()
		}
	case key.Matches(msg, k.ReqResp):
		for _, r := range m.targets() {
			r.payload.response = !r.payload.response
			r.payload.scroll.off = 0
		}
	case key.Matches(msg, k.Exchange):
		for _, r := range m.targets() {
			es := r.live.exchangeStep(r.live.selectedIndex())
			switch {
			case es < 0:
				m.notice = "x: no model call yet, so no HTTP exchange to switch to"
			case len(r.live.steps[es].t.Exchanges) < 2:
				m.notice = "x: this model call made one HTTP exchange (retries make more)"
			default:
				r.payload.nextExchange(len(r.live.steps[es].t.Exchanges))
			}
		}
	case key.Matches(msg, k.Break):
		r := m.cur()
		s := r.diag.toggle()
		for _, o := range m.targets() {
			if o != r {
				o.diag.set(s, r.diag.breakpoints[s])
			}
		}
		if r.diag.breakpoints[s] {
			m.notice = fmt.Sprintf("breakpoint on %s: i and c stop when the loop enters it", s)
			if m.pane != paneDiagram {
				m.notice += " (to pick another state: tab to State machine, ←/→, b)"
			}
		} else {
			m.notice = "breakpoint removed from " + string(s)
		}
	case m.keys.typing(msg):
		return m.typeIntoInput(msg)
	default:
		m.notice = m.idleKeyNotice(msg)
	}
	m.clampScrolls()
	return m, m.fetchPayloads()
}

// cycleRun is tab in compare mode: both runs → the first alone → the second
// alone → both again. A run picked alone takes every key; its panes fill the
// screen where there is room for one run only.
func (m *Model) cycleRun() {
	m.focus++
	if m.focus >= len(m.runs) {
		m.focus = -1
	}
	if m.focus >= 0 {
		m.shown = m.focus
		m.notice = "keys act on " + m.runs[m.focus].title() + " alone (tab: next)"
	} else {
		m.notice = "keys act on both runs (tab picks one)"
	}
	m.syncSizes()
}

// paneKey hands a key to the focused pane of every target run. It reports
// whether the pane used it.
func (m *Model) paneKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	L := m.computeLayout()
	page := max(L.paneRect(m.pane).inner().h-1, 1)
	used := false
	for _, r := range m.targets() {
		if r.pane(m.pane).key(msg, m.keys, page) {
			used = true
		}
	}
	if used {
		m.clampScrolls()
	}
	return used, nil
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
func (m Model) lessonKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	i, closed := m.lessons.update(msg, m.lessonKeys, len(m.cfg.Lessons))
	if !closed {
		return m, nil
	}
	m.lessons = nil
	if i < 0 {
		return m, nil
	}
	l := m.cfg.Lessons[i]
	m.lessonName = l.Name
	m.input.SetValue(l.Request)
	m.notice = "lesson " + l.Name + ": press Enter to send its request"
	if at := m.midEvent(); at != "" {
		m.notice = "lesson " + l.Name + ": Enter queues its request behind the event in progress (" + at + "), which finishes first (c runs it to its answer; A abandons it)"
	}
	cmd := m.focusInput()
	m.syncSizes()
	return m, cmd
}
