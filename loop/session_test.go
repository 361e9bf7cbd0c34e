package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/tools"
)

// sessionRig is an engine with real tools on a real workspace, writing a
// session file.
type sessionRig struct {
	dir, path string
	key       *session.Key // this user's sealing key
	ws        *tools.Workspace
	w         *session.Writer
	provider  *scriptedProvider
	person    *scriptedPerson
	engine    *Engine
}

func newSessionRig(t *testing.T, replies ...reply) *sessionRig {
	t.Helper()
	r := &sessionRig{dir: t.TempDir(), provider: &scriptedProvider{replies: replies}, person: &scriptedPerson{}}
	wsDir := filepath.Join(r.dir, "ws")
	if err := os.Mkdir(wsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wsDir, "notes.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if r.ws, err = tools.NewWorkspace(wsDir); err != nil {
		t.Fatal(err)
	}
	r.path = filepath.Join(r.dir, "s.jsonl")
	r.w, err = session.Create(r.path, session.Header{Glassbox: "test", Started: time.Now(),
		Runs: []session.RunInfo{{Provider: "fake", Backend: "offline", Workspace: wsDir, MaxIterations: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.key, err = session.LoadKey(filepath.Join(r.dir, "state")); err != nil {
		t.Fatal(err)
	}
	r.w.Guard(r.key, nil)
	r.engine = r.newEngine(t)
	r.engine.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	return r
}

func (r *sessionRig) config() Config {
	return Config{Provider: r.provider, Tools: tools.Default(r.ws, r.person, 0), Workspace: r.ws, Person: r.person,
		Backend: "offline", Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
}

func (r *sessionRig) newEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(r.config())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// stepUntil steps until the engine is in state, or idle.
func stepUntil(t *testing.T, e *Engine, state State) []Transition {
	t.Helper()
	var ts []Transition
	for i := 0; i < 100 && e.State() != state; i++ {
		tr, err := e.Step(context.Background())
		if errors.Is(err, ErrIdle) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tr)
	}
	return ts
}

// reopen closes the session as a quit (or crash) would and resumes it.
func (r *sessionRig) reopen(t *testing.T) (*Engine, string) {
	t.Helper()
	r.w.Close()
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	if r.w, err = session.Append(f); err != nil {
		t.Fatal(err)
	}
	r.w.Guard(r.key, nil)
	e, recovery, err := Resume(r.config(), rl, NewJournal(r.w, "", r.ws.Root()))
	if err != nil {
		t.Fatal(err)
	}
	r.engine = e
	return e, recovery
}

func writeCall(path, content string) history.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return history.ToolCall{Name: "write_file", Args: args}
}

func TestResumeContinuesExactly(t *testing.T) {
	script := []reply{calls(writeCall("a.txt", "A")), calls(writeCall("a.txt", "A")), text("done")}
	// The same run without a break, for comparison.
	whole := newSessionRig(t, script...)
	whole.person.approvals = []Approval{AllowSession}
	whole.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write a"})
	stepUntil(t, whole.engine, "")

	r := newSessionRig(t, script...)
	r.person.approvals = []Approval{AllowSession}
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write a"})
	stepUntil(t, r.engine, RecordingResult)
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "typed while busy"})
	before := r.engine.checkpoint()

	e, recovery := r.reopen(t)
	if recovery != "" {
		t.Fatalf("a clean stop reports a recovery: %s", recovery)
	}
	after := e.checkpoint()
	if before.Seq != after.Seq || before.State != after.State || before.Iteration != after.Iteration ||
		before.HistoryLen != after.HistoryLen || before.Taken != after.Taken || len(after.Grants) != 1 {
		t.Fatalf("resumed at %+v, stopped at %+v", after, before)
	}
	if e.QueueLen() != 1 {
		t.Fatalf("the event typed while busy is not queued after resume (queue %d)", e.QueueLen())
	}
	// The second identical write is allowed by the session grant, with no
	// question: the grant came back.
	ts := stepUntil(t, e, DeliveringOutput)
	for _, tr := range ts {
		if tr.Edge == EdgeConfirmRequired {
			t.Fatal("the session grant was lost on resume")
		}
	}
	stepUntil(t, e, "")
	n := len(whole.engine.History())
	if got := e.History(); len(got) < n || got[n-1].Text != whole.engine.History()[n-1].Text {
		t.Fatalf("resumed history differs from the whole run's")
	}
	// The file reads back as the engine is now.
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	if len(rl.Steps) != e.Seq() || len(rl.Messages) != len(e.History()) {
		t.Fatalf("file has %d steps, %d messages; engine %d, %d", len(rl.Steps), len(rl.Messages), e.Seq(), len(e.History()))
	}
	trs, err := SessionTransitions(r.path, rl, true)
	if err != nil || len(trs) != e.Seq() || trs[2].Edge != EdgeToolCall {
		t.Fatalf("transitions: %v, %d", err, len(trs))
	}
}

func readFile(t *testing.T, r *sessionRig, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.ws.Root(), name))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func TestForkRestoresTheFiles(t *testing.T) {
	r := newSessionRig(t, calls(writeCall("notes.txt", "changed\n"), writeCall("new/b.txt", "B")), text("done"), text("forked"))
	r.person.approvals = []Approval{AllowOnce, AllowOnce}
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write"})
	ts := stepUntil(t, r.engine, CheckingPolicy) // the model asked; nothing written yet
	k := ts[len(ts)-1].Seq
	stepUntil(t, r.engine, "")
	if s, _ := readFile(t, r, "notes.txt"); s != "changed\n" {
		t.Fatalf("the write did not happen: %q", s)
	}
	if err := r.engine.Fork(k); err != nil {
		t.Fatal(err)
	}
	if s, _ := readFile(t, r, "notes.txt"); s != "original\n" {
		t.Fatalf("after the fork notes.txt = %q, want the original", s)
	}
	if _, ok := readFile(t, r, "new/b.txt"); ok {
		t.Fatal("a file written after the fork point is still there")
	}
	if _, err := os.Stat(filepath.Join(r.ws.Root(), "new")); !os.IsNotExist(err) {
		t.Fatalf("the folder made after the fork point is still there (%v)", err)
	}
	if r.engine.State() != CheckingPolicy || r.engine.Seq() != k || len(r.engine.History()) != 2 {
		t.Fatalf("after fork: %s seq %d, %d messages", r.engine.State(), r.engine.Seq(), len(r.engine.History()))
	}
	// The session reads back as the fork left it, the old branch kept.
	e, _ := r.reopen(t)
	if e.Seq() != k || e.State() != CheckingPolicy {
		t.Fatalf("resumed fork at %d %s", e.Seq(), e.State())
	}
	f, _ := session.Read(r.path)
	if rl, _ := f.Run(""); len(rl.Branches) != 1 {
		t.Fatalf("the abandoned branch is not kept: %d", len(rl.Branches))
	}
	// Going on from the fork writes again, and a fork back again restores again.
	r.person.approvals = []Approval{AllowOnce, AllowOnce}
	r.provider.replies = append(r.provider.replies[:2], text("again"))
	stepUntil(t, e, "")
	if s, _ := readFile(t, r, "notes.txt"); s != "changed\n" {
		t.Fatalf("the forked run did not write: %q", s)
	}
	if err := e.Fork(k); err != nil {
		t.Fatal(err)
	}
	if s, _ := readFile(t, r, "notes.txt"); s != "original\n" {
		t.Fatalf("after the second fork notes.txt = %q", s)
	}
}

