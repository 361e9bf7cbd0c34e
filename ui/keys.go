package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// handleKey routes a key: ctrl+c first, then an open modal, then the input
// line if it has focus, then the stepper and the focused pane.
func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.Cancel) {
		return m.interrupt()
	}
	// Keys typed faster than the terminal is read arrive together ("[[[",
	// "nnn"). Outside text entry each one is a command: take them one by one.
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.inputFocused && m.ask == nil {
		var next tea.Model = m
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			var cmd tea.Cmd
			next, cmd = next.(Model).handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
			cmds = append(cmds, cmd)
		}
		return next, tea.Batch(cmds...)
	}
	switch {
	case m.confirm != nil:
		if m.confirm.update(msg, m.keys) {
			return m, m.answered()
		}
		return m, nil
	case m.ask != nil:
		if m.ask.update(msg, m.keys) {
			return m, m.answered()
		}
		return m, nil
	case m.lessons != nil:
		return m.lessonKey(msg)
	case m.helpOpen:
		if key.Matches(msg, m.keys.Quit) {
			return m.quit()
		}
		switch {
		case key.Matches(msg, m.keys.Leave, m.keys.Help):
			m.helpOpen = false
		case key.Matches(msg, m.keys.Up):
			m.helpTop = max(m.helpTop-1, 0)
		case key.Matches(msg, m.keys.Down):
			m.helpTop++
		case key.Matches(msg, m.keys.PageUp):
			m.helpTop = max(m.helpTop-10, 0)
		case key.Matches(msg, m.keys.PageDown):
			m.helpTop += 10
		}
		return m, nil
	case m.inputFocused:
		return m.inputKey(msg)
	}
	return m.stepperKey(msg)
}

// interrupt is ctrl+c: cancel the step in flight, or quit when there is
// none (or when a cancel is already pending).
func (m Model) interrupt() (tea.Model, tea.Cmd) {
	if !m.busy || m.quitPending {
		return m.quit()
	}
	m.cancelStep()
	m.run = runOne
	m.quitPending = true
	m.notice = "cancelling… (ctrl+c again quits)"
	if m.confirm != nil || m.ask != nil {
		// The step stops waiting for the person; collect its result.
		return m, m.answered()
	}
	return m, nil
}

func (m Model) quit() (tea.Model, tea.Cmd) {
	m.cancelStep()
	return m, tea.Quit
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

// send submits the input as a user_input event from the "ui" source and
// hands the keyboard to the stepper. It does not step: the learner watches
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
	if m.eng == nil {
		m.notice = "no engine is attached"
		return nil
	}
	m.eng.Submit(loop.Event{Source: "ui", Type: "user_input", Data: text})
	m.live.queued++
	m.input.Reset()
	m.updatePlaceholder()
	m.focusPane(m.pane)
	m.syncSizes()
	if m.busy {
		m.notice = "event queued behind the one in progress"
	} else {
		m.notice = "event queued — press space to take it (new_event), c to run to the answer"
	}
	return nil
}

