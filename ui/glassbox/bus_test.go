package glassbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/tools"
)

// busWorld is newWorld with the run on a new MCP bus, whose frames go into
// the run's own wire log (as agentrun.Run.Wire gives them in glassbox).
func busWorld(t *testing.T, replies ...reply) (*testWorld, *bus.Bus) {
	t.Helper()
	ws, dir := sampleWorkspace(t)
	person := NewPerson()
	prov := &scriptedProvider{replies: replies}
	reg := tools.Default(ws, person, 0)
	eng, err := loop.New(loop.Config{Provider: prov, Backend: "offline", Tools: reg, Workspace: ws, Person: person,
		Retry: loop.RetryPolicy{MaxRetries: -1}, Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	b := bus.New(bus.Options{Version: "test"})
	b.Bind(eng, reg.Wire())
	return &testWorld{eng: eng, person: person, prov: prov, dir: dir}, b
}

// onTheBus is w's config with its run on the MCP bus b. The harness runs
// every command to its end, so the glass box is not told the bus listens:
// arrive plays the listener.
func onTheBus(w *testWorld, b *bus.Bus) Config {
	cfg := w.config()
	cfg.Runs = []RunConfig{{Engine: cfg.Engine, Person: cfg.Person, Backend: cfg.Backend, BackendReason: cfg.BackendReason,
		Banner: cfg.Banner, Workspace: cfg.Workspace, Bus: b}}
	return cfg
}

// arrive feeds the glass box the bus's next request, as Init's busCmd
// would: the harness runs every command Update returns to its end, and the
// wait for the request after it would never end.
func arrive(t *testing.T, h *harness) {
	t.Helper()
	msg := h.run(h.m.runs[0].busCmd())
	if _, ok := msg.(busArrivedMsg); !ok {
		t.Fatalf("busCmd gave %T, want busArrivedMsg", msg)
	}
	next, _ := h.m.Update(msg)
	h.m = next.(*Model)
}

// TestBusRequestInTheGlassBox: a request from the MCP bus (--mcp-listen)
// reaches the glass box as a queued event the person steps; the write it
// leads to opens the usual approval dialog while the caller waits; History
// says the request came from the bus and from which client; the delivered
// answer is the caller's result.
func TestBusRequestInTheGlassBox(t *testing.T) {
	w, b := busWorld(t, writeScriptReplies()...)
	h := newHarness(t, onTheBus(w, b), 160, 48)

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
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: bus.ToolName, Arguments: map[string]any{"request": "add buy milk"}})
		if err != nil {
			t.Error(err)
		}
		results <- res
	}()

	arrive(t, h)
	if h.m.runs[0].live.queued != 1 {
		t.Fatalf("queued = %d after the bus's request, want 1", h.m.runs[0].live.queued)
	}
	contains(t, h.plainView(), "a request arrived from the MCP bus")
	h.press("c")
	if h.m.runs[0].confirm == nil {
		t.Fatalf("no approval dialog for the bus's request; edges %v", h.edges())
	}
	contains(t, h.plainView(), "Confirm: write_file")
	h.press("y")
	if got := h.edges(); len(got) == 0 || got[len(got)-1] != loop.EdgeDelivered {
		t.Fatalf("edges = %v, want the run to its answer", got)
	}
	contains(t, h.plainView(), "request from the mcp_bus source: probe 1.0 on the")
	// The Raw payload pane shows the answer's frame going back to the caller.
	v := h.plainView()
	if !strings.Contains(v, "→ bus · tools/call") {
		h.press("r")
		v = h.plainView()
	}
	contains(t, v, "→ bus · tools/call")
	contains(t, v, `"text": "Done."`)
	select {
	case res := <-results:
		if res == nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Done." {
			t.Fatalf("the caller's result = %+v", res)
		}
	case <-ctx.Done():
		t.Fatal("the caller never got its answer")
	}
}

// TestBusLessonInTheGlassBox: sending a lesson that comes from the bus
// (mcp-bus) has the in-process client call the run's ask_agent: the request
// is an mcp_bus event, not the person's typing.
func TestBusLessonInTheGlassBox(t *testing.T) {
	w, b := busWorld(t, reply{text: "For the caller."})
	cfg := onTheBus(w, b)
	cfg.Lessons = append(cfg.Lessons, Lesson{Name: "mcp-bus", Title: "from the bus", Request: "Over the bus, please.", FromBus: true})
	cfg.Lesson = "mcp-bus"
	h := newHarness(t, cfg, 160, 48)
	h.press("enter") // the in-process client's request is queued, and the glass box says so
	if h.m.runs[0].live.queued != 1 {
		t.Fatalf("queued = %d after sending the lesson, want 1", h.m.runs[0].live.queued)
	}
	h.press("c")
	steps := h.m.runs[0].live.steps
	if len(steps) == 0 || steps[0].t.Event == nil || steps[0].t.Event.Source != bus.Source || steps[0].t.Event.From != bus.InProcessClient+" 1 on the MCP bus" {
		t.Fatalf("the lesson's event = %+v, want one from the in-process client on the bus", steps[0].t.Event)
	}
	if got := h.edges(); got[len(got)-1] != loop.EdgeDelivered {
		t.Fatalf("edges %v", got)
	}
}
