package loop

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestOutputCarriesRefAndRefusals: an event's output goes to its source's
// handler with the event's Ref, and lists what the policy and the person
// refused during that event only — the next event starts with none.
func TestOutputCarriesRefAndRefusals(t *testing.T) {
	f := newFixture(t, 0,
		calls(call("read_file", `{"path":"/etc/passwd"}`)), calls(call("write_file", `{"path":"a"}`)), text("could not"),
		text("fine"))
	f.person.approvals = []Approval{Deny}
	var bus []Output
	f.engine.Attach("mcp_bus", func(o Output) { bus = append(bus, o) })
	f.engine.Submit(Event{Source: "mcp_bus", Type: "mcp_message", Data: "try", Ref: "bus-x-1", From: "probe"})
	f.engine.Submit(Event{Source: "mcp_bus", Type: "mcp_message", Data: "again", Ref: "bus-x-2", From: "probe"})
	for i := 0; ; i++ {
		if _, err := f.engine.Step(context.Background()); errors.Is(err, ErrIdle) {
			break
		} else if err != nil || i > 100 {
			t.Fatalf("step %d: %v", i, err)
		}
		if ev := f.engine.Event(); ev == nil || ev.Source != "mcp_bus" {
			t.Fatalf("Event() = %+v, want the bus's event in progress", ev)
		}
	}
	if len(f.outputs) != 0 || len(bus) != 2 {
		t.Fatalf("outputs cli=%+v bus=%+v, want both on the bus", f.outputs, bus)
	}
	first, second := bus[0], bus[1]
	if first.Ref != "bus-x-1" || second.Ref != "bus-x-2" || first.Text != "could not" {
		t.Fatalf("refs/texts: %+v, %+v", first, second)
	}
	if len(first.Refused) != 2 || !strings.Contains(first.Refused[0], "read_file denied by rule path-outside-workspace") ||
		first.Refused[1] != "write_file: The person denied this call." {
		t.Fatalf("refused = %q", first.Refused)
	}
	if len(second.Refused) != 0 {
		t.Fatalf("the next event inherited %q", second.Refused)
	}
}
