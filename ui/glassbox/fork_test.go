package glassbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// A stepping key while a past step is shown never steps silently: it comes
// back to the present, says so, and the next press steps.
func TestStepKeyInThePastReturnsToThePresent(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "space", "space", "space", "space", "space", "space")
	r := h.m.runs[0]
	h.press("[", "[", "[")
	if !r.live.travelling() {
		t.Fatal("not in the past")
	}
	contains(t, h.plainView(), "◀ step 3/6 · f forks")
	contains(t, h.plainView(), "viewing step 3 of 6 — ] returns, f forks from here")
	h.press("space")
	if r.live.travelling() || len(r.live.steps) != 6 {
		t.Fatalf("travelling=%v, %d steps: space stepped from the past", r.live.travelling(), len(r.live.steps))
	}
	contains(t, h.plainView(), "back to the present, nothing stepped")
	h.press("space")
	if len(r.live.steps) != 7 {
		t.Fatalf("%d steps after the second space", len(r.live.steps))
	}
}

// journalled attaches a session journal to the world's engine, so forks
// can put files back.
func journalled(t *testing.T, w *testWorld) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	sw, err := session.Create(path, session.Header{Glassbox: "test", Started: time.Now(),
		Runs: []session.RunInfo{{Provider: "gemini", Backend: "offline", Workspace: w.dir, MaxIterations: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sw.Close() })
	w.eng.SetJournal(loop.NewJournal(sw, "", w.dir))
	return path
}

// The "done when": six steps, [ three times, f: the run continues
// from step 3 with step 3's files — a file a later step wrote is gone.
func TestForkHereRestoresTheFilesOfThatStep(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	journalled(t, w)
	todo := filepath.Join(w.dir, "notes", "todo.txt")
	before := readFile(t, todo)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")
	h.press("enter", "space", "space", "space", "space") // … CHECKING_POLICY → AWAITING_USER_CONFIRMATION
	r := h.m.runs[0]
	for i := 0; i < 5 && r.confirm == nil; i++ {
		h.press("space")
	}
	if r.confirm == nil {
		t.Fatalf("no confirmation; states %v", h.states())
	}
	h.press("y")     // EXECUTING_TOOL: the file is written
	h.press("space") // RECORDING_RESULT
	if got := readFile(t, todo); got != "- buy milk\n" {
		t.Fatalf("the write did not happen: %q (states %v)", got, h.states())
	}
	n := len(r.live.steps)
	for r.live.selectedIndex() > 2 {
		h.press("[")
	}
	forkSeq := r.live.selected().t.Seq
	h.press("f")
	if isOpen[*forkQuestion](h.m) {
		t.Fatalf("asked: %s", must(opened[*forkQuestion](&h.m.stack)).reason)
	}
	if got := readFile(t, todo); got != before {
		t.Fatalf("after the fork the file is %q, want it as it was at step 3: %q", got, before)
	}
	if len(r.live.steps) != 3 || r.live.travelling() || w.eng.Seq() != forkSeq {
		t.Fatalf("steps %d (was %d), travelling %v, engine at %d want %d", len(r.live.steps), n, r.live.travelling(), w.eng.Seq(), forkSeq)
	}
	if r.live.state != w.eng.State() {
		t.Fatalf("the panes say %s, the engine %s", r.live.state, w.eng.State())
	}
	v := h.plainView()
	contains(t, v, "forked at step #3")
	contains(t, v, "forked: the later steps are abandoned")
	// The run goes on from there.
	h.press("space")
	if len(r.live.steps) != 4 || r.live.steps[3].t.Seq != forkSeq+1 {
		t.Fatalf("stepping after the fork: %d steps", len(r.live.steps))
	}
}

// Without a session the files cannot be put back: f asks, n leaves
// everything as it was, y forks keeping today's files.
func TestForkAsksWhenTheFilesCannotGoBack(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")
	h.press("enter", "c")
	r := h.m.runs[0]
	if r.confirm == nil {
		t.Fatal("no confirmation")
	}
	h.press("y", "c")
	n := len(r.live.steps)
	h.press("esc", "[", "[", "[", "[", "[", "[", "[")
	h.press("f")
	if !isOpen[*forkQuestion](h.m) {
		t.Fatal("f did not ask although the files cannot be restored")
	}
	contains(t, h.plainView(), "Fork: the files cannot go back")
	h.press("n")
	if isOpen[*forkQuestion](h.m) || len(r.live.steps) != n {
		t.Fatal("n changed something")
	}
	h.press("f", "y")
	if len(r.live.steps) >= n || r.live.travelling() {
		t.Fatalf("y did not fork: %d steps of %d", len(r.live.steps), n)
	}
	contains(t, h.plainView(), "files were kept as they are now")
}

// What-if with a scripted editor: the edited context is what goes out, the
// pane shows what changed, and the record is marked edited; an invalid edit
// leaves the original.
func TestWhatIfSendsTheEditedContext(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	script := "#!/bin/sh\nsed -i 's/Give me a tour of this project/WHAT IF: only list the files/' \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space")
	r := h.m.runs[0]
	if r.live.state != loop.AwaitingLLMResponse {
		t.Fatalf("state %s", r.live.state)
	}
	h.press("w")
	if r.edit == "" {
		t.Fatalf("no edit recorded; notice %q", h.m.bar.noticeText(h.m.top()))
	}
	v := h.plainView()
	contains(t, v, "edited (what-if)")
	contains(t, v, "WHAT IF: only list the files")
	if pre := r.live.selected().preview; pre == nil || !strings.Contains(string(pre.ex.RequestBody), "WHAT IF") {
		t.Fatal("the preview was not built again from the edit")
	}
	h.press("space")
	s := r.live.selected()
	if len(s.t.Exchanges) == 0 || !strings.Contains(string(s.t.Exchanges[0].RequestBody), "WHAT IF: only list the files") {
		t.Fatal("the edited context was not sent")
	}
	if !s.t.Edited {
		t.Fatal("the transition is not marked edited")
	}
}

