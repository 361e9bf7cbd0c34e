package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// TestLayoutRectangles pins every rectangle the layout gives, for each
// screen mode (one run, compare mode; grid, tabs, zoom, compare columns),
// each focused pane, an input of one to four lines, and terminal sizes on
// both sides of every threshold (minWidth, gridWidth, compareWidth, the
// heights where the help line, the strip and the full diagram appear).
// The golden was drawn by the hand-written arithmetic the declarative
// layout replaced, so the two agree cell for cell. Regenerate with: go test
// ./ui/glassbox -run TestLayoutRectangles -update
func TestLayoutRectangles(t *testing.T) {
	// The layout is a function of the screen alone: no terminal, no model.
	widths := []int{29, 30, 80, 119, 120, 121, 140, 159, 160, 161, 200}
	heights := []int{9, 10, 11, 12, 20, 23, 24, 25, 28, 29, 30, 34, 44, 45, 46, 48, 60}
	for _, runs := range []int{1, 2} {
		t.Run(fmt.Sprintf("runs_%d", runs), func(t *testing.T) {
			var b strings.Builder
			for _, zoomed := range []bool{false, true} {
				for p := paneID(0); p < numPanes; p++ {
					for _, lines := range []int{1, 4} {
						for _, w := range widths {
							for _, h := range heights {
								s := screen{w: w, h: h, runs: runs, pane: p, zoomed: zoomed, inputLines: lines}
								fmt.Fprintf(&b, "%dx%d zoom=%v pane=%d input=%d: %s\n", w, h, zoomed, p, lines, describeLayout(s.layout()))
							}
						}
					}
				}
			}
			golden.RequireEqual(t, []byte(b.String()))
		})
	}
}

// describeLayout is every rectangle of L on one line.
func describeLayout(L layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode %d", L.mode)
	named := []struct {
		name string
		r    rect
	}{{"runBar", L.runBar}, {"strip", L.strip}, {"tabBar", L.tabBar}, {"body", L.body}, {"input", L.input}, {"help", L.help}, {"status", L.status}}
	for _, n := range named {
		if n.r != (rect{}) {
			fmt.Fprintf(&b, " %s%v", n.name, n.r)
		}
	}
	for i, h := range L.heads {
		fmt.Fprintf(&b, " head%d%v", i, h)
	}
	for _, pl := range L.panes {
		fmt.Fprintf(&b, " %d.%d%v", pl.run, pl.pane, pl.r)
	}
	return b.String()
}

// Every pane a run has (paneKinds) is placed once per run in each screen
// mode that shows all of them: a pane registered but left out of a
// description would never be drawn, clicked or sized.
func TestEveryPaneIsPlaced(t *testing.T) {
	for _, s := range []screen{
		{w: 120, h: 34, runs: 1, inputLines: 1}, // grid, compact diagram
		{w: 160, h: 48, runs: 1, inputLines: 1}, // grid, full diagram
		{w: 120, h: 34, runs: 2, inputLines: 1}, // compare, one run shown
		{w: 160, h: 48, runs: 2, inputLines: 1}, // compare, side by side
	} {
		L := s.layout()
		count := map[placed]int{}
		for _, pl := range L.panes {
			count[placed{run: pl.run, pane: pl.pane}]++
		}
		runs := []int{s.shown}
		if L.mode == layoutCompare {
			runs = []int{0, 1}
		}
		for _, run := range runs {
			for p := range paneKinds {
				if n := count[placed{run: run, pane: paneID(p)}]; n != 1 {
					t.Errorf("%d×%d, %d run(s), mode %d: run %d's pane %d is placed %d times", s.w, s.h, s.runs, L.mode, run, p, n)
				}
			}
		}
		if len(L.panes) != len(runs)*len(paneKinds) {
			t.Errorf("%d×%d, %d run(s): %d panes placed, want %d", s.w, s.h, s.runs, len(L.panes), len(runs)*len(paneKinds))
		}
	}
}

// shows reports whether pane p is on screen.
func (L layout) shows(p paneID) bool { return L.paneRect(p).w > 0 }

// paneTitle is pane p's name on its frame (title reads no pane: a pane made
// for no run says it).
func paneTitle(p paneID, l lang.Lang) string { return paneKinds[p](nil).title(l) }
