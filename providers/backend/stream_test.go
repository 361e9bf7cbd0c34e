package backend

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// The streams lesson's answer, offline, on every dialect: streamed, it
// arrives in one chunk per token on both sides (Gemini's SSE events,
// Llama's NDJSON lines), so the compare strip's chunk counts mean the same;
// with --stream=false it is one body on every side.
func TestStreamsLessonChunksCompare(t *testing.T) {
	lesson, ok := lessons.ByName("streams")
	if !ok {
		t.Fatal("no streams lesson")
	}
	call := history.ToolCall{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"README.md"}`)}
	req := providers.Request{
		Tools: []history.ToolSpec{{Name: "read_file", Description: "Read a file.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}}},
		Messages: []history.Message{
			{Role: history.RoleUser, Text: lesson.Request},
			{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{call}},
			{Role: history.RoleTool, Result: &history.ToolResult{CallID: call.ID, Name: call.Name, Content: "# Sample\n\nA small project for the glass box.\n"}},
		},
	}
	chunks := func(name string, unary bool) int {
		t.Helper()
		d, _ := Lookup(name)
		b, err := Choose(context.Background(), Options{Dialect: d, Offline: true, Env: offlineEnv(), Call: providers.CallOptions{Unary: unary}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := b.Provider.Call(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if resp.StopReason != providers.StopEndTurn || len(resp.Exchanges) != 1 {
			t.Fatalf("%s: stop %s, %d exchanges; want the final answer in one", name, resp.StopReason, len(resp.Exchanges))
		}
		return resp.Exchanges[0].Records()
	}
	g, l := chunks("gemini", false), chunks("llama:native", false)
	if g < 50 || l < 50 || g-l > 1 || l-g > 1 {
		t.Errorf("streamed: gemini %d chunks, llama %d; want one per token on both (within the done line)", g, l)
	}
	for _, name := range []string{"gemini", "llama", "llama:native"} {
		if n := chunks(name, true); n != 1 {
			t.Errorf("--stream=false: %s answered in %d chunks, want 1 body", name, n)
		}
	}
}
