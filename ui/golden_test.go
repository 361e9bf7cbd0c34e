package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/history"
)

// TestGolden pins whole frames: the first screen, the middle of an
// iteration, the confirmation modal and the help, at a laptop's 80×24 and a
// projector's 160×48. Regenerate with: go test ./ui -run TestGolden -update
func TestGolden(t *testing.T) {
	writeScript := []reply{
		{thought: "The person wants a line added; write_file needs approval.",
			calls: []history.ToolCall{call("w1", "write_file", map[string]any{"path": "notes/todo.txt", "content": "- buy milk\n"})}},
		{text: "Done."},
	}
	scenes := []struct {
		name    string
		replies []reply
		drive   func(h *harness)
	}{
		{"idle", tourScript(), func(h *harness) {}},
		{"mid_iteration", tourScript(), func(h *harness) {
			h.press("enter", "space", "space", "space", "esc") // new_event, context_ready, tool_call
			h.m.pane = panePayload
		}},
		{"confirm_modal", writeScript, func(h *harness) {
			h.typeText("Add '- buy milk' to notes/todo.txt")
			h.press("enter", "c")
		}},
		{"help", tourScript(), func(h *harness) { h.press("esc", "?") }},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
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
