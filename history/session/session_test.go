package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
)

func header() Header {
	return Header{Glassbox: "test", Started: time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC), Request: "list the files",
		Runs: []RunInfo{{Provider: "gemini", Backend: "offline", Workspace: "/w", MaxIterations: 10}}}
}

func msg(text string) history.Message { return history.Message{Role: history.RoleUser, Text: text} }

func step(seq, length int, to string, added ...history.Message) Record {
	return Record{Kind: KindStep, Seq: seq, Len: length, Added: added, Trace: json.RawMessage(`{"to":"` + to + `"}`)}
}

// writeSession writes a header and records and returns the file's path.
func writeSession(t *testing.T, recs ...Record) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Create(path, header())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := writeSession(t,
		Record{Kind: KindSubmit, N: 1, Event: json.RawMessage(`{"data":"list the files"}`)},
		step(1, 1, "ASSEMBLING_CONTEXT", msg("list the files")),
		step(2, 1, "AWAITING_LLM_RESPONSE"),
		Record{Kind: KindBegin, Seq: 3, State: "AWAITING_LLM_RESPONSE"},
	)
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rl, ok := f.Run("")
	if !ok || len(rl.Steps) != 2 || len(rl.Messages) != 1 || len(rl.Submitted) != 1 {
		t.Fatalf("run = %+v", rl)
	}
	if rl.Interrupted == nil || rl.Interrupted.Seq != 3 {
		t.Fatalf("a begin without its step is not reported interrupted: %+v", rl.Interrupted)
	}
	if len(f.Warnings) != 0 {
		t.Fatalf("warnings: %v", f.Warnings)
	}
	if _, err := Create(path, header()); err == nil || !strings.Contains(err.Error(), "never overwritten") {
		t.Fatalf("Create over an existing session: %v", err)
	}
}

func TestTornLastLineIsDroppedWithAWarning(t *testing.T) {
	path := writeSession(t, step(1, 1, "ASSEMBLING_CONTEXT", msg("a")))
	appendBytes(t, path, `{"kind":"step","seq":2,"tra`)
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "cut off") {
		t.Fatalf("warnings = %v", f.Warnings)
	}
	if rl, _ := f.Run(""); len(rl.Steps) != 1 {
		t.Fatalf("steps = %d", len(rl.Steps))
	}
	// Appending cuts the torn bytes, so the next line stands alone.
	w, err := Append(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(step(2, 1, "AWAITING_LLM_RESPONSE")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err = Read(path)
	if err != nil || len(f.Warnings) != 0 {
		t.Fatalf("after append: %v %v", err, f.Warnings)
	}
	if rl, _ := f.Run(""); len(rl.Steps) != 2 {
		t.Fatalf("steps after append = %d", len(rl.Steps))
	}
}

func appendBytes(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
	fh.Close()
}

func TestBadFilesAreRefusedAndLeftUntouched(t *testing.T) {
	dir := t.TempDir()
	newer, _ := json.Marshal(Header{Kind: KindHeader, Format: Format + 1, Glassbox: "9.0", Runs: header().Runs})
	corruptMiddle := writeSession(t, step(1, 1, "ASSEMBLING_CONTEXT", msg("a")))
	appendBytes(t, corruptMiddle, "not json\n"+`{"kind":"step","seq":2,"history_len":1}`+"\n")
	tests := []struct {
		name, body, path string
		want             error
		says             string
	}{
		{name: "newer format", body: string(newer) + "\n", want: ErrNewerFormat, says: "format 2"},
		{name: "not a session", body: "hello\n", want: ErrCorrupt, says: "does not start with a glassbox session header"},
		{name: "empty", body: "", want: ErrCorrupt, says: "empty"},
		{name: "corrupt middle line", path: corruptMiddle, want: ErrCorrupt, says: "line 3"},
		{name: "steps out of order", body: mustHeader(t) + `{"kind":"step","seq":5}` + "\n" + `{"kind":"submit","n":1}` + "\n", want: ErrCorrupt, says: "step 5 follows step 0"},
		{name: "unknown kind", body: mustHeader(t) + `{"kind":"mystery"}` + "\n" + `{"kind":"submit","n":1}` + "\n", want: ErrCorrupt, says: "unknown kind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
				if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(path)
			_, err := Read(path)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want %v saying %q", err, tc.want, tc.says)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Fatal("reading changed the file")
			}
		})
	}
}

