package telemetry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
)

// One text part is cut at 16 KiB on a character boundary, the JSON kept
// whole, with a note of what was cut.
func TestContentPartIsCut(t *testing.T) {
	tr := &tracker{e: &Exporter{}, mask: (&Exporter{}).masker(nil)}
	long := strings.Repeat("あ", maxPartBytes) // 3 bytes each
	out := tr.messagesJSON([]history.Message{{Role: history.RoleTool, Result: &history.ToolResult{CallID: "c1", Content: long}}})
	var msgs []chatMessage
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	got := *msgs[0].Parts[0].Response
	if len(got) > maxPartBytes+64 || !strings.HasSuffix(got, "bytes cut]") || !strings.HasPrefix(got, "あああ") {
		t.Errorf("cut part: %d bytes, ends %q", len(got), got[len(got)-30:])
	}
	if msgs[0].Parts[0].Type != "tool_call_response" || msgs[0].Parts[0].ID != "c1" {
		t.Errorf("part = %+v", msgs[0].Parts[0])
	}
}
