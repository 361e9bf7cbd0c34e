package outside_test

import (
	"encoding/json"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// A what-if edit of an earlier message breaks the prompt cache exactly
// there: the tour on every dialect, its third call's context edited at
// message 3 (the first tool result) before it is sent. Without the edit
// the third call only appends.
func TestWhatIfBreaksTheCacheWhereTheEditIs(t *testing.T) {
	for _, d := range lessonDialects {
		for _, edit := range []bool{false, true} {
			name := d.name
			if edit {
				name += "/edited"
			}
			t.Run(name, func(t *testing.T) {
				isolate(t)
				calls := tourCalls(t, d.provider, d.mode, edit)
				if len(calls) != 3 {
					t.Fatalf("%d calls", len(calls))
				}
				ch := anatomy.Between(calls[1], calls[2])
				if !edit {
					if ch.BreaksAt != nil || ch.Changed.Parts != 0 || ch.Appended.Parts < 2 {
						t.Fatalf("an unedited call does not only append: %+v", ch)
					}
					return
				}
				if ch.BreaksAt == nil || ch.BreaksAt.Message != 2 || ch.BreaksAt.Kind != wire.KindToolResult {
					t.Fatalf("breaks at %+v, want message 3 (index 2), the tool result", ch.BreaksAt)
				}
				if ch.Changed.Parts != 1 || ch.Appended.Parts < 2 || ch.Kept.Parts < 3 {
					t.Fatalf("kept %+v changed %+v appended %+v", ch.Kept, ch.Changed, ch.Appended)
				}
			})
		}
	}
}

// tourCalls runs the tour and returns the anatomy of its model calls; with
// edit, the third call's first tool result is rewritten by what-if first.
func tourCalls(t *testing.T, provider, mode string, edit bool) []anatomy.Call {
	t.Helper()
	c := agentrun.Defaults(true)
	c.Provider, c.ToolMode, c.Offline, c.Lesson = provider, mode, true, "tour"
	r, err := agentrun.Open(t.Context(), c, person{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, _ := lessons.ByName("tour")
	eng := r.Engine
	eng.Submit(loop.Event{Source: "cli", Type: "user_input", Data: l.Request})
	var calls []anatomy.Call
	for first := true; first || !eng.Idle(); first = false {
		if edit && eng.State() == loop.AwaitingLLMResponse && eng.Iteration() == 3 {
			rewrite(t, eng)
		}
		tr, err := eng.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tr.Exchanges {
			a, ok, err := anatomy.FromExchange(backend.Wire(), x)
			if !ok || err != nil {
				t.Fatalf("%s not read: %v", x.URL, err)
			}
			calls = append(calls, a)
		}
	}
	return calls
}

// rewrite changes the first tool result of the context about to be sent.
func rewrite(t *testing.T, eng *loop.Engine) {
	t.Helper()
	data, err := eng.ExportContext()
	if err != nil {
		t.Fatal(err)
	}
	var ctx loop.EditableContext
	if err := json.Unmarshal(data, &ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Messages[2].Result == nil {
		t.Fatalf("message 3 is no tool result: %+v", ctx.Messages[2])
	}
	ctx.Messages[2].Result.Content += "\nsecret.txt"
	data, _ = json.Marshal(ctx)
	if err := eng.ReplaceContext(data); err != nil {
		t.Fatal(err)
	}
}