func TestForkPastTheSizeLimitIsRefused(t *testing.T) {
	r := newSessionRig(t, calls(writeCall("a.txt", "A")), text("done"))
	r.person.approvals = []Approval{AllowOnce}
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write"})
	stepUntil(t, r.engine, ExecutingTool)
	big := make([]byte, SnapshotMaxBytes+1)
	if err := os.WriteFile(filepath.Join(r.ws.Root(), "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	stepUntil(t, r.engine, "")
	err := r.engine.Fork(1)
	var we *WorkspaceError
	if !errors.As(err, &we) || !errors.Is(err, ErrWorkspaceNotRestorable) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v, want a WorkspaceError naming the size", err)
	}
	if r.engine.State() != WaitingForEvent {
		t.Fatal("a refused fork changed the engine")
	}
	if err := r.engine.ForkKeepingFiles(1); err != nil || r.engine.Seq() != 1 {
		t.Fatalf("ForkKeepingFiles: %v", err)
	}
	if s, _ := readFile(t, r, "a.txt"); s != "A" {
		t.Fatal("ForkKeepingFiles touched the files")
	}
}

func TestCrashInAToolIsRecordedAsInterrupted(t *testing.T) {
	r := newSessionRig(t, calls(writeCall("notes.txt", "half\n")), text("went on"))
	r.person.approvals = []Approval{AllowOnce}
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write"})
	stepUntil(t, r.engine, ExecutingTool)
	// The step begins, the tool changes the file, and the process dies
	// before the step ends.
	r.engine.journal.begin(r.engine)
	if err := os.WriteFile(filepath.Join(r.ws.Root(), "notes.txt"), []byte("half\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, recovery := r.reopen(t)
	if !strings.Contains(recovery, "interrupted while write_file ran") {
		t.Fatalf("recovery = %q", recovery)
	}
	tr, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Edge != EdgeToolFailure || tr.Error == nil || tr.Error.Kind != "interrupted" || !strings.Contains(tr.Result.Content, "may have done part or all") {
		t.Fatalf("recovered step = %s %+v", tr.Edge, tr.Error)
	}
	stepUntil(t, e, "")
	if e.History()[len(e.History())-1].Text != "went on" {
		t.Fatal("the loop did not go on after the interrupted tool")
	}
	// What the interrupted tool changed is known: a fork puts it back.
	if err := e.Fork(4); err != nil {
		t.Fatal(err)
	}
	if s, _ := readFile(t, r, "notes.txt"); s != "original\n" {
		t.Fatalf("after the fork notes.txt = %q", s)
	}
}

func TestCrashInAModelCallSendsItAgain(t *testing.T) {
	r := newSessionRig(t, text("first"))
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "hi"})
	stepUntil(t, r.engine, AwaitingLLMResponse)
	r.engine.journal.begin(r.engine)
	e, recovery := r.reopen(t)
	if !strings.Contains(recovery, "sent again") {
		t.Fatalf("recovery = %q", recovery)
	}
	tr, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr.LLM == nil || !tr.LLM.Resent || r.provider.calls != 1 {
		t.Fatalf("the call was not re-sent: %+v, %d calls", tr.LLM, r.provider.calls)
	}
}

func TestWhatIfReplacesTheContext(t *testing.T) {
	r := newSessionRig(t, calls(history.ToolCall{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}), text("ok"))
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	if _, err := r.engine.ExportContext(); !errors.Is(err, ErrNotAssembled) {
		t.Fatalf("export before assembling: %v", err)
	}
	stepUntil(t, r.engine, RecordingResult)
	stepUntil(t, r.engine, AwaitingLLMResponse)
	data, err := r.engine.ExportContext()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ edit, says string }{
		{"{", "not valid JSON"},
		{strings.Replace(string(data), `"role": "tool"`, `"role": "robot"`, 1), `role "robot"`},
		{strings.Replace(string(data), `"name": "list_files"`, `"name": "list_all"`, 1), "tool definitions cannot be edited"},
	} {
		err := r.engine.ReplaceContext([]byte(bad.edit))
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), bad.says) {
			t.Fatalf("edit %q: err = %v", bad.says, err)
		}
	}
	if r.engine.Edited() {
		t.Fatal("a refused edit marked the context edited")
	}
	edited := strings.Replace(string(data), "original", "what if it said this", 1)
	if edited == string(data) {
		t.Fatal("the tool result is not in the exported context")
	}
	if err := r.engine.ReplaceContext([]byte(edited)); err != nil {
		t.Fatal(err)
	}
	tr, err := r.engine.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Edited {
		t.Fatal("the transition that sent the edited context is not marked edited")
	}
	sent := r.provider.seen[len(r.provider.seen)-1]
	if got := sent.Messages[2].Result.Content; !strings.Contains(got, "what if it said this") {
		t.Fatalf("the provider got %q", got)
	}
	line, _ := json.Marshal(tr)
	if !strings.Contains(string(line), `"edited":true`) {
		t.Fatalf("trace line %s", line)
	}
	// The edit is in the session: resume sees the edited conversation.
	e, _ := r.reopen(t)
	if !strings.Contains(e.History()[2].Result.Content, "what if it said this") {
		t.Fatal("the edit was not saved")
	}
}