func mustHeader(t *testing.T) string {
	h := header()
	h.Kind, h.Format = KindHeader, Format
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestReadingIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	body := mustHeader(t) + `{"kind":"submit","n":1,"event":"` + strings.Repeat("x", MaxLine+1) + `"}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want the line cap named", err)
	}
	if _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a folder: %v", err)
	}
}

func TestForkKeepsTheAbandonedBranch(t *testing.T) {
	path := writeSession(t,
		Record{Kind: KindSubmit, N: 1},
		step(1, 1, "ASSEMBLING_CONTEXT", msg("a")),
		step(2, 1, "AWAITING_LLM_RESPONSE"),
		step(3, 2, "CHECKING_POLICY", history.Message{Role: history.RoleAssistant, Text: "b"}),
		Record{Kind: KindSubmit, N: 2},
		Record{Kind: KindFork, Seq: 2, N: 1, Len: 2, Provider: "llama", ToolMode: "native", Added: []history.Message{{Role: history.RoleUser, Feedback: true, Text: "note"}}},
		step(3, 3, "DELIVERING_OUTPUT", history.Message{Role: history.RoleAssistant, Text: "c"}),
	)
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	if len(rl.Steps) != 3 || len(rl.Branches) != 1 || len(rl.Branches[0]) != 1 {
		t.Fatalf("steps %d branches %v", len(rl.Steps), rl.Branches)
	}
	var texts []string
	for _, m := range rl.Messages {
		texts = append(texts, m.Text)
	}
	if strings.Join(texts, ",") != "a,note,c" {
		t.Fatalf("messages = %v", texts)
	}
	if len(rl.Submitted) != 1 || rl.Info.Provider != "llama" || rl.Info.ToolMode != "native" {
		t.Fatalf("after the fork: %d events, %s %s", len(rl.Submitted), rl.Info.Provider, rl.Info.ToolMode)
	}
	s := Summarize(path)
	if s.Steps != 3 || s.LastState != "DELIVERING_OUTPUT" || s.Runs[0] != (RunDialect{"llama", "native"}) || s.Request != "list the files" {
		t.Fatalf("summary = %+v", s)
	}
}

func TestBlobsAndExchanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Create(path, header())
	if err != nil {
		t.Fatal(err)
	}
	h, err := w.Blobs().Put([]byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := OpenBlobs(path).Get(h); err != nil || string(got) != "hello" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	a, _ := w.WriteExchanges([]byte(`[1]`))
	b, _ := w.WriteExchanges([]byte(`[2,3]`))
	w.Close()
	for want, s := range map[string]*Span{"[1]": a, "[2,3]": b} {
		got, err := ReadExchanges(path, *s)
		if err != nil || string(got) != want {
			t.Fatalf("ReadExchanges(%v) = %s, %v", s, got, err)
		}
	}
	p, _ := OpenBlobs(path).path(h)
	os.WriteFile(p, []byte("changed"), 0o600)
	if _, err := OpenBlobs(path).Get(h); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a changed copy: %v", err)
	}
}

func TestDirAndFind(t *testing.T) {
	env := map[string]string{"HOME": "/home/x"}
	get := func(k string) string { return env[k] }
	if d, _ := Dir(get); d != "/home/x/.local/state/glassbox/sessions" {
		t.Fatalf("Dir = %s", d)
	}
	env["XDG_STATE_HOME"] = "/state"
	if d, _ := Dir(get); d != "/state/glassbox/sessions" {
		t.Fatalf("Dir = %s", d)
	}
	env["XDG_STATE_HOME"] = "rel"
	if _, err := Dir(get); err == nil {
		t.Fatal("a relative XDG_STATE_HOME was accepted")
	}
	dir := t.TempDir()
	path, err := NewPath(dir, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil || !strings.HasPrefix(filepath.Base(path), "20260102-030405-") {
		t.Fatalf("NewPath = %s, %v", path, err)
	}
	os.WriteFile(path, nil, 0o600)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if got, err := Find(dir, id); err != nil || got != path {
		t.Fatalf("Find(id) = %s, %v", got, err)
	}
	if _, err := Find(dir, "nope"); err == nil || !strings.Contains(err.Error(), "glassbox sessions") {
		t.Fatalf("Find(nope) = %v", err)
	}
}

// What a fork adds (its note) belongs to the step it was made at: the step
// read back carries it, its length counts it, and a later fork back to that
// step keeps it (the file used to become unreadable: "step 3 leaves 3
// messages, the records add up to 2").
func TestForkNoteBelongsToItsStep(t *testing.T) {
	note := history.Message{Role: history.RoleNote, Text: "continues with Llama"}
	path := writeSession(t,
		Record{Kind: KindSubmit, N: 1},
		step(1, 1, "ASSEMBLING_CONTEXT", msg("a")),
		step(2, 1, "AWAITING_LLM_RESPONSE"),
		Record{Kind: KindFork, Seq: 2, N: 1, Len: 2, Provider: "llama", Added: []history.Message{note}},
		step(3, 3, "DELIVERING_OUTPUT", history.Message{Role: history.RoleAssistant, Text: "c"}),
		Record{Kind: KindFork, Seq: 2, N: 1, Len: 2},
		step(3, 3, "DELIVERING_OUTPUT", history.Message{Role: history.RoleAssistant, Text: "d"}),
	)
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	if st := rl.Steps[1]; st.Len != 2 || len(st.Added) != 1 || st.Added[0].Text != note.Text {
		t.Fatalf("step 2 read back: %d messages, added %+v", st.Len, st.Added)
	}
	var texts []string
	for _, m := range rl.Messages {
		texts = append(texts, m.Text)
	}
	if strings.Join(texts, ",") != "a,continues with Llama,d" {
		t.Fatalf("messages = %v", texts)
	}
}

func TestNewPathDrawsAgainWhenTheNameIsTaken(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 25, 11, 0, 0, 0, time.UTC)
	taken := filepath.Join(dir, "20261125-110000-aaaa.jsonl")
	if err := os.WriteFile(taken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	draws := []string{"aaaa", "bbbb"}
	got, err := newPath(dir, now, func() string { d := draws[0]; draws = draws[1:]; return d })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "20261125-110000-bbbb.jsonl"); got != want {
		t.Fatalf("newPath = %s, want %s (the first name was taken)", got, want)
	}
}
