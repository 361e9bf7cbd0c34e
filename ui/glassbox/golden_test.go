package glassbox

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden pins whole frames: the first screen, the middle of an
// iteration, the confirmation modal and the help, at a laptop's 80×24 and a
// projector's 160×48. Regenerate with: go test ./ui/glassbox -run TestGolden -update
func TestGolden(t *testing.T) {
	writeScript := writeScriptReplies()
	scenes := []struct {
		name    string
		replies []reply
		drive   func(h *harness)
	}{
		{"idle", tourScript(), func(h *harness) {}},
		{"mid_iteration", tourScript(), func(h *harness) {
			h.press("enter", "space", "space", "space", "esc") // new_event, context_ready, tool_call
			h.m.stepper.pane = panePayload
		}},
		{"confirm_modal", writeScript, func(h *harness) {
			h.typeText("Add '- buy milk' to notes/todo.txt")
			h.press("enter", "c")
		}},
		{"help", tourScript(), func(h *harness) { h.press("esc", "?") }},
	}
	for _, size := range [][2]int{{80, 24}, {120, 34}, {160, 48}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				w := newWorld(t, sc.replies...)
				h := newHarness(t, w.config(), size[0], size[1])
				h.normalize = zeroDurations
				sc.drive(h)
				v := h.view()
				checkScreen(t, v, size[0], size[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// TestGoldenCompare pins compare mode: two runs side by side with the
// comparison strip at the projector's 160×48, and strip + run bar + tabs at
// the recommended 120×34.
func TestGoldenCompare(t *testing.T) {
	scenes := []struct {
		name  string
		drive func(h *harness)
	}{
		{"first_call", func(h *harness) { h.press("enter", "space", "space", "space") }},
		{"focused_run", func(h *harness) { h.press("enter", "space", "space", "space", "tab", "tab") }},
	}
	for _, size := range [][2]int{{160, 48}, {120, 34}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				a, b := newWorld(t, tourScript()...), newWorld(t, tourScript()[1:]...)
				cfg := a.config()
				cfg.Runs = []RunConfig{
					{Name: "gemini", Label: "Gemini · native function calling", Engine: a.eng, Person: a.person, Backend: "offline", Workspace: "/tmp/glassbox-workspace-a"},
					{Name: "llama", Label: "Llama · JSON-mode prompting", Engine: b.eng, Person: b.person, Backend: "offline", Workspace: "/tmp/glassbox-workspace-b"},
				}
				h := newHarness(t, cfg, size[0], size[1])
				h.normalize = zeroDurations
				sc.drive(h)
				v := h.view()
				checkScreen(t, v, size[0], size[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}
