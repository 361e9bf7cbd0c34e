package glassbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/tools"
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
	before := r.history.len()
	h.press("w")
	if r.edit == "" {
		t.Fatalf("no edit taken; notice %q", h.m.bar.noticeText(h.m.top()))
	}
	h.press("space")
	s := r.live.selected()
	if !s.t.Edited || s.t.Edit == nil {
		t.Fatalf("the call is not marked edited: %+v", s.t)
	}
	var edit *historyEntry
	for _, e := range r.history.entries[before:] {
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

// An edit that adds a message, sent, quit and resumed: the panes read the
// past back as they were — the same count of messages in the context and
// no message shown twice (the engine's history holds one message more than
// the steps added, which used to bring its last message back a second time).
func TestResumeAfterAnEditThatAddedAMessage(t *testing.T) {
	newEngine := func(ws *tools.Workspace, person *Person) loop.Config {
		prov, err := gemini.New(context.Background(), gemini.Config{
			APIKey: "glassbox-placeholder-key-0000", BaseURL: "http://gemini.offline.invalid/",
			Transport: backend.SimulatedTransport(offline.Config{Latency: 0}),
		})
		if err != nil {
			t.Fatal(err)
		}
		return loop.Config{Provider: prov, Backend: "offline", Person: person, Tools: tools.Default(ws, person, 0), Workspace: ws}
	}
	ws, dir := sampleWorkspace(t)
	person := NewPerson()
	eng, err := loop.New(newEngine(ws, person))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	sw, err := session.Create(path, session.Header{Glassbox: "test", Started: time.Now(),
		Runs: []session.RunInfo{{Provider: "gemini", Backend: "offline", Workspace: dir, MaxIterations: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	eng.SetJournal(loop.NewJournal(sw, "", dir))
	editor := filepath.Join(t.TempDir(), "editor.sh")
	script := `#!/bin/sh
sed -i 's/"messages": \[/"messages": [{"role": "user", "text": "Also mention plan.txt."},/' "$1"
`
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", editor)
	cfg := Config{Engine: eng, Person: person, Backend: "offline", Workspace: dir, Lessons: testLessons, Lesson: "tour", NoColor: true}
	h := newHarness(t, cfg, 160, 48)
	h.press("enter")
	h.stepUntil(loop.AwaitingLLMResponse)
	h.press("w", "c")
	r := h.m.runs[0]
	if r.live.state != loop.WaitingForEvent {
		t.Fatalf("the run stopped at %s: %q", r.live.state, h.m.bar.noticeText(h.m.top()))
	}
	if s := r.live.steps[2]; s.t.Edit == nil || s.t.Edit.Messages[0].Change != "added" {
		t.Fatalf("the first call carries no added message: %+v", s.t.Edit)
	}
	msgs, entries := r.live.messages, r.history.len()
	sw.Close()

	f, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	person = NewPerson()
	ws2, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, _, err = loop.Resume(newEngine(ws2, person), rl, nil)
	if err != nil {
		t.Fatal(err)
	}
	past, err := loop.SessionTransitions(path, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg = Config{Runs: []RunConfig{{Engine: eng, Person: person, Backend: "offline", Workspace: dir, Past: past}}, Lessons: testLessons, Lesson: "tour", NoColor: true}
	h = newHarness(t, cfg, 160, 48)
	r = h.m.runs[0]
	if r.live.messages != msgs {
		t.Errorf("resumed: the context holds %d messages, it held %d", r.live.messages, msgs)
	}
	// The resumed History adds one note ("resumed: …") to what was there.
	if got := r.history.len(); got != entries+1 {
		t.Errorf("resumed: %d History entries, %d before quitting (+1 for the resume note)", got, entries)
	}
}