func TestWhatIfInvalidEditKeepsTheOriginal(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho '{not json' > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", editor)
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "w")
	r := h.m.runs[0]
	if r.edit != "" {
		t.Fatal("an invalid edit was taken")
	}
	contains(t, h.m.bar.noticeText(h.m.top()), "not valid JSON")
	contains(t, h.m.bar.noticeText(h.m.top()), "nothing was changed")
	h.press("space")
	if s := r.live.selected(); s.t.Edited || !strings.Contains(string(s.t.Exchanges[0].RequestBody), "Give me a tour") {
		t.Fatal("the original context was not the one sent")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// F forks onto another dialect: from the present of a Gemini run, the next
// model call goes to Llama (JSON mode) through the Ollama client, with the
// conversation carried over and a note on what could not be.
func TestForkOntoAnotherDialect(t *testing.T) {
	cfg := compareWorld(t, "gemini")
	rc := &cfg.Runs[0]
	rc.Name, rc.Label = "", "" // a single run
	cfg.Dialects = []string{"gemini", "llama", "llama:native"}
	var chosen []*backend.Backend
	rc.Onto = func(ctx context.Context, dialect string) (loop.Onto, func(), error) {
		d, _ := backend.Lookup(dialect)
		b, err := backend.Choose(ctx, backend.Options{Dialect: d, Offline: true})
		if err != nil {
			return loop.Onto{}, nil, err
		}
		t.Cleanup(func() { b.Close() })
		return loop.Onto{Provider: b.Provider, Backend: b.Kind, BackendReason: b.Reason, Dialect: agentrun.LoopDialect(d)},
			func() { chosen = append(chosen, b) }, nil
	}
	cfg.Runs = cfg.Runs[:1]
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "space", "space", "space", "space") // through the first tool call
	r := h.m.runs[0]
	steps := len(r.live.steps)
	h.press("F")
	if !isOpen[*ontoMenu](h.m) {
		t.Fatalf("F opened nothing: %q", h.m.bar.noticeText(h.m.top()))
	}
	v := h.plainView()
	contains(t, v, "Fork onto another dialect")
	contains(t, v, "1) llama")
	contains(t, v, "2) llama:native")
	h.press("1")
	if len(chosen) != 1 || r.provider != "llama" {
		t.Fatalf("not switched: provider %s, %d chosen; notice %q", r.provider, len(chosen), h.m.bar.noticeText(h.m.top()))
	}
	if len(r.live.steps) != steps {
		t.Fatalf("a fork from the present dropped steps: %d of %d", len(r.live.steps), steps)
	}
	contains(t, h.plainView(), "the run continues with llama")
	for i := 0; i < 20 && r.live.state != loop.AwaitingLLMResponse; i++ {
		h.press("space")
	}
	// The note is in History, not in what the model is sent.
	hist := r.eng.History()
	notes := 0
	for _, m := range hist {
		if m.Role == history.RoleNote {
			notes++
		}
	}
	if notes != 1 || r.live.messages != len(hist)-1 {
		t.Fatalf("the context counts %d messages; the history holds %d, %d of them notes", r.live.messages, len(hist), notes)
	}
	contains(t, h.plainView(), fmt.Sprintf("context %d msgs", len(hist)-1))
	h.press("space")
	s := r.live.selected()
	if len(s.t.Exchanges) == 0 || !strings.Contains(s.t.Exchanges[0].URL, "/api/chat") {
		t.Fatalf("the next model call did not go to Ollama: %+v", s.t.LLM)
	}
	if s.t.LLM.Provider != "llama" {
		t.Fatalf("provider %s", s.t.LLM.Provider)
	}
}

