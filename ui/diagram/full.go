package diagram

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// paint says how one cell of the picture is drawn.
type paint uint8

const (
	paintBlank      paint = iota // empty space
	paintLine                    // box-drawing lines and arrowheads
	paintLabel                   // an edge's name written along its arrow
	paintName                    // a state's name
	paintCurrent                 // the current state (marker, name, one cell after)
	paintSelected                // the selected state
	paintEdge                    // the label of the edge just taken
	paintBreakpoint              // the ● and ◐ markers
)

// canvas is the picture as a grid of runes with a paint for every cell.
type canvas struct {
	cells  [][]rune
	paints [][]paint
}

// pictureRows returns the picture's rows, each padded to the picture's width.
func pictureRows() [][]rune {
	raw := strings.Split(strings.Trim(picture, "\n"), "\n")
	rows := make([][]rune, len(raw))
	width := 0
	for i, r := range raw {
		rows[i] = []rune(r)
		width = max(width, len(rows[i]))
	}
	for i := range rows {
		for len(rows[i]) < width {
			rows[i] = append(rows[i], ' ')
		}
	}
	return rows
}

// place is where a word sits in the picture: row, first column, length.
type place struct{ row, col, n int }

// findWord finds word on row as a whole word (not part of a longer name)
// and returns its column.
func findWord(line, word string) (int, bool) {
	isWordRune := func(r rune) bool {
		return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	for from := 0; ; {
		i := strings.Index(line[from:], word)
		if i < 0 {
			return 0, false
		}
		start, end := from+i, from+i+len(word)
		before, _ := utf8.DecodeLastRuneInString(line[:start])
		after, _ := utf8.DecodeRuneInString(line[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return utf8.RuneCountInString(line[:start]), true
		}
		from = end
	}
}

// statePlaces finds every state's name in the picture.
func statePlaces(rows [][]rune) map[loop.State]place {
	text := make([]string, len(rows))
	for r, row := range rows {
		text[r] = string(row)
	}
	places := make(map[loop.State]place, len(loop.States))
	for _, s := range loop.States {
		for r, line := range text {
			if c, ok := findWord(line, string(s)); ok {
				places[s] = place{r, c, len([]rune(string(s)))}
				break
			}
		}
	}
	return places
}

// labelPlace finds the label of arc a in the picture.
func labelPlace(rows [][]rune, a loop.Arc) (place, bool) {
	r := labelRow(a)
	if r < 0 || r >= len(rows) {
		return place{}, false
	}
	c, ok := findWord(string(rows[r]), string(a.Edge))
	return place{r, c, len([]rune(string(a.Edge)))}, ok
}

// newCanvas paints the picture for v: lines, labels and names first, then
// the markers of breakpoints (on states and before edges' labels), the
// selection and the current state, and the label of the edge just taken.
func newCanvas(v View) canvas {
	rows := pictureRows()
	cv := canvas{cells: rows, paints: make([][]paint, len(rows))}
	for r, row := range rows {
		cv.paints[r] = make([]paint, len(row))
		for c, ch := range row {
			cv.paints[r][c] = basePaint(ch)
		}
	}
	for s, p := range statePlaces(rows) {
		cv.markState(v, s, p)
	}
	for _, a := range loop.Table {
		if mark := breakMark(v.Breakpoints.Edges[a.Edge]); mark != 0 {
			if p, ok := labelPlace(rows, a); ok {
				// The cell before a label is a line or a blank.
				cv.cells[p.row][p.col-1] = mark
				cv.paints[p.row][p.col-1] = paintBreakpoint
			}
		}
	}
	if v.LastEdge != "" {
		for _, a := range loop.Table {
			if a.From != v.LastFrom || a.Edge != v.LastEdge {
				continue
			}
			if p, ok := labelPlace(rows, a); ok {
				cv.fill(p.row, p.col, p.n, paintEdge)
			}
		}
	}
	return cv
}

// basePaint is how a cell of the bare picture is painted: blank, a letter
// of a label (names are painted over later), or a line.
func basePaint(ch rune) paint {
	switch {
	case ch == ' ':
		return paintBlank
	case ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'):
		return paintLabel
	}
	return paintLine
}

// markState paints state s's name at p, with its markers: current or
// selected in the cell before it, a breakpoint in the cell before that.
func (cv canvas) markState(v View, s loop.State, p place) {
	mark := ' '
	name := paintName
	switch {
	case s == v.Current:
		mark, name = markCurrent, paintCurrent
	case s == v.Selected:
		mark, name = markSelected, paintSelected
	}
	cv.fill(p.row, p.col, p.n, name)
	cv.cells[p.row][p.col-1] = mark
	cv.paints[p.row][p.col-1] = name
	if name == paintCurrent {
		cv.paints[p.row][p.col+p.n] = paintCurrent // one blank cell: a lit block
	}
	if mark := breakMark(v.Breakpoints.States[s]); mark != 0 {
		cv.cells[p.row][p.col-2] = mark
		cv.paints[p.row][p.col-2] = paintBreakpoint
	}
}

func (cv canvas) fill(row, col, n int, p paint) {
	for c := col; c < col+n && c < len(cv.paints[row]); c++ {
		cv.paints[row][c] = p
	}
}

// style maps a paint to the theme.
func (p paint) style(th theme.Theme) lipgloss.Style {
	switch p {
	case paintLine:
		return th.Muted
	case paintName:
		return th.Bold
	case paintCurrent:
		return th.Current
	case paintSelected:
		return th.Selected
	case paintEdge:
		return th.Edge
	case paintBreakpoint:
		return th.Breakpoint
	}
	return lipgloss.NewStyle()
}

// lines renders each row of the canvas, one style run at a time, indented
// by left cells.
func (cv canvas) lines(th theme.Theme, left int) []string {
	var brushes [paintBreakpoint + 1]theme.Brush
	for p := range brushes {
		brushes[p] = theme.NewBrush(paint(p).style(th))
	}
	out := make([]string, len(cv.cells))
	indent := strings.Repeat(" ", left)
	for r, row := range cv.cells {
		var b strings.Builder
		b.WriteString(indent)
		for start := 0; start < len(row); {
			end := start
			for end < len(row) && cv.paints[r][end] == cv.paints[r][start] {
				end++
			}
			run := string(row[start:end])
			if p := cv.paints[r][start]; p == paintBlank {
				b.WriteString(run)
			} else {
				b.WriteString(brushes[p].Paint(run))
			}
			start = end
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// renderFull draws the picture centred horizontally, then the footer.
func renderFull(th theme.Theme, v View, width, height int) []string {
	cv := newCanvas(v)
	pictureWidth := len(cv.cells[0])
	lines := cv.lines(th, (width-pictureWidth)/2)

	last, now := footer(th, v, width, false, func(s loop.State) string { return string(s) })
	room := height - len(lines)
	if room > len(last)+len(now) {
		lines = append(lines, "") // a blank line before the footer, when there is room
		room--
	}
	last = clip(last, max(1, room-len(now)), width)
	now = clip(now, room-len(last), width)
	lines = append(lines, last...)
	return append(lines, now...)
}
