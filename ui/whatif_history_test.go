package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
)

// After w adds a file to list_files' result, History shows what the model
// was really sent: the call that sent it is marked "edited before sending",
// with the result's changed lines.
func TestWhatIfEditShowsInHistory(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	script := `#!/bin/sh
sed -i '0,/hello\.py\\n/s//hello.py\\nplan.txt\\n/' "$1"
`
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
	h := newHarness(t, cfg, 160, 48)
	r := h.m.runs[0]
	h.press("enter")
	h.stepUntil(loop.RecordingResult) // list_files ran
	h.stepUntil(loop.AwaitingLLMResponse)
	before := r.hist.len()
	h.press("w")
	if r.edit == "" {
		t.Fatalf("no edit taken; notice %q", h.m.noticeText())
	}
	h.press("space")
	s := r.live.selected()
	if !s.t.Edited || s.t.Edit == nil {
		t.Fatalf("the call is not marked edited: %+v", s.t)
	}
	var edit *historyEntry
	for _, e := range r.hist.entries[before:] {
		if e.kind == entryEdit {
			edit = e
		}
	}
	if edit == nil {
		t.Fatal("History has no entry for the edit")
	}
	v := h.plainView()
	contains(t, v, "edited before sending")
	contains(t, v, "the result of list_files (message 3) changed:")
	contains(t, v, "+plan.txt")
	// Back before the edited call: History is as it was then.
	h.press("[")
	notContains(t, h.plainView(), "edited before sending")
}
