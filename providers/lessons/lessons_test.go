package lessons

import (
	"slices"
	"strings"
	"testing"
)

func TestCatalogue(t *testing.T) {
	want := []string{"tour", "write-file", "run-command", "ask-delete", "path-escape", "malformed",
		"tool-failure", "parallel", "iteration-limit", "rate-limit", "outage", "token-limit", "repeat-stop", "unknown-model", "mcp-tool", "mcp-bus", "streams"}
	var names []string
	requests := map[string]bool{}
	for _, l := range All() {
		names = append(names, l.Name)
		if l.Title == "" || l.Request == "" || l.TitleJA == "" || l.RequestJA == "" {
			t.Errorf("lesson %q needs a title and a request in both languages", l.Name)
		}
		for _, r := range []string{requestKey(l.Request), requestKey(l.RequestJA)} {
			if requests[r] {
				t.Errorf("lesson %q repeats another lesson's request", l.Name)
			}
			requests[r] = true
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("lessons = %q, want %q", names, want)
	}
	if l, ok := ByName(MCPTool); !ok || l.Name != MCPTool {
		t.Errorf("ByName(%q) = %q, %v", MCPTool, l.Name, ok)
	}
	if _, ok := ByName("no-such-lesson"); ok {
		t.Error("ByName found a lesson that does not exist")
	}
	l, _ := ByName("tour")
	for _, req := range []string{"  give me a TOUR of this project: list the files, then explain what hello.py does.  ", "tour", l.RequestJA, strings.TrimSuffix(l.RequestJA, "。")} {
		if got, ok := ForRequest(req); !ok || got.Name != "tour" {
			t.Errorf("ForRequest(%q) = %q, %v", req, got.Name, ok)
		}
	}
	if _, ok := ForRequest("   "); ok {
		t.Error("an empty request started a lesson")
	}
}