// stepperKey handles a key while a pane has focus.
func (m Model) stepperKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if !m.busy {
		m.notice = "" // the last notice was about the last step; this key moves on
	}
	// Keys that mean something else in one pane come first.
	if handled, cmd := m.paneKey(msg); handled {
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Step):
		m.runKey = msg.String() // "n" or " ": n also denies in the dialog a step may open
		return m, m.startRun(runOne)
	case key.Matches(msg, k.Iteration):
		m.runKey = ""
		return m, m.startRun(runIteration)
	case key.Matches(msg, k.Continue):
		m.runKey = ""
		return m, m.startRun(runContinue)
	case key.Matches(msg, k.Pause):
		if m.busy && m.run != runOne {
			m.pauseAsked = true
			m.notice = "pausing after this transition…"
		}
	case key.Matches(msg, k.Input):
		return m, m.focusInput()
	case key.Matches(msg, k.Leave):
		if m.zoomed {
			m.zoomed = false
			m.syncSizes()
		}
	case key.Matches(msg, k.Help):
		m.helpOpen, m.helpTop = true, 0
	case key.Matches(msg, k.Lessons):
		m.lessons = &lessonMenu{sel: m.lessonIndex()}
	case key.Matches(msg, k.Focus):
		m.focusPane((m.pane + 1) % numPanes)
		m.syncSizes()
	case key.Matches(msg, k.FocusBack):
		m.focusPane((m.pane + numPanes - 1) % numPanes)
		m.syncSizes()
	case key.Matches(msg, k.Zoom):
		if m.computeLayout().mode == layoutTabs && !m.zoomed {
			m.notice = "tabs: each pane already fills the screen (z zooms in the four-pane layout, 120+ columns)"
			break
		}
		m.zoomed = !m.zoomed
		m.syncSizes()
	case key.Matches(msg, k.Prev):
		m.live.move(-1)
		m.payload.follow()
		m.calls.off = 0
	case key.Matches(msg, k.Next):
		m.live.move(+1)
		m.payload.follow()
		m.calls.off = 0
	case key.Matches(msg, k.ReqResp):
		m.payload.response = !m.payload.response
		m.payload.scroll.off = 0
	case key.Matches(msg, k.Exchange):
		if es := m.live.exchangeStep(m.live.selectedIndex()); es >= 0 {
			m.payload.nextExchange(len(m.live.steps[es].t.Exchanges))
		}
	case key.Matches(msg, k.Break):
		s := m.diag.toggle()
		if m.diag.breakpoints[s] {
			m.notice = fmt.Sprintf("breakpoint on %s: i and c stop when the loop enters it", s)
			if m.pane != paneDiagram {
				m.notice += " (to pick another state: tab to State machine, ←/→, b)"
			}
		} else {
			m.notice = "breakpoint removed from " + string(s)
		}
	}
	return m, nil
}

// paneKey handles the focused pane's own keys (scrolling, selection,
// headers). It reports whether it used the key.
func (m *Model) paneKey(msg tea.KeyMsg) (bool, tea.Cmd) {
	k := m.keys
	page := max(m.computeLayout().panes[m.pane].inner().h-1, 1)
	switch m.pane {
	case paneHistory:
		end := m.histEnd()
		switch {
		case key.Matches(msg, k.Up):
			m.hist.moveSel(-1, end)
		case key.Matches(msg, k.Down):
			m.hist.moveSel(+1, end)
		case key.Matches(msg, k.PageUp):
			m.hist.scrollUp(page, end)
		case key.Matches(msg, k.PageDown):
			m.hist.scrollDown(page, end)
		case key.Matches(msg, k.Top):
			m.hist.toTop()
		case key.Matches(msg, k.Bottom):
			m.hist.toBottom()
		case key.Matches(msg, k.Expand):
			m.hist.toggle(end)
		case key.Matches(msg, k.ExpandAll):
			m.hist.toggleAll()
		default:
			return false, nil
		}
	case paneDiagram:
		switch {
		case key.Matches(msg, k.Left), key.Matches(msg, k.Up):
			m.diag.move(-1)
		case key.Matches(msg, k.Right), key.Matches(msg, k.Down):
			m.diag.move(+1)
		default:
			return false, nil
		}
	case paneTools:
		switch {
		case key.Matches(msg, k.Up):
			m.calls.scroll(-1)
		case key.Matches(msg, k.Down):
			m.calls.scroll(+1)
		case key.Matches(msg, k.PageUp):
			m.calls.scroll(-page)
		case key.Matches(msg, k.PageDown):
			m.calls.scroll(+page)
		default:
			return false, nil
		}
	case panePayload:
		switch {
		case key.Matches(msg, k.Headers):
			m.payload.headers = !m.payload.headers
			m.payload.scroll.off = 0
		case key.Matches(msg, k.Up):
			m.payload.scroll.scroll(-1)
		case key.Matches(msg, k.Down):
			m.payload.scroll.scroll(+1)
		case key.Matches(msg, k.PageUp):
			m.payload.scroll.scroll(-page)
		case key.Matches(msg, k.PageDown):
			m.payload.scroll.scroll(+page)
		case key.Matches(msg, k.Top):
			m.payload.scroll.off = 0
		case key.Matches(msg, k.Bottom):
			m.payload.scroll.off = 1 << 30 // clamped when drawn
		default:
			return false, nil
		}
	default:
		return false, nil
	}
	return true, nil
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
	i, closed := m.lessons.update(msg, m.keys, len(m.cfg.Lessons))
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
	cmd := m.focusInput()
	m.syncSizes()
	return m, cmd
}
