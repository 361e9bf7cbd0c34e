package diagram

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
)

// TestNewEventFromTheBus: the new_event edge names the bus as its source,
// and what is happening now names the client that sent the request — in
// the full layout and the compact one.
func TestNewEventFromTheBus(t *testing.T) {
	v := View{Current: loop.AssemblingContext, LastFrom: loop.WaitingForEvent, LastEdge: loop.EdgeNewEvent,
		Source: "mcp_bus", From: "probe 1.0 on the MCP bus"}
	for _, sz := range []struct{ w, h int }{{FullWidth + 40, FullHeight + 4}, {60, 24}} {
		out := strings.Join(strings.Fields(ansi.Strip(Render(plainTheme(), v, sz.w, sz.h))), " ")
		for _, want := range []string{"new_event─▶ ", "from mcp_bus", "a request from probe 1.0 on the MCP bus"} {
			if !strings.Contains(out, want) {
				t.Errorf("%dx%d: the diagram lacks %q:\n%s", sz.w, sz.h, want, out)
			}
		}
	}
	typed := View{Current: loop.AssemblingContext, LastFrom: loop.WaitingForEvent, LastEdge: loop.EdgeNewEvent}
	if out := ansi.Strip(Render(plainTheme(), typed, FullWidth+40, FullHeight+4)); strings.Contains(out, "from") || !strings.Contains(out, "your request") {
		t.Errorf("a typed request is labelled as if it came from elsewhere:\n%s", out)
	}
}
