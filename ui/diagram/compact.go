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

// chooseGrid picks the most readable list that fits with as much of the
// footer as possible. Full names in one column come first, as long as the
// last transition and a line of explanation fit under them; then short
// names in as few columns as the height needs. footer(g) is how many lines
// the whole footer takes with that grid's names.
func chooseGrid(width, height int, footer func(grid) int) grid {
	full := grid{cols: 1}
	maxCols := max(1, (width+1)/grid{short: true}.cellWidth())
	var fulls, shorts []grid
	if full.cellWidth()-1 <= width {
		fulls = append(fulls, full)
	}
	for c := 1; c <= maxCols; c++ {
		shorts = append(shorts, grid{short: true, cols: c})
	}
	const whole = -1
	tries := []struct {
		grids []grid
		lines int // footer lines wanted
	}{
		{fulls, whole}, {fulls, 2}, {shorts, whole}, {shorts, 2},
		{fulls, 1}, {shorts, 1}, {fulls, 0}, {shorts, 0},
	}
	for _, try := range tries {
		for _, g := range try.grids {
			need := try.lines
			if need == whole {
				need = footer(g)
			}
			if g.rows()+need <= height {
				return g
			}
		}
	}
	return grid{short: true, cols: maxCols}
}

// renderCompact draws the states as a list (or a grid of short names) with
// the footer underneath. When even the list does not fit, it shows the rows
// around the current state.
func renderCompact(th theme.Theme, v View, width, height int) []string {
	footerOf := func(g grid) (last, now []string) {
		return footer(th, v, width, true, g.name)
	}
	g := chooseGrid(width, height, func(g grid) int {
		last, now := footerOf(g)
		return len(last) + len(now)
	})
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

	last, now := footerOf(g)
	room := height - rows
	last = clip(last, min(max(1, room-len(now)), room), width)
	now = clip(now, room-len(last), width)
	lines := append(list, last...)
	return append(lines, now...)
}

// entry is one state in the list: breakpoint marker, current or selected
// marker, then the name, padded to cellW unless it ends its row.
func entry(th theme.Theme, v View, s loop.State, name string, cellW int, endOfRow bool) string {
	bp := " "
	if v.Breakpoints[s] {
		bp = th.Breakpoint.Render(string(markBreakpoint))
	}
	var body string
	switch {
	case s == v.Current:
		body = th.Current.Render(string(markCurrent) + name + " ")
	case s == v.Selected:
		body = th.Selected.Render(string(markSelected) + name)
	default:
		body = " " + th.Bold.Render(name)
	}
	if endOfRow {
		return bp + body
	}
	used := 2 + len(name)
	if s == v.Current {
		used++
	}
	return bp + body + strings.Repeat(" ", max(0, cellW-used))
}
