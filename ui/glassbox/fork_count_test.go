package glassbox

import (
	"strings"
	"testing"
)

// A fork that abandons one step says so in the singular: "the 1 later step
// is abandoned" (it said "the 1 later step are abandoned").
func TestForkNoteAgreesWithOneStep(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	journalled(t, w)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")
	h.press("enter", "space", "space", "[", "f")
	if isOpen[*forkQuestion](h.m) {
		t.Fatalf("asked: %s", must(opened[*forkQuestion](&h.m.stack)).reason)
	}
	var notes []string
	for _, e := range h.m.runs[0].history.entries {
		if e.kind == entryNote {
			notes = append(notes, e.text)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "the 1 later step is abandoned") {
		t.Fatalf("no singular fork note in %q", notes)
	}
}
