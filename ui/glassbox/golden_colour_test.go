package glassbox

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

// TestGoldenColour pins whole frames in 256 colours, escape codes and all,
// as a served learner's terminal gets them: the golden files of TestGolden
// are plain text, so they cannot see a colour, a style or a border painted
// differently. Regenerate with: go test ./ui/glassbox -run TestGoldenColour -update
func TestGoldenColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	dark := lipgloss.HasDarkBackground()
	lipgloss.SetHasDarkBackground(true)
	defer func() { lipgloss.SetColorProfile(termenv.Ascii); lipgloss.SetHasDarkBackground(dark) }()
	scenes := []struct {
		name    string
		replies []reply
		drive   func(h *harness)
	}{
		{"mid_iteration", tourScript(), func(h *harness) {
			h.press("enter", "space", "space", "space", "esc")
			h.m.stepper.pane = panePayload
		}},
		{"confirm_modal", writeScriptReplies(), func(h *harness) {
			h.typeText("Add '- buy milk' to notes/todo.txt")
			h.press("enter", "c")
		}},
		{"help", tourScript(), func(h *harness) { h.press("esc", "?") }},
	}
	for _, sc := range scenes {
		t.Run(sc.name+"_120x34", func(t *testing.T) {
			w := newWorld(t, sc.replies...)
			cfg := w.config()
			cfg.NoColor = false
			h := newHarness(t, cfg, 120, 34)
			h.normalize = zeroDurations
			sc.drive(h)
			v := h.view()
			checkScreen(t, v, 120, 34)
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// A frame in 256 colours allocates a bounded amount: each pane's border, the
// status bar and the key help are painted from codes found once, not
// rendered by lipgloss line by line (1,716 allocations before, 763 after).
func TestColourFrameAllocations(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.NoColor = false
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "space", "space", "space", "esc")
	h.view()
	if n := testing.AllocsPerRun(20, func() { h.m.View() }); n > 1000 {
		t.Errorf("a 120×34 frame in colour allocates %v times", n)
	}
}
