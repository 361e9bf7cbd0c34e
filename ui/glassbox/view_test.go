package glassbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// drawnKeyHelp is the key help as bubbles/help draws it, with no memo: the
// short help line for what has the keys, and the help overlay's key
// columns at width w.
func drawnKeyHelp(m *Model, w int) (short string, columns []string) {
	var km help.KeyMap = stepperHelp{k: m.keys, pane: m.stepper.cur().panes[m.stepper.pane], compare: m.stepper.compare()}
	switch d := m.top(); {
	case d != nil:
		km = d.keys()
	case m.inputFocused:
		km = inputHelp{m.keys}
	}
	h := m.help
	h.Width = w
	short = h.View(km)

	groups := m.keys.fullHelp(m.stepper.compare())
	hm := m.help
	hm.Width = 0
	per := len(groups)
	for ; per > 1; per-- {
		if lipgloss.Width(hm.FullHelpView(groups[:per])) <= w {
			break
		}
	}
	for i := 0; i < len(groups); i += per {
		if i > 0 {
			columns = append(columns, "")
		}
		columns = append(columns, strings.Split(hm.FullHelpView(groups[i:min(i+per, len(groups))]), "\n")...)
	}
	return short, columns
}

// The key help is drawn once per width and set of keys, and what the memo
// gives is what bubbles/help draws, whatever has the keys: the input line,
// each pane, a dialog, the help overlay, compare mode; in colour and not.
func TestKeyHelpMemoDrawsWhatHelpDraws(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	check := func(t *testing.T, h *harness, when string) {
		t.Helper()
		for _, w := range []int{40, 80, 119, 160} {
			short, columns := drawnKeyHelp(h.m, w)
			if got := h.m.bar.shortHelp(w, h.m.keyHelp(h.m.top())); got != short {
				t.Errorf("%s, width %d: the help line is\n%q\nbubbles/help draws\n%q", when, w, got, short)
			}
			if got := h.m.helpBox.keyColumns(w); !slices.Equal(got, columns) {
				t.Errorf("%s, width %d: the key columns are\n%q\nbubbles/help draws\n%q", when, w, got, columns)
			}
		}
	}
	for _, noColor := range []bool{false, true} {
		t.Run(fmt.Sprintf("no_colour=%v", noColor), func(t *testing.T) {
			w := newWorld(t, writeScriptReplies()...)
			cfg := w.config()
			cfg.NoColor = noColor
			h := newHarness(t, cfg, 120, 34)
			check(t, h, "input")
			h.press("esc")
			for p := range numPanes {
				check(t, h, fmt.Sprintf("pane %d", p))
				h.press("tab")
			}
			h.press("?")
			check(t, h, "help overlay")
			h.press("?")
			h.typeText("Add '- buy milk' to notes/todo.txt")
			h.press("enter", "c")
			if h.m.top() == nil {
				t.Fatal("no approval dialog")
			}
			check(t, h, "approval dialog")
		})
	}
	t.Run("compare", func(t *testing.T) {
		a, b := newWorld(t, tourScript()...), newWorld(t, tourScript()...)
		cfg := a.config()
		cfg.NoColor = false
		cfg.Runs = []RunConfig{
			{Name: "gemini", Engine: a.eng, Person: a.person, Backend: "offline"},
			{Name: "llama", Engine: b.eng, Person: b.person, Backend: "offline"},
		}
		h := newHarness(t, cfg, 160, 48)
		h.press("esc")
		check(t, h, "compare")
		h.press("tab")
		check(t, h, "compare, one run")
	})
}

// Drawn once: the help overlay's key columns come back from the memo while
// the width and the keys stay, in Update (clampHelp) and View alike.
func TestKeyHelpIsDrawnOnce(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc", "?")
	first := h.m.helpBox.keyColumns(96)
	if again := h.m.helpBox.keyColumns(96); &again[0] != &first[0] {
		t.Error("the same width and keys drew the key columns again")
	}
	if other := h.m.helpBox.keyColumns(60); &other[0] == &first[0] {
		t.Error("another width got the drawing of 96 columns")
	}
	if n := testing.AllocsPerRun(20, func() { h.m.bar.shortHelp(120, h.m.keyHelp(h.m.top())) }); n > 8 {
		t.Errorf("the help line costs %v allocations once drawn: it is drawn again", n)
	}
}
