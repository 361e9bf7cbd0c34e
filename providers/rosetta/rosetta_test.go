package rosetta_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/rosetta"
)

var readFile = history.ToolSpec{Name: "read_file", Description: "Read a file.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Description: "the file", Required: true, Path: true}}}

// tour is a finished conversation: a request, a call, its result, an answer.
var tour = providers.Request{
	System: "You are a coding agent.",
	Tools:  []history.ToolSpec{readFile},
	Messages: []history.Message{
		{Role: history.RoleUser, Text: "What does hello.py do?"},
		{Role: history.RoleAssistant, Thought: "I should read it.", ToolCalls: []history.ToolCall{{ID: "call_1", Name: "read_file", Args: []byte(`{"path":"hello.py"}`)}},
			// As Gemini wrote it, with a thought signature ("signature" in base64).
			Native: &history.Native{Provider: "gemini", Data: []byte(`{"role":"model","parts":[{"text":"I should read it.","thought":true},{"functionCall":{"id":"call_1","name":"read_file","args":{"path":"hello.py"}},"thoughtSignature":"c2lnbmF0dXJl"}]}`)}},
		{Role: history.RoleTool, Result: &history.ToolResult{CallID: "call_1", Name: "read_file", Content: "print('hello')"}},
		{Role: history.RoleAssistant, Text: "It prints hello."},
	},
}

// The same conversation in all four dialects, built by their providers and
// read back, aligned row by row.
func TestFourDialects(t *testing.T) {
	tab, err := rosetta.Build(t.Context(), tour)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tab.Columns {
		names = append(names, c.Dialect)
		if c.Error != "" || c.Request == nil {
			t.Fatalf("%s: %s", c.Dialect, c.Error)
		}
	}
	if !slices.Equal(names, []string{"gemini", "llama", "llama:native", "openai"}) {
		t.Fatalf("columns %v", names)
	}
	urls := map[string]string{"gemini": ":streamGenerateContent?alt=sse", "llama": "/api/chat", "llama:native": "/api/chat", "openai": "/chat/completions"}
	for _, c := range tab.Columns {
		if !strings.HasSuffix(c.URL, urls[c.Dialect]) || !strings.Contains(c.URL, ".offline.invalid") {
			t.Errorf("%s went to %s", c.Dialect, c.URL)
		}
	}
	var kinds []string
	for _, r := range tab.Rows {
		kinds = append(kinds, string(r.Kind))
		if r.Caption == "" || len(r.Cells) != 4 {
			t.Fatalf("row %s: caption %q, %d cells", r.Kind, r.Caption, len(r.Cells))
		}
		for i, c := range r.Cells {
			if c.Text == "" {
				t.Errorf("row %s: %s has nothing", r.Kind, tab.Columns[i].Dialect)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "system tools user model_call tool_result model_text" {
		t.Fatalf("rows %s", got)
	}
	cell := func(row int, dialect string) rosetta.Cell {
		for i, c := range tab.Columns {
			if c.Dialect == dialect {
				return tab.Rows[row].Cells[i]
			}
		}
		t.Fatalf("no column %s", dialect)
		return rosetta.Cell{}
	}
	for _, tc := range []struct {
		row           int
		dialect, want string
	}{
		{0, "gemini", `"systemInstruction"`}, {0, "openai", `"role":"system"`}, {0, "llama", "You are a coding agent."},
		{1, "gemini", `"propertyOrdering"`}, {1, "gemini", `"OBJECT"`}, {1, "openai", `"type":"function"`}, {1, "llama", `### read_file`},
		{3, "gemini", `"functionCall"`}, {3, "openai", `"arguments":"{\"path\":\"hello.py\"}"`}, {3, "llama:native", `"arguments":{"path":"hello.py"}`}, {3, "llama", `tool_call`},
		{4, "gemini", `"functionResponse"`}, {4, "openai", `"tool_call_id":"call_1"`}, {4, "llama:native", `"tool_name":"read_file"`}, {4, "llama", `tool_result`},
		{5, "llama", `response`},
	} {
		if c := cell(tc.row, tc.dialect); !strings.Contains(c.Text, tc.want) {
			t.Errorf("row %s, %s: %s lacks %s", tab.Rows[tc.row].Kind, tc.dialect, c.Text, tc.want)
		}
	}
	// JSON mode's system row is its system message without the tools.
	if c := cell(0, "llama"); strings.Contains(c.Text, "### read_file") || !strings.Contains(c.Text, "## How to reply") {
		t.Errorf("JSON mode's system cell: %s", c.Text)
	}
	// The signature goes back to Gemini only.
	for i, col := range tab.Columns {
		if lost := slices.Contains(tab.Rows[3].Cells[i].Lost, rosetta.LostSignature); lost == (col.Dialect == "gemini") {
			t.Errorf("%s: signature lost %v", col.Dialect, lost)
		}
	}
	// The reasoning goes back only where the API has a place for it.
	if lost := cell(3, "openai").Lost; !slices.Contains(lost, rosetta.LostReasoning) {
		t.Errorf("openai loses nothing of the reasoning: %v", lost)
	}
	if lost := cell(3, "llama:native").Lost; slices.Contains(lost, rosetta.LostReasoning) {
		t.Errorf("Ollama's thinking field carries it: %v", lost)
	}
}

// Gemini CLI's conversation (captured): its thought signature — a marker
// that is no base64, which even the genai SDK cannot hold — is named as
// lost in every dialect, and a schema a provider cannot carry is named on
// the tools row, the rest still shown.
func TestForeignConversation(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "wire", "testdata", "agents", "geminicli", "002.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := backend.Wire().Family("gemini")
	req, err := c.DecodeRequest("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := rosetta.Build(t.Context(), providers.Request{System: req.System, Tools: req.Tools, Messages: req.Messages})
	if err != nil {
		t.Fatal(err)
	}
	call := tab.Rows[3]
	if call.Kind != rosetta.RowCall {
		t.Fatalf("row 3 is %s", call.Kind)
	}
	for i, col := range tab.Columns {
		if !slices.Contains(call.Cells[i].Lost, rosetta.LostSignature) || col.Error != "" {
			t.Errorf("%s: lost %v, error %q", col.Dialect, call.Cells[i].Lost, col.Error)
		}
		if rebuilt := strings.Contains(col.Rebuilt, "illegal base64"); rebuilt != (col.Dialect == "gemini") || (rebuilt && !slices.Contains(call.Cells[i].Lost, col.Rebuilt)) {
			t.Errorf("%s: rebuilt %q", col.Dialect, col.Rebuilt)
		}
	}
	for i, col := range tab.Columns {
		if col.Dialect == "llama:native" {
			if len(col.Refused) == 0 || !strings.Contains(col.Refused[0], "cannot be described to Ollama") || len(tab.Rows[1].Cells[i].Lost) == 0 {
				t.Errorf("Ollama refused none of Gemini CLI's schemas: %v", col.Refused)
			}
			if col.Error != "" || len(col.Request.Tools) == 0 {
				t.Errorf("the column is gone: %s", col.Error)
			}
		}
	}
}
