package ollama

import (
	"testing"

	"github.com/glassbox-dev/glassbox/providers/offline"
)

// callIn is a JSON-mode model call whose request is request (its language
// is the reply's).
func callIn(request string) chatCall {
	f := offline.NewFolder(&jsonQuirks)
	f.Add(offline.Turn{Kind: offline.TurnUser, Text: request})
	return chatCall{f.Call(0, true, nil), modeJSON}
}

func TestParseJSONReply(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		ok       bool
		toolName string
	}{
		{"tool call", `{"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a"}}}`, true, "read_file"},
		{"response", `{"thought": "t", "response": "hi"}`, true, ""},
		{"code fence and prose", "Here you go:\n```json\n{\"response\": \"hi\"}\n```", true, ""},
		{"missing closing brace", brokenJSONReply(callIn("read the list"), offline.Reply{Thought: "t"}), false, ""},
		{"missing closing brace, in Japanese", brokenJSONReply(callIn("リストを読んで"), offline.Reply{Thought: "読みます"}), false, ""},
		{"a Japanese tool call", `{"thought": "一覧を見ます。", "tool_call": {"name": "list_files", "input": {"path": "."}}}`, true, "list_files"},
		{"neither key", `{"thought": "hmm"}`, false, ""},
		{"no object", "just words", false, ""},
		{"empty", "", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := parseJSONReply(tc.text)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if tc.toolName != "" && (r.ToolCall == nil || r.ToolCall.Name != tc.toolName) {
				t.Errorf("tool call = %+v, want %s", r.ToolCall, tc.toolName)
			}
		})
	}
}
