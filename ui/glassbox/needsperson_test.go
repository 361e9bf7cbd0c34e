package glassbox

import (
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
)

// A call only a person may answer (Decision.NeedsPerson) offers no
// allow-for-the-session key: the engine would count it as allow once, so the
// dialog says so instead of offering what it will not do.
func TestNeedsPersonDialogOffersNoSessionGrant(t *testing.T) {
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("x1", "execute_command", map[string]any{"command": `python3 -c "print(1)"`})}},
		reply{text: "you did not want it run."},
	)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("run some python")
	h.press("enter", "c")
	c := h.m.runs[0].confirm
	if c == nil {
		t.Fatalf("no confirmation; states %v", h.states())
	}
	if !c.req.confirm.Decision.NeedsPerson {
		t.Fatalf("decision %+v does not need a person", c.req.confirm.Decision)
	}
	v := h.plainView()
	contains(t, v, "unknowable-command")
	contains(t, v, "you answer it each time")
	if strings.Contains(v, "a allow") {
		t.Errorf("the dialog offers the session grant on a call that needs a person:\n%s", v)
	}
	h.press("a")
	if h.m.runs[0].confirm == nil {
		t.Fatal("a answered a call that needs a person")
	}
	contains(t, h.plainView(), "a does not apply here")
	h.press("n")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s, want idle after the denial", h.m.runs[0].live.state)
	}
}