// nativeProvider answers like Gemini: each reply keeps its own encoding.
type nativeProvider struct {
	scriptedProvider
	name string
}

func (p *nativeProvider) Name() string { return p.name }

func TestForkOntoAnotherDialect(t *testing.T) {
	gem := &nativeProvider{name: "gemini"}
	gem.replies = []reply{{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant,
		ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
		Native:    &history.Native{Provider: "gemini", Data: json.RawMessage(`{"parts":[{"functionCall":{"name":"read_file"},"thoughtSignature":"c2ln"}]}`)}}}}}
	r := newSessionRig(t)
	cfg := r.config()
	cfg.Provider = gem
	cfg.Dialect = Dialect{Label: "Gemini", Native: "gemini", Dropped: gemini.Dialects()[0].Dropped}
	var forks []ForkRecord
	cfg.OnFork = func(f ForkRecord) { forks = append(forks, f) }
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	stepUntil(t, e, CheckingPolicy)
	stepUntil(t, e, AwaitingLLMResponse) // the next iteration, assembled
	k := e.Seq()

	llama := &nativeProvider{name: "llama"}
	llama.replies = []reply{text("llama answers")}
	if err := e.ForkOnto(k, Onto{Provider: llama, Backend: "offline", Dialect: Dialect{ToolMode: "json", Label: "Llama (JSON mode)"}}, true); err != nil {
		t.Fatal(err)
	}
	h := e.History()
	note := h[len(h)-1]
	if note.Role != history.RoleNote || !strings.Contains(note.Text, "Llama (JSON mode)") || !strings.Contains(note.Text, "1 Gemini thought signature") {
		t.Fatalf("note = %+v", note)
	}
	if h[1].Native != nil {
		t.Fatal("the Gemini encoding was carried over")
	}
	if len(forks) != 1 || forks[0].Fork.Provider != "llama" || !strings.Contains(forks[0].Fork.Note, "thought signature") {
		t.Fatalf("fork records = %+v", forks)
	}
	stepUntil(t, e, "")
	sent := llama.seen[0]
	for _, m := range sent.Messages {
		if m.Role == history.RoleNote {
			t.Fatal("a note was sent to the model")
		}
	}
	if e.History()[len(e.History())-1].Text != "llama answers" {
		t.Fatal("the run did not continue on the other dialect")
	}
	r.w.Close()
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	if rl.Info.Provider != "llama" || len(rl.Messages) != len(e.History()) || rl.Messages[1].Native != nil {
		t.Fatalf("session after the dialect fork: %s, %d messages", rl.Info.Provider, len(rl.Messages))
	}
}

