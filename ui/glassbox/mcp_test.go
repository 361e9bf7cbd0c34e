package glassbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// TestPayloadPaneShowsMCPFrames: at the step that ran an MCP server's tool,
// the Raw payload pane shows the JSON-RPC frames glassbox sent, and with r
// those it received.
func TestPayloadPaneShowsMCPFrames(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo from the server"}}}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })

	ws, _ := sampleWorkspace(t)
	person := NewPerson()
	reg := tools.Default(ws, person, 0)
	server, err := mcptool.AttachTransport(context.Background(), "demo", ct, reg.Wire(), mcptool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	if err := reg.Add(server.Tools()...); err != nil {
		t.Fatal(err)
	}
	policy, err := loop.ParsePolicy([]byte("[[rule]]\nname = \"trust-demo\"\nverdict = \"ALLOW\"\ntools = [\"demo__echo\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	prov := &scriptedProvider{replies: []reply{
		{calls: []history.ToolCall{call("m1", "demo__echo", map[string]any{"text": "hi"})}},
		{text: "Done."},
	}}
	eng, err := loop.New(loop.Config{Provider: prov, Backend: "offline", Tools: reg, Workspace: ws, Person: person, Policy: policy,
		Retry: loop.RetryPolicy{MaxRetries: -1}, Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	w := &testWorld{eng: eng, person: person, prov: prov}
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter")
	h.stepUntil(loop.ExecutingTool)
	// While the tool runs, the frames show live as they pass.
	var live string
	var frames int
	h.normalize = func(msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case mcpFrameMsg:
			frames++
		case stepDoneMsg:
			if live == "" {
				live = h.plainView() // the last live frame, before the record replaces it
			}
		}
		return msg
	}
	h.press("space")
	h.normalize = nil
	if frames != 2 {
		t.Fatalf("%d MCP frames reached the UI live, want the request and the answer", frames)
	}
	contains(t, live, "live · MCP")
	contains(t, live, "MCP frames of step #5")
	if h.m.runs[0].live.state != loop.RecordingResult {
		t.Fatalf("state %s after the tool step", h.m.runs[0].live.state)
	}
	// The pane keeps the side it showed last (the model's response here):
	// the frames the server sent.
	v := h.plainView()
	contains(t, v, "MCP frames of step #5")
	contains(t, v, "← demo · tools/call")
	contains(t, v, "echo from the server")
	h.press("r")
	v = h.plainView()
	contains(t, v, "→ demo · tools/call")
	contains(t, v, `"name": "echo"`)
	checkScreen(t, h.view(), 160, 48)
}
