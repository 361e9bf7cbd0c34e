package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// wheelLines is how far one notch of the mouse wheel scrolls.
const wheelLines = 3

// handleMouse scrolls the pane under the pointer with the wheel, and
// focuses what a click lands on (a pane, a tab, the input line).
func (m Model) handleMouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.blocksPanes() {
		dr := m.dialogRun()
		if dr != nil && dr.confirm != nil && msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				dr.confirm.scroll.scroll(-wheelLines)
			case tea.MouseButtonWheelDown:
				dr.confirm.scroll.scroll(+wheelLines)
			}
			m.clampScrolls()
		}
		return m, nil
	}
	L := m.computeLayout()
	if L.mode == layoutTooSmall {
		return m, nil
	}
	pl, onPane := L.paneAt(msg.X, msg.Y)
	switch {
	case msg.Button == tea.MouseButtonWheelUp || msg.Button == tea.MouseButtonWheelDown:
		if onPane {
			delta := wheelLines
			if msg.Button == tea.MouseButtonWheelUp {
				delta = -delta
			}
			// The wheel scrolls the pane under the pointer, of that run only.
			m.runs[pl.run].scrollPane(pl.pane, delta)
			m.clampScrolls()
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
			m.focusPane(pl.pane)
		}
	}
	return m, nil
}

// paneAt finds the pane under the cell (x, y).
func (L layout) paneAt(x, y int) (placed, bool) {
	for _, pl := range L.panes {
		if pl.r.contains(x, y) {
			return pl, true
		}
	}
	return placed{}, false
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

// scrollPane scrolls the run's pane p by delta lines (negative: up).
func (r *runView) scrollPane(p paneID, delta int) { r.pane(p).scroll(delta) }