// A fork's note stays out of the count of messages the context carries:
// the trace says how many the model is sent, and so does a step read back
// from the session.
func TestContextCountLeavesNotesOut(t *testing.T) {
	gem := &nativeProvider{name: "gemini"}
	gem.replies = []reply{{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant,
		ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
		Native:    &history.Native{Provider: "gemini", Data: json.RawMessage(`{"parts":[{"functionCall":{"name":"read_file"}}]}`)}}}}}
	r := newSessionRig(t)
	cfg := r.config()
	cfg.Provider = gem
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	stepUntil(t, e, CheckingPolicy)
	llama := &nativeProvider{name: "llama"}
	llama.replies = []reply{text("llama answers")}
	if err := e.ForkOnto(e.Seq(), Onto{Provider: llama, Backend: "offline", Dialect: Dialect{ToolMode: "json", Label: "Llama (JSON mode)"}}, true); err != nil {
		t.Fatal(err)
	}
	var ready Transition
	for _, tr := range stepUntil(t, e, AwaitingLLMResponse) {
		if tr.Edge == EdgeContextReady {
			ready = tr
		}
	}
	if ready.Edge != EdgeContextReady {
		t.Fatal("no context_ready step after the fork")
	}
	h := e.History()
	notes := 0
	for _, m := range h {
		if m.Role == history.RoleNote {
			notes++
		}
	}
	if notes != 1 {
		t.Fatalf("%d notes in the history, want 1", notes)
	}
	want := fmt.Sprintf("context assembled (%d messages + tool definitions)", len(h)-1)
	if got := Summary(ready); !strings.Contains(got, want) {
		t.Fatalf("summary %q, want %q (the history holds %d messages, one a note)", got, want, len(h))
	}

	stepUntil(t, e, "")
	r.w.Close()
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	back, err := SessionTransitions(r.path, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range back {
		if tr.Seq == ready.Seq {
			if got := Summary(tr); !strings.Contains(got, want) {
				t.Fatalf("read back from the session: %q, want %q", got, want)
			}
			return
		}
	}
	t.Fatalf("step %d is not in the session", ready.Seq)
}

