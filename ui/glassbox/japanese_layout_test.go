package glassbox

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// TestGoldenJapanese pins the main screens in Japanese at the workshop's
// two sizes: the first screen, the tour lesson mid-way, the approval
// dialog and the help. Double-width text takes two cells: every line is
// the terminal's width (checkScreen) and the goldens show that nothing is
// cut. Regenerate with: go test ./ui/glassbox -run TestGoldenJapanese -update
func TestGoldenJapanese(t *testing.T) {
	scenes := map[string]bool{"first_screen": true, "tour_midway": true, "approval": true, "help": true}
	for _, size := range [][2]int{{120, 34}, {160, 48}} {
		for _, sc := range japaneseScenes() {
			if !scenes[sc.name] {
				continue
			}
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				v := sc.frame(t, size[0], size[1])
				checkScreen(t, v, size[0], size[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// A pane whose status does not fit beside its name is framed with its
// short name, so the status stays whole: "Tools ─ iter 1 · 1 call", not
// "Tool calls ─ iter 1 · 1 c…". In Japanese, where the names are wider,
// the same.
func TestFrameKeepsStatusWholeWithShortTitle(t *testing.T) {
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		t.Run(string(l), func(t *testing.T) {
			w := newWorld(t, japaneseTour()...)
			cfg := japaneseConfig(w)
			cfg.Lang = l
			h := newHarness(t, cfg, 120, 34)
			h.press("enter", "space", "space", "space", "esc") // new_event, context_ready, tool_call
			L := h.m.computeLayout()
			var top string
			for _, pl := range L.panes {
				if pl.pane == paneTools {
					top = ansi.Cut(strings.Split(h.plainView(), "\n")[pl.r.y], pl.r.x, pl.r.x+pl.r.w)
				}
			}
			want := map[lang.Lang]string{lang.EN: "iter 1 · 1 call", lang.JA: "反復 1 · 1 件"}[l]
			short := map[lang.Lang]string{lang.EN: "Tools", lang.JA: "ツール"}[l]
			if !strings.Contains(top, want) || !strings.Contains(top, short) || strings.Contains(top, "…") {
				t.Errorf("Tool calls frame %q: want %q beside %q, nothing cut", top, want, short)
			}
		})
	}
}

// In tabs mode a click lands on the Japanese tab under the pointer: the
// tabs are measured in cells, and a Japanese character takes two.
func TestTabClickMeasuresJapaneseInCells(t *testing.T) {
	w := newWorld(t)
	cfg := japaneseConfig(w)
	h := newHarness(t, cfg, 100, 30)
	bar := strings.Split(h.plainView(), "\n")[0]
	for p := paneID(0); p < numPanes; p++ {
		title := tabTitles(100, lang.JA, h.m.stepper.cur().panes)[p]
		i := strings.Index(bar, title)
		if i < 0 {
			t.Fatalf("tab %q is not on the bar %q", title, bar)
		}
		x := ansi.StringWidth(bar[:i]) + ansi.StringWidth(title) - 1 // the tab's last cell
		h.send(tea.MouseMsg{X: x, Y: 0, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		if h.m.stepper.pane != p {
			t.Errorf("a click at column %d (on %q) selected pane %v, want %v", x, title, h.m.stepper.pane, p)
		}
	}
}
