package diagram

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// compactViews are the views a compact diagram goes through: before the
// first step, after every arc of the state machine, and with breakpoints
// and the selection on.
func compactViews() []View {
	views := []View{{}, {Breakpoints: states(loop.Halted, loop.WaitingForEvent), Selected: loop.RecordingError}}
	for _, a := range loop.Table {
		views = append(views, View{Current: a.To, LastFrom: a.From, LastEdge: a.Edge})
		views = append(views, View{Current: a.To, LastFrom: a.From, LastEdge: a.Edge, Selected: a.From,
			Breakpoints: states(a.To, a.From)})
	}
	return views
}

// places finds the cell (line, column) of every state's name in the list
// part of a compact rendering.
func places(t *testing.T, out string, g grid) map[loop.State][2]int {
	t.Helper()
	lines := strings.Split(out, "\n")
	got := map[loop.State][2]int{}
	for r := 0; r < g.rows() && r < len(lines); r++ {
		for _, s := range loop.States {
			if c, ok := findWord(lines[r], g.name(s)); ok {
				got[s] = [2]int{r, c}
			}
		}
	}
	return got
}

// Every state has one cell in a pane of a given size: the same before the
// first step and after any edge, with any breakpoints or selection, so two
// runs side by side (compare mode) show each state in the same place and a
// learner's eye does not chase it from step to step.
func TestCompactPlacesAreFixed(t *testing.T) {
	views := compactViews()
	// From 14 rows every width has its final grid (more rows only lengthen
	// the footer), so the sweep stops there.
	for w := 8; w <= FullWidth+30; w++ {
		for h := 1; h <= 14; h++ {
			if w >= FullWidth && h >= FullHeight {
				continue // the full picture: its places are drawn by hand
			}
			g := chooseGrid(w, h)
			if g.rows() > h || g.width() > w {
				continue // not even the list fits: a window around the current state, names cut
			}
			want := places(t, Render(plainTheme(), views[0], w, h), g)
			if len(want) != len(loop.States) {
				t.Fatalf("%dx%d: %d of %d states found in the list:\n%s", w, h, len(want), len(loop.States), Render(plainTheme(), views[0], w, h))
			}
			for i, v := range views[1:] {
				if i%2 == 0 && w%4 != 0 {
					continue // the variants with breakpoints and a selection: every fourth width
				}
				out := Render(plainTheme(), v, w, h)
				got := places(t, out, g)
				for _, s := range loop.States {
					if got[s] != want[s] {
						t.Fatalf("%dx%d after %s─%s─▶: %s is at %v, before the first step at %v:\n%s", w, h, v.LastFrom, v.LastEdge, s, got[s], want[s], out)
					}
				}
			}
		}
	}
}

// The compact list marks the current state and the edge just taken: ▶ on
// the state the engine is in, ○ on the one the edge left, and the edge on
// the line under the list.
func TestCompactMarksTheEdgeTaken(t *testing.T) {
	for _, sz := range compareSizes {
		g := chooseGrid(sz.w, sz.h)
		for _, a := range loop.Table {
			t.Run(fmt.Sprintf("%s/%s/%s", sz.name, a.From, a.Edge), func(t *testing.T) {
				out := Render(plainTheme(), View{Current: a.To, LastFrom: a.From, LastEdge: a.Edge}, sz.w, sz.h)
				lines := strings.Split(out, "\n")
				if !strings.Contains(out, string(markCurrent)+g.name(a.To)+" ") {
					t.Errorf("%s is not marked current:\n%s", a.To, out)
				}
				if !strings.Contains(out, string(markFrom)+g.name(a.From)+" ") {
					t.Errorf("%s is not marked as where the edge came from:\n%s", a.From, out)
				}
				if edge := lines[g.rows()]; !strings.Contains(edge, "─"+string(a.Edge)+"─▶") {
					t.Errorf("the line under the list does not name the edge: %q\n%s", edge, out)
				}
			})
		}
	}
}

// compareSizes are the State machine pane's insides in compare mode: each
// run's column at 160×48, and the grid at 120×34.
var compareSizes = []struct {
	name string
	w, h int
}{
	{"compare160x48", 78, 6},
	{"compare120x34", 76, 15},
}

func TestCompactGoldenAtCompareSizes(t *testing.T) {
	views := map[string]View{
		"idle": {},
		"tool_call": {Current: loop.CheckingPolicy, LastFrom: loop.AwaitingLLMResponse, LastEdge: loop.EdgeToolCall,
			Breakpoints: states(loop.ExecutingTool)},
		"observed_from_error": {Current: loop.AssemblingContext, LastFrom: loop.RecordingError, LastEdge: loop.EdgeObserved,
			Selected: loop.Halted},
		"delivered": {Current: loop.WaitingForEvent, LastFrom: loop.DeliveringOutput, LastEdge: loop.EdgeDelivered},
	}
	for _, sz := range compareSizes {
		for name, v := range views {
			t.Run(sz.name+"_"+name, func(t *testing.T) {
				out := Render(plainTheme(), v, sz.w, sz.h)
				checkBounds(t, out, sz.w, sz.h)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// At 120×34 the State machine pane is 76×6 inside its frame (and compare
// mode's columns at 160×48 are 78×6): what happens now is said whole, in
// English and in Japanese, never cut where it says what the next step does.
func TestExplanationIsWholeAt120x34(t *testing.T) {
	for _, l := range lang.All {
		for _, s := range loop.States {
			for _, sz := range [][2]int{{76, 6}, {78, 6}} {
				v := View{Current: s, LastFrom: loop.AwaitingLLMResponse, LastEdge: loop.EdgeToolCall, Lang: l}
				out := ansi.Strip(Render(plainTheme(), v, sz[0], sz[1]))
				if strings.Contains(out, "…") {
					t.Errorf("%s %s at %dx%d: the footer is cut:\n%s", l, s, sz[0], sz[1], out)
				}
				words := strings.Fields(explainNow(v))
				if last := words[len(words)-1]; !strings.Contains(out, strings.TrimRight(last, ".。")) {
					t.Errorf("%s %s at %dx%d: the explanation's end %q is not shown:\n%s", l, s, sz[0], sz[1], last, out)
				}
			}
		}
	}
}
