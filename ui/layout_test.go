package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestLayoutRectangles pins every rectangle the layout gives, for each
// screen mode (one run, compare mode; grid, tabs, zoom, compare columns),
// each focused pane, an input of one to four lines, and terminal sizes on
// both sides of every threshold (minWidth, gridWidth, compareWidth, the
// heights where the help line, the strip and the full diagram appear).
// The golden was drawn by the hand-written arithmetic the declarative
// layout replaced, so the two agree cell for cell. Regenerate with: go test
// ./ui -run TestLayoutRectangles -update
func TestLayoutRectangles(t *testing.T) {
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
								m := layoutModel(runs, w, h, zoomed, p, lines)
								fmt.Fprintf(&b, "%dx%d zoom=%v pane=%d input=%d: %s\n", w, h, zoomed, p, lines, describeLayout(m.computeLayout()))
							}
						}
					}
				}
			}
			golden.RequireEqual(t, []byte(b.String()))
		})
	}
}

// layoutModel is a glass box of runs runs (no engine) at w×h, zoomed or
// not, pane p focused, with an input of lines lines.
func layoutModel(runs, w, h int, zoomed bool, p paneID, lines int) Model {
	cfg := Config{}
	for i := 0; i < runs && runs > 1; i++ {
		cfg.Runs = append(cfg.Runs, RunConfig{Name: fmt.Sprint("run", i)})
	}
	m := New(cfg)
	m.input.SetValue(strings.Repeat("x\n", lines-1) + "x")
	m.width, m.height, m.ready = w, h, true
	m.zoomed, m.pane = zoomed, p
	return m
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
