package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// wheelLines is how far one notch of the mouse wheel scrolls.
const wheelLines = 3

// handleMouse scrolls the pane under the pointer with the wheel, and
// focuses what a click lands on (a pane, a tab, the input line).
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	delta := wheelDelta(msg)
	if blocksPanes(m.top()) {
		// Only the approval's preview scrolls under a dialog.
		if dr := m.stepper.dialogRun(); dr != nil && dr.confirm != nil && delta != 0 {
			dr.confirm.scroll.scroll(delta)
			m.clampScrolls()
		}
		return nil
	}
	L := m.computeLayout()
	if L.mode == layoutTooSmall {
		return nil
	}
	pl, onPane := L.paneAt(msg.X, msg.Y)
	switch {
	case delta != 0 && onPane:
		// The wheel scrolls the pane under the pointer, of that run only;
		// the pane settles itself.
		if w, ok := m.runs[pl.run].panes[pl.pane].(wheel); ok {
			w.scroll(delta)
		}
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
		return m.click(L, msg.X, msg.Y)
	}
	return nil
}

// wheelDelta is how far a wheel notch scrolls (negative: up), 0 for any
// other mouse event.
func wheelDelta(msg tea.MouseMsg) int {
	if msg.Action != tea.MouseActionPress {
		return 0
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -wheelLines
	case tea.MouseButtonWheelDown:
		return wheelLines
	}
	return 0
}

// click focuses what a left click lands on: a tab, the input, a pane.
func (m *Model) click(L layout, x, y int) tea.Cmd {
	pl, onPane := L.paneAt(x, y)
	switch {
	case L.mode == layoutTabs && L.tabBar.contains(x, y):
		if t, ok := tabAt(x, L.tabBar.w, m.lang, m.stepper.cur().panes); ok {
			m.focusPane(t)
			m.syncSizes()
		}
	case L.input.contains(x, y):
		return m.focusInput()
	case onPane:
		m.focusPane(pl.pane)
	}
	return nil
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
func tabAt(x, width int, l lang.Lang, panes [numPanes]component) (paneID, bool) {
	pos := 0
	titles := tabTitles(width, l, panes)
	for p := paneID(0); p < numPanes; p++ {
		w := ansi.StringWidth(titles[p]) + 2
		if x >= pos && x < pos+w {
			return p, true
		}
		pos += w + 1
	}
	return 0, false
}
