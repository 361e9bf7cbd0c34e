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
	layoutCompare             // compare mode, wide: two runs side by side
)

// compareWidth is the width from which compare mode sets the two runs side
// by side; from gridWidth it keeps the comparison strip above one run.
const compareWidth = 160

// placed is one pane of one run at a rectangle of the screen.
type placed struct {
	run  int
	pane paneID
	r    rect
}

// layout is where everything goes at the current size. It is computed from
// the size, the focused pane and run (tabs) and the zoom, so View, the mouse
// and the resize handler agree on it.
type layout struct {
	mode   layoutMode
	runBar rect     // compare mode: the runs' names, which one the keys act on
	strip  rect     // compare mode from 120 columns: the comparison strip
	heads  [2]rect  // compare mode, wide: each run's title line
	tabBar rect     // tabs: the panes' names
	body   rect     // where the panes (and dialogs) go
	panes  []placed // in drawing order
	input  rect
	help   rect
	status rect
}

// paneRect is where pane p of the run the keys act on is drawn (the first
// one placed), or an empty rect.
func (L layout) paneRect(p paneID) rect {
	for _, pl := range L.panes {
		if pl.pane == p {
			return pl.r
		}
	}
	return rect{}
}

// shows reports whether pane p is on screen.
func (L layout) shows(p paneID) bool { return L.paneRect(p).w > 0 }

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

	top := 0
	if m.compare() {
		if W >= gridWidth && H >= gridHeight+stripHeight {
			L.strip = rect{0, 0, W, stripHeight}
			top = stripHeight
		}
		if W >= compareWidth && H >= gridHeight+stripHeight && !m.zoomed {
			return m.compareLayout(L, rect{0, top, W, bodyBottom - top})
		}
		L.runBar = rect{0, top, W, 1}
		top++
	}
	L.mode = layoutTabs
	if W >= gridWidth && bodyBottom-top >= gridHeight-4 {
		L.mode = layoutGrid
	}
	if L.mode == layoutTabs {
		L.tabBar = rect{0, top, W, 1}
		top++
	}
	L.body = rect{0, top, W, bodyBottom - top}
	b := L.body
	run := m.cur().id

	if L.mode == layoutTabs || m.zoomed {
		L.panes = []placed{{run, m.pane, b}}
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
	L.panes = []placed{
		{run, paneHistory, rect{0, b.y, histW, b.h}},
		{run, paneDiagram, rect{histW, b.y, rightW, diagH}},
		{run, paneTools, rect{histW, b.y + diagH, toolsW, b.h - diagH}},
		{run, panePayload, rect{histW + toolsW, b.y + diagH, rightW - toolsW, b.h - diagH}},
	}
	return L
}

// stripHeight is the comparison strip with its frame: a heading row and one
// row per run.
const stripHeight = 5

// compareLayout sets the two runs side by side in body: under each run's
// title line its compact state machine, its tool calls and its raw payload,
// the payloads taking what is left. History is one tab away (tab picks a
// run; its four panes then fill the screen).
func (m Model) compareLayout(L layout, body rect) layout {
	L.mode = layoutCompare
	L.body = body
	left := body.w / 2
	for i := 0; i < 2 && i < len(m.runs); i++ {
		x, w := 0, left
		if i == 1 {
			x, w = left, body.w-left
		}
		L.heads[i] = rect{x, body.y, w, 1}
		y, h := body.y+1, body.h-1
		diagH := min(8, h/4)
		toolsH := min(max(h/4, 6), 11)
		L.panes = append(L.panes,
			placed{i, paneDiagram, rect{x, y, w, diagH}},
			placed{i, paneTools, rect{x, y + diagH, w, toolsH}},
			placed{i, panePayload, rect{x, y + diagH + toolsH, w, h - diagH - toolsH}},
		)
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

// syncSizes hands each sub-model its size and clamps every scroll to its
// content. Called after anything that can change the layout or the content:
// a resize, the zoom, the input growing a line, a step. View only reads.
func (m *Model) syncSizes() {
	m.input.SetWidth(max(m.width, 1))
	m.input.SetHeight(m.inputLines())
	m.help.Width = m.width
	L := m.computeLayout()
	for _, r := range m.runs {
		// A pane never placed yet gets the body's size, so that its
		// caches have a width; one placed before keeps the size it had.
		for p, c := range r.panes {
			if !r.sized[p] {
				c.sync(m.look(), rect{w: max(m.width-2, 1), h: max(L.body.h-2, 1)})
				r.sized[p] = true
			}
		}
	}
	m.clampScrolls()
}

// clampScrolls keeps every scroll offset inside its content, so the panes
// draw what the offset says and ↑ moves at once after a long ↓.
func (m *Model) clampScrolls() {
	L := m.computeLayout()
	lk := m.look()
	for _, pl := range L.panes {
		m.runs[pl.run].pane(pl.pane).sync(lk, pl.r.inner())
	}
	if dr := m.dialogRun(); dr != nil && dr.confirm != nil {
		if box, ok := m.overlaySize(L.body); ok {
			dr.confirm.clamp(m.th, m.help, m.confirmKeys, box.w-4, box.h-2)
		}
	}
	m.clampHelp()
}