// Where a resumed replay goes on in its cassette: every attempt of every
// model call made before the step, in the order they were made, abandoned
// branches included when they were abandoned before it.
func TestCassettePosition(t *testing.T) {
	step := func(seq int, calls string) session.Record {
		r := session.Record{Kind: session.KindStep, Seq: seq, Trace: json.RawMessage(`{"seq":1}`)}
		switch calls {
		case "call":
			r.Trace = json.RawMessage(`{"llm":{"provider":"gemini"}}`)
		case "retried":
			r.Trace = json.RawMessage(`{"llm":{"retries":[{"attempt":1},{"attempt":2}]}}`)
		}
		return r
	}
	// Steps 1-6 were made (calls at 2 and 5, the one at 5 retried twice),
	// then a fork to 3 abandoned 4-6, then 4'-5' (a call at 5').
	rl := &session.RunLog{
		Steps:    []session.Record{step(1, ""), step(2, "call"), step(3, ""), step(4, ""), step(5, "call")},
		Branches: [][]session.Record{{step(4, ""), step(5, "retried"), step(6, "")}},
	}
	for _, c := range []struct{ from, want int }{
		{-1, 5}, // all of it: 1 + 3 + 1
		{0, 0},
		{2, 1},
		{3, 1}, // the branch was abandoned by a fork to 3: after step 3
		{4, 4}, // step 4' came after the branch
		{5, 5},
	} {
		if got := CassettePosition(rl, c.from); got != c.want {
			t.Errorf("from %d: position %d, want %d", c.from, got, c.want)
		}
	}
}

// A workspace file that holds a secret (a .env) is never copied into the
// session's blobs; a fork across a step that changed it stops and says
// that it cannot put the file back, changing nothing.
func TestForkAcrossASecretFileSaysItCannotPutItBack(t *testing.T) {
	const secret = "DB_PASS=hunter2-hunter2-hunter2\n"
	r := newSessionRig(t, calls(writeCall(".env", "DB_PASS=changed-by-the-model\n")), text("done"))
	if err := os.WriteFile(filepath.Join(r.ws.Root(), ".env"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	r.w.Guard(r.key, providers.NewMasker("hunter2-hunter2-hunter2"))
	r.person.approvals = []Approval{AllowOnce}
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "write"})
	ts := stepUntil(t, r.engine, CheckingPolicy)
	k := ts[len(ts)-1].Seq
	stepUntil(t, r.engine, "")
	err := r.engine.Fork(k)
	if !errors.Is(err, ErrWorkspaceNotRestorable) || !strings.Contains(err.Error(), ".env") || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("fork = %v, want it refused naming .env and why", err)
	}
	filepath.Walk(session.DataDir(r.path), func(p string, info os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); info != nil && !info.IsDir() && strings.Contains(string(b), "hunter2") {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
}

// A session forked onto another dialect reads back as it was on screen:
// the fork's note belongs to the step it was made at (where the engine's
// own checkpoint puts it), so the steps read back add up to the history
// the resumed engine holds — no message shown twice, none missing — and a
// later fork to that step keeps the note, on disk as in memory.
func TestResumeAfterForkOntoReadsBackTheSameConversation(t *testing.T) {
	gem := &nativeProvider{name: "gemini"}
	gem.replies = []reply{{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant,
		ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
		Native:    &history.Native{Provider: "gemini", Data: json.RawMessage(`{"parts":[{"functionCall":{"name":"read_file"},"thoughtSignature":"c2ln"}]}`)}}}}}
	r := newSessionRig(t)
	cfg := r.config()
	cfg.Provider = gem
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	stepUntil(t, e, CheckingPolicy)
	k := e.Seq()
	llama := &nativeProvider{name: "llama"}
	llama.replies = []reply{text("llama answers")}
	if err := e.ForkOnto(k, Onto{Provider: llama, Backend: "offline", Dialect: Dialect{ToolMode: "json", Label: "Llama (JSON mode)"}}, true); err != nil {
		t.Fatal(err)
	}
	stepUntil(t, e, "")
	before := e.History()
	cpK, _ := e.Checkpoint(k)
	last, _ := e.Checkpoint(e.Seq())

	r.w.Close()
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	back, err := SessionTransitions(r.path, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	var added []history.Message
	for _, tr := range back {
		added = append(added, tr.Added...)
		if tr.Seq == k {
			if n := len(tr.Added); n == 0 || tr.Added[n-1].Role != history.RoleNote || !strings.Contains(tr.Added[n-1].Text, "Llama") {
				t.Errorf("step %d read back without the fork's note: %+v", k, tr.Added)
			}
			if tr.HistoryLen != cpK.HistoryLen || tr.Notes != cpK.Notes || cpK.Notes != 1 {
				t.Errorf("step %d read back: %d messages (%d notes), the engine had %d (%d)", k, tr.HistoryLen, tr.Notes, cpK.HistoryLen, cpK.Notes)
			}
		}
	}
	if len(added) != len(before) {
		t.Fatalf("the steps read back add %d messages; the history held %d", len(added), len(before))
	}
	for i := range before {
		if added[i].Role != before[i].Role || added[i].Text != before[i].Text {
			t.Fatalf("message %d read back as %s %q, was %s %q", i+1, added[i].Role, added[i].Text, before[i].Role, before[i].Text)
		}
	}
	if tr := back[len(back)-1]; tr.HistoryLen-tr.Notes != last.HistoryLen-last.Notes {
		t.Errorf("the last step read back sends %d messages, it sent %d", tr.HistoryLen-tr.Notes, last.HistoryLen-last.Notes)
	}

	if r.w, err = session.Append(f); err != nil {
		t.Fatal(err)
	}
	rcfg := r.config()
	rcfg.Provider = llama
	e2, _, err := Resume(rcfg, rl, NewJournal(r.w, "", r.ws.Root()))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e2.Checkpoint(k); got.HistoryLen != cpK.HistoryLen || got.Notes != cpK.Notes {
		t.Fatalf("resumed checkpoint %d: %d messages (%d notes), want %d (%d)", k, got.HistoryLen, got.Notes, cpK.HistoryLen, cpK.Notes)
	}
	// Back to step k: the note stays, in the engine and in the file.
	if err := e2.ForkKeepingFiles(k); err != nil {
		t.Fatal(err)
	}
	h := e2.History()
	if len(h) != cpK.HistoryLen || h[len(h)-1].Role != history.RoleNote {
		t.Fatalf("after a fork to step %d the history holds %d messages, want %d ending with the note", k, len(h), cpK.HistoryLen)
	}
	r.w.Close()
	f, err = session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ = f.Run("")
	if len(rl.Messages) != len(h) || rl.Messages[len(h)-1].Role != history.RoleNote {
		t.Fatalf("the file says %d messages after the fork, the engine %d", len(rl.Messages), len(h))
	}
}

