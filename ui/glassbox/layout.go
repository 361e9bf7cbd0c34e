package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/glassbox-dev/glassbox/ui/cell"

	"github.com/glassbox-dev/glassbox/ui/boxlayout"
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
	layoutGrid                // a run's panes (compare mode: the run shown)
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

// layout is where everything goes at the current size: the rectangles of
// the screen's description (computeLayout), by what they hold. It is
// computed from the mode (one run or compare), the size, the focused pane
// and run and the zoom, in computeLayout alone, so View, the mouse and the
// resize handler agree on it.
type layout struct {
	mode   layoutMode
	runBar rect     // compare mode, one run shown: the runs' names, which the keys act on
	strip  rect     // compare mode from 120 columns: the comparison strip
	heads  []rect   // compare mode, runs side by side: each run's title line
	tabBar rect     // tabs: the panes' names
	body   rect     // where the panes (and dialogs) go
	main   rect     // the body with its bars: between the strip and the input
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

func (m *Model) inputLines() int {
	return min(max(m.input.LineCount(), 1), maxInputLines)
}

// screen is everything the layout is decided from.
type screen struct {
	w, h       int
	runs       int    // one, or compare mode's two
	shown      int    // the run whose panes show when one run's do
	pane       paneID // the focused pane
	zoomed     bool
	inputLines int
}

func (s screen) compare() bool { return s.runs > 1 }

// computeLayout is where everything goes now.
func (m *Model) computeLayout() layout {
	s := m.stepper
	return screen{w: m.width, h: m.height, runs: len(m.runs), shown: s.cur().id,
		pane: s.pane, zoomed: s.zoomed, inputLines: m.inputLines()}.layout()
}

// layout is the one place that decides the screen, from the mode (one run,
// or compare with its runs), the terminal's size and the zoom. It picks one
// description of the screen (a tree of boxes, ui/boxlayout) and lets
// boxlayout.Arrange set it out:
//   - below 120 columns (or too short): tabs, one pane of the run shown
//     (tabsBox);
//   - z: the focused pane fills the body; in compare mode that pane of each
//     run, side by side (columnsBox);
//   - compare mode from 160 columns: each run in a column, its compact
//     state machine over its History beside its tool calls, the anatomy
//     of its request and its payload
//     (columnsBox, columnBox);
//   - otherwise a run's panes (gridBox; compare mode: of the run
//     shown, under the comparison strip and the run bar).
func (s screen) layout() layout {
	var L layout
	if s.w < minWidth || s.h < minHeight {
		L.mode = layoutTooSmall
		return L
	}
	L.place(boxlayout.Arrange(s.screenBox(), boxlayout.Rect{W: s.w, H: s.h}))
	body := L.main
	var mode *box
	switch wide := s.w >= gridWidth && body.h >= gridHeight-4; {
	case !wide:
		L.mode, mode = layoutTabs, s.tabsBox()
	case s.compare() && (s.zoomed || s.w >= compareWidth):
		L.mode, mode = layoutCompare, s.columnsBox()
		if s.zoomed {
			L.mode = layoutZoom
		}
	case s.zoomed:
		L.mode, mode = layoutZoom, s.underRunBar(&box{Key: paneSlot(s.shown, s.pane)})
	default:
		L.mode, mode = layoutGrid, s.underRunBar(gridBox(s.shown))
	}
	L.place(boxlayout.Arrange(mode, boxlayout.Rect{X: body.x, Y: body.y, W: body.w, H: body.h}))
	return L
}

// box is one node of a screen's description.
type box = boxlayout.Box[slot]

// slot names what a rectangle of the screen holds.
type slot struct {
	kind slotKind
	run  int    // slotHead, slotPane
	pane paneID // slotPane
}

type slotKind int

const (
	slotNone   slotKind = iota
	slotMain            // everything between the strip and the input line
	slotStrip           // compare mode: the comparison strip
	slotRunBar          // compare mode, one run shown: the runs' names
	slotTabBar          // tabs: the panes' names
	slotHead            // compare mode, runs side by side: a run's title line
	slotBody            // where the panes (and dialogs) go
	slotPane            // one pane of one run
	slotInput
	slotHelp
	slotStatus
)

func paneSlot(run int, p paneID) slot { return slot{kind: slotPane, run: run, pane: p} }

// place records the rectangles of an arrangement.
func (L *layout) place(arranged []boxlayout.Placed[slot]) {
	for _, p := range arranged {
		r := rect{p.Rect.X, p.Rect.Y, p.Rect.W, p.Rect.H}
		switch p.Key.kind {
		case slotMain:
			L.main = r
		case slotStrip:
			L.strip = r
		case slotRunBar:
			L.runBar = r
		case slotTabBar:
			L.tabBar = r
		case slotHead:
			L.heads = append(L.heads, r)
		case slotBody:
			L.body = r
		case slotPane:
			L.panes = append(L.panes, placed{p.Key.run, p.Key.pane, r})
		case slotInput:
			L.input = r
		case slotHelp:
			L.help = r
		case slotStatus:
			L.status = r
		}
	}
}

// screenBox is the screen around main: in compare mode with room for it
// the comparison strip on top; the input line, the help line (from 12
// rows) and the status bar at the bottom. The input grows with its lines
// up to maxInputLines, leaving the panes six rows at least.
func (s screen) screenBox() *box {
	helpH := 0
	if s.h >= 12 {
		helpH = 1
	}
	var rows []*box
	if s.compare() && s.w >= stripWidth && s.h >= gridHeight+stripHeight {
		rows = append(rows, &box{Key: slot{kind: slotStrip}, Size: stripHeight})
	}
	return &box{Dir: boxlayout.Rows, Children: append(rows,
		&box{Key: slot{kind: slotMain}, Weight: 1},
		&box{Key: slot{kind: slotInput}, Size: min(s.inputLines, max(s.h-helpH-1-6, 1))},
		&box{Key: slot{kind: slotHelp}, Size: helpH},
		&box{Key: slot{kind: slotStatus}, Size: 1},
	)}
}

// tabsBox is the narrow screen: (compare mode: the run bar,) the tab bar
// and one pane of the run shown.
func (s screen) tabsBox() *box {
	var rows []*box
	if s.compare() {
		rows = append(rows, &box{Key: slot{kind: slotRunBar}, Size: 1})
	}
	return &box{Dir: boxlayout.Rows, Children: append(rows,
		&box{Key: slot{kind: slotTabBar}, Size: 1},
		&box{Key: slot{kind: slotBody}, Weight: 1, Dir: boxlayout.Rows, Children: []*box{
			{Key: paneSlot(s.shown, s.pane), Weight: 1},
		}},
	)}
}

// underRunBar is panes as the body; in compare mode under the run bar, which
// names the run shown.
func (s screen) underRunBar(panes *box) *box {
	var rows []*box
	if s.compare() {
		rows = append(rows, &box{Key: slot{kind: slotRunBar}, Size: 1})
	}
	panes.Weight = 1
	return &box{Dir: boxlayout.Rows, Children: append(rows,
		&box{Key: slot{kind: slotBody}, Weight: 1, Dir: boxlayout.Rows, Children: []*box{panes}},
	)}
}

// gridBox is a run's panes: History on the left; the state machine top
// right, drawn in full while the Raw payload below it keeps minPayloadH
// rows, else compact; below it, the tool calls (6 to 11 rows) over the
// anatomy of the request, beside the raw payload.
func gridBox(run int) *box {
	pane := func(p paneID) slot { return paneSlot(run, p) }
	below := []*box{{Weight: 2, Dir: boxlayout.Rows, Children: []*box{
		{Key: pane(paneTools), Weight: 1, Min: 6, Max: 11},
		{Key: pane(paneAnatomy), Weight: 1},
	}}, {Key: pane(panePayload), Weight: 3}}
	return &box{Dir: boxlayout.Columns, Children: []*box{
		{Key: pane(paneHistory), Weight: 7, Min: 40, Max: 72},
		{Weight: 13, First: []*box{
			{Dir: boxlayout.Rows, Children: []*box{
				{Key: pane(paneDiagram), Size: diagram.FullHeight + 2},
				{Weight: 1, Min: minPayloadH, Dir: boxlayout.Columns, Children: below},
			}},
			{Dir: boxlayout.Rows, Children: []*box{
				{Key: pane(paneDiagram), Size: compactDiagramH},
				{Weight: 1, Dir: boxlayout.Columns, Children: below},
			}},
		}},
	}}
}

// stripHeight is the comparison strip with its frame: a heading row and one
// row per run; stripWidth the narrowest screen it is drawn on (its optional
// columns give way before that).
const (
	stripHeight = 5
	stripWidth  = 80
)

// columnsBox sets the runs side by side, each under its title line: zoomed,
// the focused pane of each; else each run's panes (columnBox).
func (s screen) columnsBox() *box {
	cols := make([]*box, s.runs)
	for i := range cols {
		panes := columnBox(i)
		if s.zoomed {
			panes = &box{Key: paneSlot(i, s.pane)}
		}
		panes.Weight = 1
		cols[i] = &box{Weight: 1, Dir: boxlayout.Rows, Children: []*box{{Key: slot{kind: slotHead, run: i}, Size: 1}, panes}}
	}
	return &box{Key: slot{kind: slotBody}, Dir: boxlayout.Columns, Children: cols}
}

// columnBox is one run's panes in its column of compare mode: the compact
// state machine on top (a quarter of the column, at most its compact
// height), History on the left below it, beside the tool calls and the
// anatomy of the request (a fifth each, 6 to 11 rows) over the raw payload.
func columnBox(run int) *box {
	pane := func(p paneID) slot { return paneSlot(run, p) }
	return &box{Dir: boxlayout.Rows, Children: []*box{
		{Key: pane(paneDiagram), Weight: 1, Max: compactDiagramH},
		{Weight: 3, Dir: boxlayout.Columns, Children: []*box{
			{Key: pane(paneHistory), Weight: 2},
			{Weight: 3, Dir: boxlayout.Rows, Children: []*box{
				{Key: pane(paneTools), Weight: 1, Min: 6, Max: 11},
				{Key: pane(paneAnatomy), Weight: 1, Min: 6, Max: 11},
				{Key: pane(panePayload), Weight: 3},
			}},
		}},
	}}
}

// handleResize records the new size and lays the panes out again.
func (m *Model) handleResize(msg tea.WindowSizeMsg) tea.Cmd {
	m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
	if !m.ready && !m.lessons.sent && m.computeLayout().mode == layoutTabs {
		// The first screen in tabs shows History, where the welcome and
		// the lesson to send are (compare mode focuses the Raw payload
		// where it sits beside them).
		m.stepper.pane = paneHistory
	}
	m.ready = true
	m.syncSizes()
	return nil
}

// fitPlaceholder sets the input's placeholder, cut with "…" where the
// input line is narrower than it (the textarea would cut it mid-word and
// say nothing).
func (m *Model) fitPlaceholder() {
	p := m.lessons.placeholder()
	if w := m.input.Width() - 1; w > 0 && cell.Width(p) > w {
		p = cell.Truncate(p, w, "…")
	}
	m.input.Placeholder = p
}

// syncSizes hands each sub-model its size and clamps every scroll to its
// content. Called after anything that can change the layout or the content:
// a resize, the zoom, the input growing a line, a step. View only reads.
func (m *Model) syncSizes() {
	m.input.SetWidth(max(m.width, 1))
	m.input.SetHeight(m.inputLines())
	m.fitPlaceholder()
	m.help.Width = m.width
	L := m.computeLayout()
	for _, r := range m.runs {
		// A pane never placed yet gets the body's size, so that its
		// caches have a width; one placed before keeps the size it had.
		for p, c := range r.panes {
			if s, ok := c.(sizer); ok && m.ready && !r.sized[p] {
				s.sync(m.look(), rect{w: max(m.width-2, 1), h: max(L.body.h-2, 1)})
				r.sized[p] = true
			}
		}
	}
	m.clampScrolls()
}

// clampScrolls keeps every scroll offset inside its content, so the panes
// draw what the offset says and ↑ moves at once after a long ↓; the dialog
// on top is told the box it is drawn in (fitter).
func (m *Model) clampScrolls() {
	L := m.computeLayout()
	lk := m.look()
	for _, pl := range L.panes {
		if s, ok := m.runs[pl.run].panes[pl.pane].(sizer); ok {
			s.sync(lk, pl.r.inner())
		}
	}
	if f, ok := m.top().(fitter); ok {
		box, ok := overlaySize(m.top(), L.body)
		if !ok {
			box = rect{w: 4, h: 2} // no box: nothing to fit
		}
		f.fit(box.w-4, box.h-2)
	}
}
