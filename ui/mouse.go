package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// wheelLines is how far one notch of the mouse wheel scrolls.
const wheelLines = 3

// handleMouse scrolls the pane under the pointer with the wheel, and
// focuses what a click lands on (a pane, a tab, the input line).
func (m Model) handleMouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.confirm != nil || m.ask != nil || m.lessons != nil || m.helpOpen {
		if m.confirm != nil && msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				m.confirm.scroll = max(m.confirm.scroll-wheelLines, 0)
			case tea.MouseButtonWheelDown:
				m.confirm.scroll += wheelLines
			}
		}
		return m, nil
	}
	L := m.computeLayout()
	if L.mode == layoutTooSmall {
		return m, nil
	}
	p, onPane := m.paneAt(L, msg.X, msg.Y)
	switch {
	case msg.Button == tea.MouseButtonWheelUp || msg.Button == tea.MouseButtonWheelDown:
		if onPane {
			delta := wheelLines
			if msg.Button == tea.MouseButtonWheelUp {
				delta = -delta
			}
			m.scrollPane(p, delta)
		}
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
		switch {
		case L.mode == layoutTabs && L.tabBar.contains(msg.X, msg.Y):
			if t, ok := tabAt(msg.X, L.tabBar.w); ok {
				m.focusPane(t)
				m.syncSizes()
			}
		case L.input.contains(msg.X, msg.Y):
			return m, m.focusInput()
		case onPane:
			m.focusPane(p)
		}
	}
	return m, nil
}

// paneAt finds the pane under the cell (x, y).
func (m Model) paneAt(L layout, x, y int) (paneID, bool) {
	for p := paneID(0); p < numPanes; p++ {
		if L.shown[p] && L.panes[p].contains(x, y) {
			return p, true
		}
	}
	return 0, false
}

// tabAt finds the tab under column x of the tab bar (drawn by tabBarView:
// " Name " separated by "│").
func tabAt(x, width int) (paneID, bool) {
	pos := 0
	titles := tabTitles(width)
	for p := paneID(0); p < numPanes; p++ {
		w := len([]rune(titles[p])) + 2
		if x >= pos && x < pos+w {
			return p, true
		}
		pos += w + 1
	}
	return 0, false
}

// scrollPane scrolls pane p by delta lines (negative: up).
func (m *Model) scrollPane(p paneID, delta int) {
	switch p {
	case paneHistory:
		end := m.histEnd()
		if delta < 0 {
			m.hist.scrollUp(-delta, end)
		} else {
			m.hist.scrollDown(delta, end)
		}
	case paneTools:
		m.calls.scroll(delta)
	case panePayload:
		m.payload.scroll.scroll(delta)
	case paneDiagram:
		// The diagram always fits its pane.
	}
}
