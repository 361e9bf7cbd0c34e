package glassbox

import (
	"context"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// F onto Llama promises "History says what could not" carry over: the
// engine's note on it is a History entry, shown, and not counted among the
// messages the model is sent.
func TestForkOntoNoteIsInHistory(t *testing.T) {
	cfg := compareWorld(t, "gemini")
	rc := &cfg.Runs[0]
	rc.Name, rc.Label = "", ""
	cfg.Dialects = []string{"gemini", "llama", "llama:native"}
	rc.Onto = func(ctx context.Context, dialect string) (loop.Onto, func(), error) {
		d, _ := backend.Lookup(dialect)
		b, err := backend.Choose(ctx, backend.Options{Dialect: d, Offline: true})
		if err != nil {
			return loop.Onto{}, nil, err
		}
		t.Cleanup(func() { b.Close() })
		return loop.Onto{Provider: b.Provider, Backend: b.Kind, BackendReason: b.Reason, Dialect: agentrun.LoopDialect(d)}, func() {}, nil
	}
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "space") // the model asked for a tool (Gemini, with a thought signature)
	r := h.m.runs[0]
	msgs := r.live.messages
	h.press("F", "1")
	contains(t, h.m.bar.noticeText(h.m.top()), "History says what could not")
	var note *historyEntry
	for _, e := range r.history.entries {
		if e.kind == entryNote && strings.Contains(e.text, "instead of Gemini") {
			note = e
		}
	}
	if note == nil {
		t.Fatal("History has no entry for the fork's note")
	}
	if !strings.Contains(note.text, "could not") {
		t.Fatalf("the note does not say what could not carry over: %q", note.text)
	}
	contains(t, h.plainView(), "instead of Gemini")
	if r.live.messages != msgs {
		t.Fatalf("the note was counted as a message sent: %d, was %d", r.live.messages, msgs)
	}
}
