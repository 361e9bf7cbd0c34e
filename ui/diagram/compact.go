package diagram

import (
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// shortName is the label the compact layout uses when full names do not fit.
func shortName(s loop.State) string {
	switch s {
	case loop.WaitingForEvent:
		return "WAITING"
	case loop.AssemblingContext:
		return "CONTEXT"
	case loop.AwaitingLLMResponse:
		return "LLM"
	case loop.CheckingPolicy:
		return "POLICY"
	case loop.AwaitingUserConfirmation:
		return "CONFIRM"
	case loop.ExecutingTool:
		return "TOOL"
	case loop.RecordingResult:
		return "RESULT"
	case loop.RecordingError:
		return "ERROR"
	case loop.DeliveringOutput:
		return "OUTPUT"
	case loop.Halted:
		return "HALTED"
	}
	return string(s)
}

// grid is a way to lay the state list out: names full or short, in cols
// columns (filled top to bottom, in Order).
type grid struct {
	short bool
	cols  int
}

func (g grid) rows() int { return (len(loop.States) + g.cols - 1) / g.cols }

func (g grid) name(s loop.State) string {
	if g.short {
		return shortName(s)
	}
	return string(s)
}

// cellWidth is one column: two marker cells, the longest name, a gap.
func (g grid) cellWidth() int {
	w := 0
	for _, s := range Order() {
		w = max(w, len(g.name(s)))
	}
	return 2 + w + 1
}

// chooseGrid picks the layout of the state list for a pane of width×height
// cells. It depends on the size alone — never on the state, the last edge
// or the footer's text — so every state keeps its cell from step to step,
// and two runs in panes of one size (compare mode) show each state in the
// same place. Full names come first, in as few columns as the height needs,
// as long as the line of the edge just taken and two lines of explanation
// fit under them (one line cuts most explanations where they say what
// happens next); then short names; then less footer.
func chooseGrid(width, height int) grid {
	maxCols := max(1, (width+1)/grid{short: true}.cellWidth())
	fits := func(short bool, footer int) (grid, bool) {
		for c := 1; c <= maxCols; c++ {
			g := grid{short: short, cols: c}
			if g.width() <= width && g.rows()+footer <= height {
				return g, true
			}
		}
		return grid{}, false
	}
	for _, short := range []bool{false, true} {
		for _, footer := range []int{3, 2} {
			if g, ok := fits(short, footer); ok {
				return g
			}
		}
	}
	for _, footer := range []int{1, 0} {
		for _, short := range []bool{false, true} {
			if g, ok := fits(short, footer); ok {
				return g
			}
		}
	}
	return grid{short: true, cols: maxCols}
}

// width is the cells the list takes: every column but the last is a whole
// cell wide; the last needs no gap after it.
func (g grid) width() int { return g.cols*g.cellWidth() - 1 }

// renderCompact draws the states as a list (or a grid of short names) with
// the footer underneath: the edge just taken on the line right under the
// list, then what is happening now. When even the list does not fit, it
// shows the rows around the current state.
func renderCompact(th theme.Theme, v View, width, height int) []string {
	g := chooseGrid(width, height)
	order := Order()
	rows := g.rows()

	cellW := g.cellWidth()
	list := make([]string, rows)
	currentRow := 0
	for i, s := range order {
		r := i % rows
		if s == v.Current {
			currentRow = r
		}
		endOfRow := i+rows >= len(order)
		list[r] += entry(th, v, s, g.name(s), cellW, endOfRow)
	}

	if rows > height { // only a window of the list fits
		top := min(max(0, currentRow-height/2), rows-height)
		return list[top : top+height]
	}

	last, now := footer(th, v, width, true, g.name)
	room := height - rows
	last = clip(last, min(max(1, room-len(now)), room), width)
	now = clip(now, room-len(last), width)
	lines := append(list, last...)
	return append(lines, now...)
}

// entry is one state in the list: breakpoint marker, a marker for the
// current state, the selected one or the state the edge just taken came
// from, then the name, padded to cellW unless it ends its row. The name
// starts in the same cell whatever the markers.
func entry(th theme.Theme, v View, s loop.State, name string, cellW int, endOfRow bool) string {
	bp := " "
	if mark := breakMark(v.Breakpoints.States[s]); mark != 0 {
		bp = th.Breakpoint.Render(string(mark))
	}
	var body string
	used := 2 + len(name)
	switch {
	case s == v.Current:
		body = th.Current.Render(string(markCurrent) + name + " ")
		used++
	case s == v.Selected:
		body = th.Selected.Render(string(markSelected) + name)
	case s == v.LastFrom && v.LastEdge != "":
		body = th.Edge.Render(string(markFrom) + name)
	default:
		body = " " + th.Bold.Render(name)
	}
	if endOfRow {
		return bp + body
	}
	return bp + body + strings.Repeat(" ", max(0, cellW-used))
}
