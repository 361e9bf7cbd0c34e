package gemini

import (
	"testing"

	"github.com/glassbox-dev/glassbox/history"
)

// A tool result is turned into its Part once, and a fork that puts another
// result in the same place sends the new one.
func TestBuildContentsResultPartsFollowTheHistory(t *testing.T) {
	var cache replyCache
	call := history.Message{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{Name: "read_file", Args: []byte(`{"path":"a"}`)}}}
	first := &history.ToolResult{Name: "read_file", Content: "first"}
	msgs := []history.Message{{Role: history.RoleUser, Text: "go"}, call, {Role: history.RoleTool, Result: first}}

	a, err := buildContents(msgs, &cache)
	if err != nil {
		t.Fatal(err)
	}
	b, err := buildContents(msgs, &cache)
	if err != nil {
		t.Fatal(err)
	}
	if a[2].Parts[0] != b[2].Parts[0] {
		t.Error("the same result was turned into a Part twice")
	}

	forked := append(msgs[:2:2], history.Message{Role: history.RoleTool, Result: &history.ToolResult{Name: "read_file", Content: "second", IsError: true}})
	c, err := buildContents(forked, &cache)
	if err != nil {
		t.Fatal(err)
	}
	got := c[2].Parts[0].FunctionResponse.Response
	if got["error"] != "second" || len(got) != 1 {
		t.Errorf("after the fork the result sent is %v, want error: second", got)
	}
	if still := a[2].Parts[0].FunctionResponse.Response["output"]; still != "first" {
		t.Errorf("the first branch's Part changed to %v", still)
	}
}