// A what-if edit travels with the call that sends it: the transition says
// which messages changed and how, with the message as sent; the trace line,
// the session and a resume (an edit made before quitting, sent after) say
// the same; a secret typed into the edit is sent, never recorded.
func TestWhatIfEditSaysWhatChanged(t *testing.T) {
	const secret = "sk-test-SECRET-1234567890"
	r := newSessionRig(t, calls(history.ToolCall{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}), text("ok"), text("again"))
	cfg := r.config()
	cfg.Secrets = []string{secret}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	stepUntil(t, e, RecordingResult)
	stepUntil(t, e, AwaitingLLMResponse)
	data, err := e.ExportContext()
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `original\n`, `original\nsecret.txt `+secret+`\n`, 1)
	if edited == string(data) {
		t.Fatal("the tool result is not in the exported context")
	}
	if err := e.ReplaceContext([]byte(edited)); err != nil {
		t.Fatal(err)
	}
	tr, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	check := func(where string, tr Transition) {
		t.Helper()
		if !tr.Edited || tr.Edit == nil || len(tr.Edit.Messages) != 1 || tr.Edit.System {
			t.Fatalf("%s: edit = %+v", where, tr.Edit)
		}
		m := tr.Edit.Messages[0]
		if m.N != 3 || m.Change != "changed" || m.About != "the result of read_file" || m.Sent == nil || m.Sent.Result == nil {
			t.Fatalf("%s: message edit = %+v", where, m)
		}
		if !strings.Contains(m.Sent.Result.Content, "secret.txt") || !strings.Contains(m.Diff, "+secret.txt") || !strings.Contains(m.Diff, " original") {
			t.Fatalf("%s: sent %q, diff:\n%s", where, m.Sent.Result.Content, m.Diff)
		}
		line, _ := json.Marshal(tr)
		if strings.Contains(string(line), secret) {
			t.Fatalf("%s: the secret is in the record: %s", where, line)
		}
		if !strings.Contains(Human(tr), "context edited before sending: the result of read_file (message 3) changed") {
			t.Fatalf("%s: human trace %q", where, Human(tr))
		}
	}
	check("live", tr)
	if sent := r.provider.seen[len(r.provider.seen)-1]; !strings.Contains(sent.Messages[2].Result.Content, secret) {
		t.Fatal("the edit was not sent as the person wrote it")
	}
	r.w.Close()
	raw, _ := os.ReadFile(r.path)
	if strings.Contains(string(raw), secret) {
		t.Fatal("the secret is in the session file")
	}
	f, err := session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	back, err := SessionTransitions(r.path, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	check("read back", back[len(back)-1])

	// Edited, then quit before sending: the resumed engine sends it with
	// the same account of what changed.
	if r.w, err = session.Append(f); err != nil {
		t.Fatal(err)
	}
	e, _, err = Resume(cfg, rl, NewJournal(r.w, "", r.ws.Root()))
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "again"})
	stepUntil(t, e, AwaitingLLMResponse)
	data, _ = e.ExportContext()
	if err := e.ReplaceContext([]byte(strings.Replace(string(data), `"text": "again"`, `"text": "once more"`, 1))); err != nil {
		t.Fatal(err)
	}
	r.w.Close()
	f, err = session.Read(r.path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ = f.Run("")
	if r.w, err = session.Append(f); err != nil {
		t.Fatal(err)
	}
	e, _, err = Resume(cfg, rl, NewJournal(r.w, "", r.ws.Root()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err = e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Edit == nil || len(tr.Edit.Messages) != 1 || tr.Edit.Messages[0].About != "the request" || !strings.Contains(tr.Edit.Messages[0].Diff, "+once more") {
		t.Fatalf("resumed edit = %+v", tr.Edit)
	}
}

func TestDiffContextPairsChangesInOrder(t *testing.T) {
	u := func(s string) history.Message { return history.Message{Role: history.RoleUser, Text: s} }
	id := func(s string) string { return s }
	tests := []struct {
		name          string
		system        string
		before, after []history.Message
		want          string
	}{
		{"inserted", "s", []history.Message{u("a"), u("b")}, []history.Message{u("a"), u("x"), u("b")}, "the request (message 2) added"},
		{"removed", "s", []history.Message{u("a"), u("b"), u("c")}, []history.Message{u("a"), u("c")}, "the request (message 2) removed"},
		{"changed", "s", []history.Message{u("a"), u("b")}, []history.Message{u("a"), u("B")}, "the request (message 2) changed"},
		{"system", "s2", []history.Message{u("a")}, []history.Message{u("a")}, "the system prompt changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diffContext("s", tt.system, tt.before, tt.after, id).Summary(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// An edit to a tool result leaves the model's own reply as it was: its
// arguments come back re-indented from the editor, which is no change, so
// its native encoding (Gemini's thought signature) is still replayed.
func TestWhatIfKeepsTheEncodingOfUnchangedMessages(t *testing.T) {
	gem := &nativeProvider{name: "gemini"}
	gem.replies = []reply{{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant,
		ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
		Native:    &history.Native{Provider: "gemini", Data: json.RawMessage(`{"parts":[{"functionCall":{"name":"read_file"},"thoughtSignature":"c2ln"}]}`)}}}}, text("ok")}
	r := newSessionRig(t)
	cfg := r.config()
	cfg.Provider = gem
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "read notes"})
	stepUntil(t, e, RecordingResult)
	stepUntil(t, e, AwaitingLLMResponse)
	data, _ := e.ExportContext()
	if err := e.ReplaceContext([]byte(strings.Replace(string(data), `original\n`, `edited\n`, 1))); err != nil {
		t.Fatal(err)
	}
	if n := e.History()[1].Native; n == nil || !strings.Contains(string(n.Data), "thoughtSignature") {
		t.Fatalf("the unchanged reply lost its encoding: %+v", n)
	}
	if e.History()[2].Native != nil || e.History()[2].Result.Content != "edited\n" {
		t.Fatalf("the edited result: %+v", e.History()[2])
	}
}
