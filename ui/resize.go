package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/diagram"
)

// The smallest terminal the UI draws in, and the size from which the four
// panes sit side by side instead of in tabs.
const (
	minWidth, minHeight   = 30, 10
	gridWidth, gridHeight = 120, 24
	maxInputLines         = 4
)

// rect is a rectangle of terminal cells.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// inner is the content area inside a one-cell border.
func (r rect) inner() rect {
	return rect{x: r.x + 1, y: r.y + 1, w: max(r.w-2, 0), h: max(r.h-2, 0)}
}

type layoutMode int

const (
	layoutTooSmall layoutMode = iota
	layoutTabs                // one pane at a time under a tab bar
	layoutGrid                // all four panes
)

// layout is where everything goes at the current size. It is computed from
// the size, the focused pane (tabs) and the zoom, so View, the mouse and the
// resize handler agree on it.
type layout struct {
	mode   layoutMode
	tabBar rect
	body   rect
	panes  [numPanes]rect
	shown  [numPanes]bool
	input  rect
	help   rect
	status rect
}

func (m Model) inputLines() int {
	return min(max(m.input.LineCount(), 1), maxInputLines)
}

func (m Model) computeLayout() layout {
	var L layout
	W, H := m.width, m.height
	if W < minWidth || H < minHeight {
		L.mode = layoutTooSmall
		return L
	}
	helpH := 0
	if H >= 12 {
		helpH = 1
	}
	inputH := min(m.inputLines(), max(H-helpH-1-6, 1))
	y := H
	y -= 1
	L.status = rect{0, y, W, 1}
	y -= helpH
	L.help = rect{0, y, W, helpH}
	y -= inputH
	L.input = rect{0, y, W, inputH}
	bodyBottom := y

	L.mode = layoutTabs
	if W >= gridWidth && H >= gridHeight {
		L.mode = layoutGrid
	}
	top := 0
	if L.mode == layoutTabs {
		L.tabBar = rect{0, 0, W, 1}
		top = 1
	}
	L.body = rect{0, top, W, bodyBottom - top}
	b := L.body

	if L.mode == layoutTabs || m.zoomed {
		L.panes[m.pane] = b
		L.shown[m.pane] = true
		return L
	}

	// Grid: History on the left; the state machine top right; tool calls
	// and the raw payload side by side below it.
	histW := min(max(W*7/20, 40), 72)
	rightW := W - histW
	// The drawn state machine is the centrepiece: it gets its full height
	// while at least 8 rows (6 of content) remain for the panes below, so a
	// laptop terminal of 120×34 still shows the picture rather than a list.
	diagH := max(min(diagram.FullHeight+2, b.h-8), 6)
	toolsW := rightW * 2 / 5
	L.panes[paneHistory] = rect{0, b.y, histW, b.h}
	L.panes[paneDiagram] = rect{histW, b.y, rightW, diagH}
	L.panes[paneTools] = rect{histW, b.y + diagH, toolsW, b.h - diagH}
	L.panes[panePayload] = rect{histW + toolsW, b.y + diagH, rightW - toolsW, b.h - diagH}
	for i := range L.shown {
		L.shown[i] = true
	}
	return L
}

// handleResize records the new size and lays the panes out again.
func (m Model) handleResize(msg tea.WindowSizeMsg) (tea.Model, tea.Cmd) {
	m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
	m.ready = true
	m.syncSizes()
	return m, nil
}

// syncSizes hands each sub-model its size. Called after anything that can
// change the layout: a resize, the zoom, the input growing a line.
func (m *Model) syncSizes() {
	m.input.SetWidth(max(m.width, 1))
	m.input.SetHeight(m.inputLines())
	L := m.computeLayout()
	r := L.panes[paneHistory].inner()
	if !L.shown[paneHistory] {
		// Keep the cache width stable while History is hidden in tabs mode.
		r = rect{w: max(m.width-2, 1), h: max(L.body.h-2, 1)}
	}
	m.hist.setSize(m.th, r.w-2, r.h)
	m.help.Width = m.width
}
