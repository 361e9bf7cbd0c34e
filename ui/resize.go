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
	layoutGrid                // a run's four panes (compare mode: the run shown)
	layoutCompare             // compare mode, wide: the runs side by side
	layoutZoom                // one pane; compare mode: that pane of each run, side by side
)

// compareWidth is the width from which compare mode sets the runs side by
// side; from gridWidth it shows one run's panes under the comparison strip.
const compareWidth = 160

// Pane heights the layout works with: the compact state machine (four rows
// of states, the edge taken, what happens now) and the least a Raw payload
// pane gets beside the full drawing before the drawing gives way to the
// compact one (a payload's summary takes four or five of them).
const (
	compactDiagramH = 8
	minPayloadH     = 17
)

// placed is one pane of one run at a rectangle of the screen.
type placed struct {
	run  int
	pane paneID
	r    rect
}

// layout is where everything goes at the current size. It is computed from
// the mode (one run or compare), the size, the focused pane and run and the
// zoom, in computeLayout alone, so View, the mouse and the resize handler
// agree on it.
type layout struct {
	mode   layoutMode
	runBar rect     // compare mode, one run shown: the runs' names, which the keys act on
	strip  rect     // compare mode from 120 columns: the comparison strip
	heads  []rect   // compare mode, runs side by side: each run's title line
	tabBar rect     // tabs: the panes' names
	body   rect     // where the panes (and dialogs) go
	panes  []placed // in drawing order
	input  rect
	help   rect
	status rect
}

// paneRect is where pane p is drawn (the first one placed), or an empty
// rect.
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

// computeLayout is the one place that decides the grid, from the mode (one
// run, or compare with its runs), the terminal's size and the zoom:
//   - below 120 columns (or too short): tabs, one pane of the run shown;
//   - z: the focused pane fills the body; in compare mode that pane of
//     each run, side by side;
//   - compare mode from 160 columns: each run in a column, its compact
//     state machine over its History beside its tool calls and payload;
//   - otherwise a run's four panes (compare mode: of the run shown, under
//     the comparison strip and the run bar).
func (m Model) computeLayout() layout {
	var L layout
	W, H := m.width, m.height
	if W < minWidth || H < minHeight {
		L.mode = layoutTooSmall
		return L
	}
	top, bottom := m.chrome(&L)
	body := rect{0, top, W, bottom - top}
	wide := W >= gridWidth && body.h >= gridHeight-4
	switch {
	case !wide:
		return m.tabsLayout(L, body)
	case m.compare() && (m.zoomed || W >= compareWidth):
		return m.columnsLayout(L, body)
	case m.compare():
		L.runBar = rect{0, body.y, W, 1}
		body.y, body.h = body.y+1, body.h-1
	}
	L.body = body
	if m.zoomed {
		L.mode = layoutZoom
		L.panes = []placed{{m.cur().id, m.pane, body}}
		return L
	}
	L.mode = layoutGrid
	L.panes = gridPanes(m.cur().id, body)
	return L
}

// chrome places the status bar, the help line, the input and, in compare
// mode with room for it, the comparison strip; it returns the rows left
// for the body.
func (m Model) chrome(L *layout) (top, bottom int) {
	W, H := m.width, m.height
	helpH := 0
	if H >= 12 {
		helpH = 1
	}
	inputH := min(m.inputLines(), max(H-helpH-1-6, 1))
	L.status = rect{0, H - 1, W, 1}
	L.help = rect{0, H - 1 - helpH, W, helpH}
	L.input = rect{0, H - 1 - helpH - inputH, W, inputH}
	if m.compare() && W >= gridWidth && H >= gridHeight+stripHeight {
		L.strip = rect{0, 0, W, stripHeight}
		top = stripHeight
	}
	return top, L.input.y
}

// tabsLayout is the narrow screen: (compare mode: the run bar,) the tab bar
// and one pane of the run shown.
func (m Model) tabsLayout(L layout, body rect) layout {
	L.mode = layoutTabs
	if m.compare() {
		L.runBar = rect{0, body.y, body.w, 1}
		body.y, body.h = body.y+1, body.h-1
	}
	L.tabBar = rect{0, body.y, body.w, 1}
	body.y, body.h = body.y+1, body.h-1
	L.body = body
	L.panes = []placed{{m.cur().id, m.pane, body}}
	return L
}

// gridPanes are a run's four panes in b: History on the left; the state
// machine top right, drawn in full when the Raw payload below it still gets
// minPayloadH rows, else compact; tool calls and the raw payload side by
// side below it.
func gridPanes(run int, b rect) []placed {
	histW := min(max(b.w*7/20, 40), 72)
	rightW := b.w - histW
	diagH := compactDiagramH
	if b.h-(diagram.FullHeight+2) >= minPayloadH {
		diagH = diagram.FullHeight + 2
	}
	toolsW := rightW * 2 / 5
	return []placed{
		{run, paneHistory, rect{b.x, b.y, histW, b.h}},
		{run, paneDiagram, rect{b.x + histW, b.y, rightW, diagH}},
		{run, paneTools, rect{b.x + histW, b.y + diagH, toolsW, b.h - diagH}},
		{run, panePayload, rect{b.x + histW + toolsW, b.y + diagH, rightW - toolsW, b.h - diagH}},
	}
}

// stripHeight is the comparison strip with its frame: a heading row and one
// row per run.
const stripHeight = 5

// columnsLayout sets the runs side by side in body, each under its title
// line: zoomed, the focused pane of each; else each run's compact state
// machine over its History (left) beside its tool calls and raw payload.
func (m Model) columnsLayout(L layout, body rect) layout {
	L.mode = layoutCompare
	L.body = body
	n := len(m.runs)
	for i := range m.runs {
		x := body.x + body.w*i/n
		w := body.x + body.w*(i+1)/n - x
		L.heads = append(L.heads, rect{x, body.y, w, 1})
		col := rect{x, body.y + 1, w, body.h - 1}
		if m.zoomed {
			L.mode = layoutZoom
			L.panes = append(L.panes, placed{i, m.pane, col})
			continue
		}
		L.panes = append(L.panes, columnPanes(i, col)...)
	}
	return L
}

// columnPanes are one run's panes in its column c of compare mode.
func columnPanes(run int, c rect) []placed {
	diagH := min(compactDiagramH, c.h/4)
	histW := c.w * 2 / 5
	rest := rect{c.x + histW, c.y + diagH, c.w - histW, c.h - diagH}
	toolsH := min(max(rest.h/4, 6), 11)
	return []placed{
		{run, paneDiagram, rect{c.x, c.y, c.w, diagH}},
		{run, paneHistory, rect{c.x, c.y + diagH, histW, c.h - diagH}},
		{run, paneTools, rect{rest.x, rest.y, rest.w, toolsH}},
		{run, panePayload, rect{rest.x, rest.y + toolsH, rest.w, rest.h - toolsH}},
	}
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
			dr.confirm.clamp(m.th, m.cfg.Lang, m.help, m.confirmKeys, box.w-4, box.h-2)
		}
	}
	m.clampHelp()
}
