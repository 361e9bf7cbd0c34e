package glassbox

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/cell"
)

// A pane settles itself after a key: no follow-up by the model is needed
// for the next key to act. G puts the Raw payload at its last page, and the
// very next k moves it up a line (an offset left past the end would need
// many k before anything moved).
func TestPaneKeySettlesThePane(t *testing.T) {
	w := newWorld(t, reply{text: strings.Repeat("a long answer ", 400)})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("hello")
	h.press("enter", "space", "space", "space") // the model's reply: final_answer
	h.m.focusPane(panePayload)
	percent := func() int {
		t.Helper()
		m := regexp.MustCompile(`· (\d+)% `).FindStringSubmatch(h.plainView())
		if m == nil {
			t.Fatalf("the Raw payload does not scroll here:\n%s", h.plainView())
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	h.press("G")
	if p := percent(); p != 100 {
		t.Fatalf("G: the Raw payload is at %d%%, want 100%%", p)
	}
	h.press("k")
	if p := percent(); p >= 100 {
		t.Errorf("k after G did not move the Raw payload at once (%d%%)", p)
	}
	// The wheel settles it too: many notches down, then one up.
	r := h.m.computeLayout().paneRect(panePayload)
	for i := 0; i < 100; i++ {
		h.send(tea.MouseMsg{X: r.x + 3, Y: r.y + 3, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	}
	if p := percent(); p != 100 {
		t.Fatalf("the wheel down: the Raw payload is at %d%%, want 100%%", p)
	}
	h.send(tea.MouseMsg{X: r.x + 3, Y: r.y + 3, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if p := percent(); p >= 100 {
		t.Errorf("a notch up after scrolling past the end did not move the Raw payload (%d%%)", p)
	}
}

// The tab bar names the panes in full while the names and its "tab ⇥"
// hint fit the line, else by their short names: a name is never cut
// while the short names would have fitted (the hint used to be left out
// of the sum, so a fifth pane's name was cut at 80 columns).
func TestTabBarNamesFitWithTheHint(t *testing.T) {
	w := newWorld(t)
	h := newHarness(t, w.config(), 80, 24)
	bar := h.m.bar
	panes := bar.stepper.cur().panes
	for width := 30; width <= 120; width++ {
		line := ansi.Strip(bar.tabBar(width))
		if !strings.HasSuffix(line, "…") {
			continue
		}
		short := 0
		for _, c := range panes {
			short += cell.Width(" "+c.shortTitle(h.m.lang)+" ") + 1
		}
		if short-1+cell.Width("  tab ⇥") <= width {
			t.Errorf("at %d columns the tab bar is cut although the short names fit: %q", width, line)
		}
	}
}