// A mid-event: the event in progress is dropped, its write undone, the
// request queued behind it is next, and History no longer shows its steps.
func TestAbandonTheEventInProgress(t *testing.T) {
	w := newWorld(t, append(writeScriptReplies(), reply{text: "listed"})...)
	journalled(t, w)
	todo := filepath.Join(w.dir, "notes", "todo.txt")
	before := readFile(t, todo)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")
	h.press("enter")
	r := h.m.runs[0]
	for i := 0; i < 10 && r.confirm == nil; i++ {
		h.press("space")
	}
	if r.confirm == nil {
		t.Fatal("no confirmation")
	}
	h.press("y", "space") // approved, then the write happens
	if readFile(t, todo) == before || r.live.state != loop.RecordingResult {
		t.Fatalf("the write did not happen (state %s)", r.live.state)
	}
	h.press("/")
	h.typeText("just list the files")
	h.press("enter")
	contains(t, h.plainView(), "A abandons it")
	h.press("A")
	if r.live.state != loop.WaitingForEvent || len(r.live.steps) != 0 || r.live.queued != 1 {
		t.Fatalf("after A: state %s, %d steps, %d queued", r.live.state, len(r.live.steps), r.live.queued)
	}
	if got := readFile(t, todo); got != before {
		t.Fatalf("the abandoned event's write is still there: %q", got)
	}
	v := h.plainView()
	contains(t, v, "event abandoned")
	notContains(t, v, "buy milk")
	h.press("space")
	if s := r.live.selected(); s == nil || s.t.Event == nil || s.t.Event.Data != "just list the files" {
		t.Fatalf("the next event is not the queued request: %+v", s)
	}
}

// The steps a fork left behind stay viewable: B shows the abandoned branch
// in place of the run's line (read only), and a step key comes back.
func TestAbandonedBranchStaysViewable(t *testing.T) {
	w := newWorld(t, tourScript()...)
	journalled(t, w)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "c")
	r := h.m.runs[0]
	n := len(r.live.steps)
	if n < 10 || !strings.Contains(h.plainView(), "hello.py prints a greeting") {
		t.Fatalf("the tour did not finish: %d steps", n)
	}
	for r.live.selectedIndex() > 2 {
		h.press("[")
	}
	h.press("f")
	if len(r.live.steps) != 3 {
		t.Fatalf("after the fork: %d steps", len(r.live.steps))
	}
	notContains(t, h.plainView(), "hello.py prints a greeting")
	h.press("B")
	if r.viewing == nil || len(r.live.steps) != n {
		t.Fatalf("B: viewing %v, %d steps (want %d)", r.viewing != nil, len(r.live.steps), n)
	}
	v := h.plainView()
	contains(t, v, "abandoned branch")
	contains(t, v, "hello.py prints a greeting") // the answer the branch reached
	h.press("f")                                 // not from a branch
	if len(r.live.steps) != n || r.viewing == nil {
		t.Fatal("f acted on the branch")
	}
	contains(t, h.plainView(), "this is an abandoned branch")
	h.press("space") // comes back; takes no step
	if r.viewing != nil || len(r.live.steps) != 3 || w.eng.Seq() != 3 {
		t.Fatalf("after space: viewing %v, %d steps, engine at %d", r.viewing != nil, len(r.live.steps), w.eng.Seq())
	}
	h.press("space")
	if len(r.live.steps) != 4 {
		t.Fatalf("the run did not go on from the fork: %d steps", len(r.live.steps))
	}
}
