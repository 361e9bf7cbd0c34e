package ui

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/bus"
)

// TestBusRequestInTheGlassBox: a request from the MCP bus (--mcp-listen)
// reaches the glass box as a queued event the person steps; History says
// it came from the bus and from which client; the delivered answer is the
// caller's result.
func TestBusRequestInTheGlassBox(t *testing.T) {
	w := newWorld(t, reply{text: "Done: the answer for the caller."})
	b := bus.New(bus.Options{Version: "test"})
	b.Bind(w.eng, nil)
	cfg := w.config()
	cfg.Bus = b.Queued()
	h := newHarness(t, cfg, 160, 48)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	go b.Serve(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "probe", Version: "1.0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	results := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: bus.ToolName, Arguments: map[string]any{"request": "say something"}})
		if err != nil {
			t.Error(err)
		}
		results <- res
	}()

	// busCmd hears the bus; the harness would run the command Update
	// returns (the wait for the next request) to its end, so the message
	// is fed to Update by hand.
	if msg := h.run(h.m.busCmd()); msg != (busArrivedMsg{}) {
		t.Fatalf("busCmd gave %T, want busArrivedMsg", msg)
	}
	next, _ := h.m.Update(busArrivedMsg{})
	h.m = next.(Model)
	if h.m.runs[0].live.queued != 1 {
		t.Fatalf("queued = %d after the bus's request, want 1", h.m.runs[0].live.queued)
	}
	contains(t, h.plainView(), "a request arrived from the MCP bus")
	h.press("c")
	if got := h.edges(); len(got) == 0 || got[len(got)-1] != loop.EdgeDelivered {
		t.Fatalf("edges = %v, want the run to its answer", got)
	}
	contains(t, h.plainView(), "request from the mcp_bus source: probe 1.0 on the")
	select {
	case res := <-results:
		if res == nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Done: the answer for the caller." {
			t.Fatalf("the caller's result = %+v", res)
		}
	case <-ctx.Done():
		t.Fatal("the caller never got its answer")
	}
}
