package diagram

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// plainTheme is the theme the goldens use: with the ASCII profile, colours
// vanish anyway, and NO_COLOR's attributes are what a monochrome projector
// shows.
func plainTheme() theme.Theme { return theme.New(true) }

func TestRenderGolden(t *testing.T) {
	views := map[string]View{
		"idle": {},
		"allow": {
			Current: loop.ExecutingTool, LastFrom: loop.CheckingPolicy, LastEdge: loop.EdgeAllow,
			Breakpoints: states(loop.ExecutingTool, loop.AwaitingLLMResponse),
			Selected:    loop.AwaitingLLMResponse,
		},
		"observed_from_error": {
			Current: loop.AssemblingContext, LastFrom: loop.RecordingError, LastEdge: loop.EdgeObserved,
			Breakpoints: states(loop.CheckingPolicy),
			Selected:    loop.RecordingError,
		},
		"user_approval": {
			Current: loop.ExecutingTool, LastFrom: loop.AwaitingUserConfirmation, LastEdge: loop.EdgeUserApproval,
		},
	}
	sizes := []struct{ w, h int }{{60, 20}, {80, 22}, {56, 20}, {40, 12}, {20, 6}, {100, 5}}
	for name, v := range views {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", name, sz.w, sz.h), func(t *testing.T) {
				out := Render(plainTheme(), v, sz.w, sz.h)
				checkBounds(t, out, sz.w, sz.h)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// checkBounds fails unless out is exactly width×height cells.
func checkBounds(t *testing.T, out string, width, height int) {
	t.Helper()
	if width <= 0 || height <= 0 {
		if out != "" {
			t.Fatalf("%dx%d: want empty output, got %q", width, height, out)
		}
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) != height {
		t.Fatalf("%dx%d: got %d lines", width, height, len(lines))
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w != width {
			t.Fatalf("%dx%d: line %d is %d cells wide: %q", width, height, i, w, l)
		}
	}
}

// TestRenderMarksEveryStateCurrent checks, for each state and layout, that
// the ▶ marker sits right before that state's name and nowhere else, and
// that the explanation of the state is shown.
func TestRenderMarksEveryStateCurrent(t *testing.T) {
	sizes := []struct {
		name string
		w, h int
		grid grid
	}{
		{"full", 80, 24, grid{cols: 1}},
		{"list", 40, 14, grid{cols: 1}},
		{"short", 24, 8, grid{short: true}},
	}
	for _, sz := range sizes {
		for _, s := range loop.States {
			t.Run(sz.name+"/"+string(s), func(t *testing.T) {
				out := Render(plainTheme(), View{Current: s}, sz.w, sz.h)
				checkBounds(t, out, sz.w, sz.h)
				if n := strings.Count(out, string(markCurrent)+sz.grid.name(s)+" "); n != 1 {
					t.Errorf("want ▶%s once, found %d times:\n%s", sz.grid.name(s), n, out)
				}
				for _, other := range loop.States {
					if other != s && strings.Contains(out, string(markCurrent)+sz.grid.name(other)+" ") {
						t.Errorf("%s is marked current too:\n%s", other, out)
					}
				}
				firstWords := strings.Join(strings.Fields(Explain(lang.EN, s))[:2], " ")
				if !strings.Contains(out, firstWords) {
					t.Errorf("explanation %q missing:\n%s", firstWords, out)
				}
			})
		}
	}
}

func TestRenderMarkers(t *testing.T) {
	v := View{
		Current:     loop.CheckingPolicy,
		Breakpoints: states(loop.ExecutingTool, loop.CheckingPolicy),
		Selected:    loop.Halted,
	}
	tests := []struct {
		name string
		w, h int
		want []string
	}{
		{"full", 70, 22, []string{"●▶CHECKING_POLICY", "● EXECUTING_TOOL", "›HALTED"}},
		{"list", 40, 14, []string{"●▶CHECKING_POLICY", "● EXECUTING_TOOL", " ›HALTED"}},
		{"short", 24, 8, []string{"●▶POLICY", "● TOOL", " ›HALTED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Render(plainTheme(), v, tt.w, tt.h)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
		})
	}
}

// TestPicture checks the hand-drawn picture against the rules the code
// relies on, so an edit to it cannot silently break the diagram.
func TestPicture(t *testing.T) {
	rows := pictureRows()
	if got := len(rows[0]); got != FullWidth {
		t.Errorf("picture is %d wide, FullWidth says %d", got, FullWidth)
	}
	if got := len(rows) + 3; got != FullHeight {
		t.Errorf("picture is %d rows + 3 footer lines, FullHeight says %d", len(rows), FullHeight)
	}
	inName := checkStateNames(t, rows)
	for _, a := range loop.Table {
		p, ok := labelPlace(rows, a)
		if !ok {
			t.Errorf("arc %s --%s--> %s: label not on row %d", a.From, a.Edge, a.To, labelRow(a))
			continue
		}
		// An edge's breakpoint marker takes the cell before its label.
		if before := rows[p.row][p.col-1]; before != ' ' && before != '─' {
			t.Errorf("arc %s --%s--> %s: the cell before the label is %q, not a line or a blank", a.From, a.Edge, a.To, before)
		}
	}
	checkArrowheads(t, rows, inName)
}

// checkStateNames checks that every state's name appears once, with blank
// cells for its markers, and returns the cells the names take.
func checkStateNames(t *testing.T, rows [][]rune) map[[2]int]bool {
	t.Helper()
	places := statePlaces(rows)
	inName := map[[2]int]bool{}
	for _, s := range loop.States {
		p, ok := places[s]
		if !ok {
			t.Fatalf("state %s is not in the picture", s)
		}
		n := 0
		for _, row := range rows {
			n += strings.Count(string(row), string(s))
		}
		if n != 1 {
			t.Errorf("state %s appears %d times", s, n)
		}
		if p.col < 2 || rows[p.row][p.col-1] != ' ' || rows[p.row][p.col-2] != ' ' {
			t.Errorf("state %s: the two cells before the name must be blank", s)
		}
		if end := p.col + p.n; end >= len(rows[p.row]) || rows[p.row][end] != ' ' {
			t.Errorf("state %s: the cell after the name must be blank", s)
		}
		for c := p.col; c < p.col+p.n; c++ {
			inName[[2]int{p.row, c}] = true
		}
	}
	return inName
}

// checkArrowheads checks that every arrowhead points at a state's name.
func checkArrowheads(t *testing.T, rows [][]rune, inName map[[2]int]bool) {
	t.Helper()
	offsets := map[rune][2]int{'▼': {1, 0}, '▲': {-1, 0}, '▶': {0, 3}, '◀': {0, -2}}
	for r, row := range rows {
		for c, ch := range row {
			d, ok := offsets[ch]
			if ok && !inName[[2]int{r + d[0], c + d[1]}] {
				t.Errorf("arrowhead %c at row %d col %d points at no state", ch, r, c)
			}
		}
	}
}

func TestEdgeLabelHighlighted(t *testing.T) {
	for _, a := range loop.Table {
		t.Run(string(a.From)+"/"+string(a.Edge), func(t *testing.T) {
			cv := newCanvas(View{Current: a.To, LastFrom: a.From, LastEdge: a.Edge})
			p, _ := labelPlace(cv.cells, a)
			for c := p.col; c < p.col+p.n; c++ {
				if cv.paints[p.row][c] != paintEdge {
					t.Fatalf("label cell %d of %s not painted as the edge taken", c, a.Edge)
				}
			}
			edgeCells := 0
			for _, row := range cv.paints {
				for _, pt := range row {
					if pt == paintEdge {
						edgeCells++
					}
				}
			}
			if edgeCells != p.n {
				t.Errorf("%d cells painted as the edge taken, want %d", edgeCells, p.n)
			}
		})
	}
}

func TestOrder(t *testing.T) {
	got := Order()
	if len(got) != len(loop.States) {
		t.Fatalf("Order has %d states, want %d", len(got), len(loop.States))
	}
	seen := map[loop.State]bool{}
	for _, s := range got {
		if seen[s] {
			t.Errorf("%s twice", s)
		}
		seen[s] = true
	}
	for _, s := range loop.States {
		if !seen[s] {
			t.Errorf("%s missing", s)
		}
	}
	got[0] = "changed"
	if Order()[0] != loop.WaitingForEvent {
		t.Error("Order returns a shared slice")
	}
}

// TestRenderAnySize sweeps sizes and odd inputs: no panic, exact bounds.
func TestRenderAnySize(t *testing.T) {
	views := []View{
		{},
		{Current: loop.AwaitingUserConfirmation, LastFrom: loop.CheckingPolicy, LastEdge: loop.EdgeConfirmRequired,
			Breakpoints: states(loop.AwaitingUserConfirmation), Selected: loop.RecordingError},
		{Current: "BOGUS", LastFrom: "ELSEWHERE", LastEdge: "teleport", Selected: "NOPE",
			Breakpoints: states("X")},
		{Current: loop.Halted, LastEdge: loop.EdgeLLMFailure},
	}
	for _, v := range views {
		for w := 0; w <= 100; w++ {
			for h := 0; h <= 40; h++ {
				checkBounds(t, Render(theme.New(false), v, w, h), w, h)
				if t.Failed() {
					return
				}
			}
		}
	}
	checkBounds(t, Render(plainTheme(), views[1], 1000, 300), 1000, 300)
	checkBounds(t, Render(plainTheme(), views[1], -5, -5), -5, -5)
}

// TestRenderInColour checks the bounds hold with real escape codes, and
// that the current state is painted.
func TestRenderInColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	th := theme.New(false)
	v := View{Current: loop.CheckingPolicy, LastFrom: loop.AwaitingLLMResponse, LastEdge: loop.EdgeToolCall,
		Breakpoints: states(loop.ExecutingTool), Selected: loop.Halted}
	for _, sz := range []struct{ w, h int }{{80, 24}, {56, 20}, {40, 14}, {20, 6}, {3, 2}} {
		out := Render(th, v, sz.w, sz.h)
		checkBounds(t, out, sz.w, sz.h)
		if sz.w >= 20 && !strings.Contains(out, th.Current.Render(string(markCurrent)+"CHECKING_POLICY"+" ")) &&
			!strings.Contains(out, th.Current.Render(string(markCurrent)+"POLICY"+" ")) {
			t.Errorf("%dx%d: current state not painted with theme.Current:\n%q", sz.w, sz.h, out)
		}
	}
}

func BenchmarkRenderFull(b *testing.B) {
	v := View{Current: loop.ExecutingTool, LastFrom: loop.CheckingPolicy, LastEdge: loop.EdgeAllow}
	th := theme.New(false)
	for b.Loop() {
		Render(th, v, 80, 24)
	}
}

// states marks a breakpoint on each of ss, as `b` sets one.
func states(ss ...loop.State) breakpoint.Marks {
	m := breakpoint.Marks{States: map[loop.State]breakpoint.Mark{}}
	for _, s := range ss {
		m.States[s] = breakpoint.Always
	}
	return m
}

// TestBreakpointMarks: a breakpoint that names a state or an edge and
// nothing else is ● before the state's name or the edge's label; one with
// more conditions is ◐. The compact list marks the states.
func TestBreakpointMarks(t *testing.T) {
	v := View{Current: loop.AwaitingLLMResponse, Breakpoints: breakpoint.Marks{
		States: map[loop.State]breakpoint.Mark{loop.CheckingPolicy: breakpoint.If, loop.Halted: breakpoint.Always},
		Edges:  map[loop.Edge]breakpoint.Mark{loop.EdgeToolCall: breakpoint.Always, loop.EdgeDeny: breakpoint.If, loop.EdgeObserved: breakpoint.Always},
	}}
	full := Render(plainTheme(), v, 60, 20)
	for _, want := range []string{"▼●tool_call", "CHECKING_POLICY ◐deny─", "─▶● HALTED", "╰─●observed", "◐ CHECKING_POLICY"} {
		if !strings.Contains(full, want) {
			t.Errorf("the drawing lacks %q:\n%s", want, full)
		}
	}
	golden.RequireEqual(t, []byte(full))
	compact := Render(plainTheme(), v, 40, 12)
	for _, want := range []string{"◐ CHECKING_POLICY", "● HALTED"} {
		if !strings.Contains(compact, want) {
			t.Errorf("the list lacks %q:\n%s", want, compact)
		}
	}
}
