package backend

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// openAICorners are requests that reach every corner of what the
// OpenAI-compatible dialect writes: an empty reply fed back with the loop's
// feedback, an empty tool result, a failed one, calls without ids (a
// conversation begun in Llama's JSON mode), a tool without a description
// (as an MCP server may offer one).
func openAICorners() []providers.Request {
	tools := []history.ToolSpec{
		{Name: "read_file", Description: "Reads a file.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}},
		{Name: "demo__echo", Params: []history.ParamSpec{{Name: "text", Type: history.TypeString}}},
	}
	user := history.Message{Role: history.RoleUser, Text: "Read hello.py."}
	call := func(id string) history.Message {
		return history.Message{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{ID: id, Name: "read_file", Args: json.RawMessage(`{"path":"hello.py"}`)}}}
	}
	result := func(id, content string, failed bool) history.Message {
		return history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: id, Name: "read_file", Content: content, IsError: failed}}
	}
	convs := [][]history.Message{
		{user},
		{user, {Role: history.RoleAssistant}, {Role: history.RoleUser, Text: "Your last reply was empty. Call a tool, or answer."}},
		{user, call("call_1"), result("call_1", "", false)},
		{user, call(""), result("", "no such file", true)},
		{user, {Role: history.RoleAssistant, Text: "Reading it."}, {Role: history.RoleUser, Text: "Go on."}},
	}
	reqs := make([]providers.Request, len(convs))
	for i, c := range convs {
		reqs[i] = providers.Request{System: "You are a test.", Messages: c, Tools: tools}
	}
	return reqs
}

// The OpenAI-compatible dialect spoke through openai-go v3 until it moved to
// go-openai (docs/architecture.md, "The binary"). Cassettes recorded then —
// testdata/openai-go-{stream,unary}.cassette, made with openai-go v3.96.0 —
// replay now with no divergence, so every request is still byte for byte
// what it was as JSON: temperature 0, an empty content sent as "", no
// "stream" in a unary request.
func TestOpenAIGoCassettesReplay(t *testing.T) {
	d := mustLookup(t, "openai")
	for _, unary := range []bool{false, true} {
		mode := providers.ModeOf(providers.CallOptions{Unary: unary})
		t.Run(mode, func(t *testing.T) {
			path := "testdata/openai-go-" + mode + ".cassette"
			if os.Getenv("GLASSBOX_WRITE_TESTDATA") != "" { // how the files were made, with openai-go
				b, err := Choose(context.Background(), Options{Dialect: d, Offline: true, Record: path, Env: offlineEnv(),
					Call: providers.CallOptions{Unary: unary}})
				if err != nil {
					t.Fatal(err)
				}
				playCorners(t, b)
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
			}
			cas, err := providers.LoadCassette(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(cas.Exchanges) != len(openAICorners()) {
				t.Fatalf("%d exchanges recorded, want %d", len(cas.Exchanges), len(openAICorners()))
			}
			b, err := Choose(context.Background(), Options{Dialect: d, Replay: path, Env: offlineEnv()})
			if err != nil {
				t.Fatal(err)
			}
			playCorners(t, b)
			if div := b.Replay.Divergences(); len(div) > 0 {
				t.Fatalf("the replay diverged: %q", div)
			}
		})
	}
}

func playCorners(t *testing.T, b *Backend) {
	t.Helper()
	for i, req := range openAICorners() {
		resp, err := b.Provider.Call(context.Background(), req)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if len(resp.Exchanges) != 1 {
			t.Fatalf("call %d made %d exchanges", i+1, len(resp.Exchanges))
		}
	}
}
