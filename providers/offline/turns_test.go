package offline

import (
	"reflect"
	"slices"
	"testing"
)

// MCP tools are those the request declares as NAME__tool: not a name that
// only appears in the conversation, nor one the separator does not split
// into a server and a tool.
func TestMCPToolNames(t *testing.T) {
	got := MCPTools([]string{"read_file", "notes__echo", "ev__elicit.form", "notes__echo", "__x", "9ev__x", "ev__", "e v__x", "a___b"})
	want := []string{"notes__echo", "ev__elicit.form", "a___b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mcpTools = %q, want %q", got, want)
	}
}

// A JSON-mode system prompt's tools are its ### headings.
func TestPromptToolNames(t *testing.T) {
	got := PromptToolNames("You are an agent.\n\n## Tools\n\n### read_file\nReads.\n\n### notes__echo\r\nEchoes.\n## How to reply\n")
	if want := []string{"read_file", "notes__echo"}; !slices.Equal(got, want) {
		t.Fatalf("PromptToolNames = %q, want %q", got, want)
	}
}
