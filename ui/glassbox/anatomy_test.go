package glassbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/wire"
	"github.com/glassbox-dev/glassbox/tools"
)

// callAnatomies are run r's model call steps and what each knows of its
// request, in order.
func callAnatomies(t *testing.T, r *runView) []*callAnatomy {
	t.Helper()
	var out []*callAnatomy
	for i := range r.live.steps {
		s := &r.live.steps[i]
		if (s.t.LLM != nil) != (s.anat != nil) {
			t.Fatalf("step #%d (%s): a model call %v, an anatomy %v", s.t.Seq, s.t.Edge, s.t.LLM != nil, s.anat != nil)
		}
		if s.anat != nil {
			out = append(out, s.anat)
		}
	}
	return out
}

// Every model call of the tour keeps its request's anatomy with its step:
// the kinds add up to the body, the tokens say where they come from (the
// simulation's count says it is no tokenizer's), and each call after the
// first kept the one before and appended the model's call and its result.
func TestEveryModelCallKeepsItsAnatomy(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "c")
	r := h.m.runs[0]
	calls := callAnatomies(t, r)
	if len(calls) != 3 {
		t.Fatalf("%d calls with an anatomy", len(calls))
	}
	for i, a := range calls {
		c := a.rec.Call
		sum := 0
		for _, k := range c.Kinds {
			sum += k.Bytes
		}
		if a.unread != "" || c.Bytes == 0 || sum != c.Bytes || c.Parts != nil {
			t.Fatalf("call %d: %+v", i+1, a)
		}
		if c.Estimated.Source != anatomy.Estimated || c.Reported == nil || c.Reported.Source != anatomy.Reported || c.Reported.Rule != anatomy.SimulatedRule {
			t.Fatalf("call %d: tokens %+v, reported %+v", i+1, c.Estimated, c.Reported)
		}
		switch since := a.rec.Since; {
		case i == 0 && (since != nil || a.missing):
			t.Fatalf("the first call compares with %+v", since)
		case i > 0 && (since == nil || since.Kept.Parts == 0 || since.Appended.Parts != 2 || since.BreaksAt != nil):
			t.Fatalf("call %d since the one before: %+v", i+1, since)
		}
	}
}

// A fork goes back to a step: the next call is compared with the call
// before it on the run's own line, not with the last call of the branch
// the fork left behind (which was the same request, and would say that
// nothing was appended).
func TestAnatomyAfterAForkComparesWithItsOwnLine(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "c")
	r := h.m.runs[0]
	second := r.live.callSteps()[1]
	for r.live.selectedIndex() != second {
		h.press("[")
	}
	h.press("f")
	if !r.live.steps[len(r.live.steps)-1].t.Time.Equal(r.live.steps[second].t.Time) || len(r.branches) != 1 {
		t.Fatalf("no fork at step #%d: %q", r.live.steps[second].t.Seq, h.m.bar.noticeText(h.m.top()))
	}
	h.press("c")
	calls := callAnatomies(t, r)
	if len(calls) != 3 {
		t.Fatalf("%d calls after the fork", len(calls))
	}
	if since := calls[2].rec.Since; since == nil || since.Appended.Parts != 2 || since.BreaksAt != nil {
		t.Fatalf("the call after the fork, since the one before: %+v", since)
	}
}

// A resumed session's past calls are read back from the session file in a
// command, as the glass box starts: each with its anatomy and what it kept
// from the call before; the next call is compared with the last of them.
func TestResumedRunReadsThePastAnatomy(t *testing.T) {
	cfg, dir := offlineWorld(t, "tour")
	eng := cfg.Engine
	path := filepath.Join(t.TempDir(), "s.jsonl")
	sw, err := session.Create(path, session.Header{Glassbox: "test", Started: time.Now(),
		Runs: []session.RunInfo{{Provider: "gemini", Backend: "offline", Workspace: dir, MaxIterations: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	eng.SetJournal(loop.NewJournal(sw, "", dir))
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "c")
	want := callAnatomies(t, h.m.runs[0])
	sw.Close()

	f, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	past, err := loop.SessionTransitions(path, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	reader := loop.NewExchangeReader(path, 0)
	load := func(t *loop.Transition) ([]providers.Exchange, error) { return reader.LoadAt(*t.ExchangesAt) }
	next, _ := offlineWorld(t, "tour")
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	resumed, _, err := loop.Resume(loop.Config{Provider: next.Engine.Provider(), Backend: "offline", Person: next.Person, Tools: tools.Default(ws, next.Person, 0), Workspace: ws}, rl, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg = Config{Runs: []RunConfig{{Engine: resumed, Person: next.Person, Backend: "offline", Workspace: dir, Past: past, Exchanges: load}}, Lessons: testLessons, Lesson: "tour", NoColor: true}
	h = newHarness(t, cfg, 120, 34)
	r := h.m.runs[0]
	for i := range r.live.steps {
		if r.live.steps[i].anat != nil {
			t.Fatal("a past call has its anatomy before it was read back")
		}
	}
	h.send(h.m.Init()())
	got := callAnatomies(t, r)
	if len(got) != len(want) {
		t.Fatalf("%d past calls read back, %d made", len(got), len(want))
	}
	for i := range got {
		if got[i].rec.Bytes != want[i].rec.Bytes || got[i].rec.Estimated != want[i].rec.Estimated || (got[i].rec.Since == nil) != (i == 0) || got[i].missing {
			t.Fatalf("call %d read back: %+v, made: %+v", i+1, got[i], want[i])
		}
	}
	if r.live.book.last == nil || r.live.book.lastSeq != past[len(past)-1].Seq-1 {
		t.Fatalf("the book keeps step #%d's call to compare the next with", r.live.book.lastSeq)
	}
}

// A what-if edit of an earlier message breaks the prompt cache exactly
// there: the tour's first tool result (message 3) edited before the third
// call, that call kept the two messages before it and breaks at message 3.
func TestWhatIfEditBreaksTheCacheWhereItChangedHistory(t *testing.T) {
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
	h := newHarness(t, cfg, 120, 34)
	r := h.m.runs[0]
	h.press("enter")
	for len(r.live.callSteps()) < 2 || r.live.state != loop.AwaitingLLMResponse {
		h.press("space")
	}
	h.press("w", "space")
	if s := r.live.selected(); !s.t.Edited || s.anat == nil {
		t.Fatalf("the third call was not sent edited: %+v", s.t)
	}
	since := r.live.selected().anat.rec.Since
	if since == nil || since.BreaksAt == nil || since.BreaksAt.Message != 2 || since.BreaksAt.Kind != wire.KindToolResult {
		t.Fatalf("the cache breaks at %+v, want message 3 (tool_result)", since)
	}
	// Kept: the system prompt, the five tools, the first two messages.
	if since.Kept.Parts != 1+5+2 || since.Changed.Parts == 0 {
		t.Fatalf("kept %+v, changed %+v", since.Kept, since.Changed)
	}
}
