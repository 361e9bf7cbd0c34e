package glassbox

import (
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
)

// Text from the model or the workspace never drives the learner's terminal:
// an OSC sequence could retitle the window or write the clipboard, a CSI
// could clear the screen. Every pane and dialog shows such text inert.
func TestModelTextCannotDriveTheTerminal(t *testing.T) {
	evil := "X\x1b]0;PWNED\x07\x1b]52;c;ZWNobw==\x07\x1b[2JY"
	w := newWorld(t,
		reply{thought: "t" + evil, calls: []history.ToolCall{
			call("c1", "write_file", map[string]any{"path": "a.txt", "content": "line" + evil + "\n"}),
		}},
		reply{calls: []history.ToolCall{call("c2", "ask_user", map[string]any{"question": "q" + evil, "options": []string{"o" + evil}})}},
		reply{calls: []history.ToolCall{call("c3", "bad"+evil, map[string]any{"k" + evil: "v" + evil})}},
		reply{text: "final" + evil},
	)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("go")
	h.press("enter")
	check := func(where string) {
		v := h.view()
		if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") || strings.Contains(v, "\x1b[2J") {
			i := strings.Index(v, "\x1b]")
			t.Errorf("%s: raw escape in view near %q", where, v[max(0, i-80):min(len(v), i+40)])
		}
	}
	for i := 0; i < 40; i++ {
		h.press("space")
		check("step")
		for _, k := range []string{"r", "z", "z", "tab"} {
			h.press(k)
			check("key " + k)
		}
		if h.m.runs[0].confirm != nil {
			check("confirm modal")
			h.press("y")
		}
		if h.m.runs[0].ask != nil {
			check("ask modal")
			h.press("1")
			h.press("enter")
		}
	}
}
