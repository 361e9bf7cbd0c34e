package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// runIn runs glassbox in-process with args and stdin.
func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// savedSession reads the session path and resume argument glassbox printed.
func savedSession(t *testing.T, stderr string) (path, resume string) {
	t.Helper()
	m := regexp.MustCompile(`session saved: (\S+)\nresume it with: glassbox run --resume (\S+)\n`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("glassbox did not say where the session is:\n%s", stderr)
	}
	return m[1], m[2]
}

func TestSessionsList(t *testing.T) {
	isolate(t)
	if code, _, stderr := runIn(t, "", "sessions"); code != exitOK || !strings.Contains(stderr, "no sessions yet") {
		t.Fatalf("empty list: exit %d, %s", code, stderr)
	}
	_, _, e1 := runIn(t, "", "run", "--offline", "--lesson", "tour")
	_, id1 := savedSession(t, e1)
	_, _, e2 := runIn(t, "", "run", "--offline", "--compare", "--lesson", "tour", "list\tthe files")
	_, id2 := savedSession(t, e2)
	dir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "glassbox", "sessions")
	if err := os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("not a session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runIn(t, "", "sessions")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines:\n%s", out)
	}
	fields := func(line string) []string { return strings.Split(line, "\t") }
	var tour, cmp, broken []string
	for _, l := range lines {
		switch f := fields(l); f[0] {
		case id1:
			tour = f
		case id2:
			cmp = f
		case "broken":
			broken = f
		}
	}
	if len(tour) != 6 || tour[2] != "gemini" || !strings.HasPrefix(tour[3], `"Give me a tour`) || tour[4] != "14" || tour[5] != "WAITING_FOR_EVENT" {
		t.Fatalf("tour line %q", tour)
	}
	if len(cmp) != 6 || cmp[2] != "gemini,llama" || cmp[3] != `"list the files"` || cmp[5] != "WAITING_FOR_EVENT,WAITING_FOR_EVENT" {
		t.Fatalf("compare line %q", cmp)
	}
	if len(broken) != 6 || !strings.Contains(broken[3], "unreadable") {
		t.Fatalf("broken line %q", broken)
	}
}

func TestResumeContinuesTheSession(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "class.jsonl")
	code, first, stderr := runJSON(t, "", "--offline", "--session", file, "list the files")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("--session FILE was not written: %v", err)
	}
	// Every pane comes back: the steps with their raw exchanges.
	f, err := session.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	rl, _ := f.Run("")
	steps, err := loop.SessionTransitions(file, rl, true)
	if err != nil || len(steps) != len(first) {
		t.Fatalf("read back %d steps (%v), the trace has %d", len(steps), err, len(first))
	}
	lazy, err := loop.SessionTransitions(file, rl, false)
	if err != nil {
		t.Fatal(err)
	}
	reader := loop.NewExchangeReader(file, 8)
	for i, st := range lazy {
		if st.LLM == nil {
			continue
		}
		x, err := reader.LoadAt(*st.ExchangesAt)
		if st.Exchanges != nil || err != nil || string(x[0].RequestBody) != string(steps[i].Exchanges[0].RequestBody) {
			t.Fatalf("step %d loaded lazily differs (%v)", st.Seq, err)
		}
	}
	for _, st := range steps {
		if st.LLM != nil && (len(st.Exchanges) != 1 || !strings.Contains(string(st.Exchanges[0].RequestBody), `"contents"`) || len(st.Exchanges[0].ResponseBody) == 0) {
			t.Fatalf("step %d lost its payloads: %+v", st.Seq, st.Exchanges)
		}
	}
	code, again, stderr := runJSON(t, "", "--resume", file, "read hello.py")
	if code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if again[0].Seq != len(first)+1 || again[0].Edge != "new_event" {
		t.Fatalf("the resumed run starts at #%d %s, want #%d new_event", again[0].Seq, again[0].Edge, len(first)+1)
	}
	if again[0].LLM != nil || again[2].LLM == nil || again[2].LLM.Backend != "offline" {
		t.Fatal("the resumed run is not on the session's offline backend")
	}
	// Nothing to do and no new request: it says so and stays idle.
	code, idle, _ := runJSON(t, "", "--resume", file)
	if code != exitOK || len(idle) != 0 {
		t.Fatalf("an idle resume: exit %d, %d records", code, len(idle))
	}
	// A session written by a newer glassbox, or a corrupt one, is refused and left as it is.
	for name, body := range map[string]string{
		"newer":   `{"kind":"header","format":99,"glassbox":"9.9","runs":[{"provider":"gemini","backend":"offline","workspace":"/","max_iterations":1}]}` + "\n",
		"corrupt": "{\n",
	} {
		path := filepath.Join(t.TempDir(), name+".jsonl")
		os.WriteFile(path, []byte(body), 0o600)
		code, _, stderr := runIn(t, "", "run", "--resume", path)
		after, _ := os.ReadFile(path)
		if code != exitUsage || string(after) != body {
			t.Fatalf("%s: exit %d (file changed: %v): %s", name, code, string(after) != body, stderr)
		}
		if want := map[string]string{"newer": "newer glassbox", "corrupt": "corrupt"}[name]; !strings.Contains(stderr, want) {
			t.Fatalf("%s: %q does not say %q", name, stderr, want)
		}
	}
}

func TestResumeFlags(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--from", "3", "hi"}, "--from forks a resumed session"},
		{[]string{"--from", "x"}, "want a step number"},
		{[]string{"--resume", "nope"}, "no session with that id"},
		{[]string{"--resume", "x", "--session", "y.jsonl"}, "leave --session out"},
		{[]string{"--resume", "x", "--model", "m"}, "keeps its model"},
	} {
		code, _, stderr := runIn(t, "", append([]string{"run"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.says)
		}
	}
}

// An instructor forks a session headless from a step: the files written
// after it are put back, and the run continues from there.
func TestResumeFromAStepRestoresTheWorkspace(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "w.jsonl")
	code, lines, stderr := runJSON(t, "y\n", "--offline", "--lesson", "write-file", "--session", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var k int
	var target string
	for _, l := range lines {
		if l.Edge == "confirm_required" {
			k = l.Seq
		}
	}
	ws := filepath.Join(strings.TrimSuffix(file, ".jsonl")+".files", "workspace")
	entries, _ := os.ReadDir(ws)
	before := map[string]bool{"README.md": true, "hello.py": true, "notes": true, "old_log.txt": true}
	for _, e := range entries {
		if !before[e.Name()] {
			target = e.Name()
		}
	}
	if k == 0 || target == "" {
		t.Fatalf("the lesson did not ask and write (step %d, new file %q)", k, target)
	}
	// As docs/instructor-guide.md shows it: back to the question, and deny.
	code, forked, stderr := runJSON(t, "n\n", "--resume", file, "--from", strconv.Itoa(k))
	if code != exitOK {
		t.Fatalf("fork: exit %d: %s", code, stderr)
	}
	// The first record is the fork's own (no seq, no edge).
	if forked[0].Seq != 0 || forked[1].Seq != k+1 || forked[1].Edge != "user_denial" {
		t.Fatalf("the fork continues at #%d %s, want #%d user_denial", forked[1].Seq, forked[1].Edge, k+1)
	}
	if k != 4 {
		t.Fatalf("the confirmation is step %d; docs/instructor-guide.md forks from step 4", k)
	}
	if slices.Contains(edges(forked), "tool_success") {
		t.Fatalf("the denied write ran: %v", edges(forked))
	}
	if _, err := os.Stat(filepath.Join(ws, target)); !os.IsNotExist(err) {
		t.Fatalf("%s, written after step %d, is still there after the fork (err %v)", target, k, err)
	}
	code, _, stderr = runIn(t, "", "run", "--resume", file, "--from", "999")
	if code != exitUsage || !strings.Contains(stderr, "steps 0 to") {
		t.Fatalf("--from past the end: exit %d: %s", code, stderr)
	}
}

// A session forked onto the other dialect continues there, with a note.
func TestResumeOntoAnotherDialect(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "d.jsonl")
	if code, _, stderr := runJSON(t, "", "--offline", "--session", file, "--lesson", "tour"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out, errb bytes.Buffer
	code := runHeadless(context.Background(), []string{"--json", "--resume", file, "--from", "3", "--provider", "llama", "--tool-mode", "native"}, noSleep, strings.NewReader(""), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.Contains(first, `"fork":{"from":3,"provider":"llama"`) || !strings.Contains(first, "thought signature") {
		t.Fatalf("the first record is not the fork with its note: %s", first)
	}
	if !strings.Contains(out.String(), `"provider":"llama","backend":"offline"`) {
		t.Fatal("the run did not go on with llama")
	}

	// And back: a Llama JSON-mode session continues on Gemini.
	lfile := filepath.Join(t.TempDir(), "l.jsonl")
	if code, _, stderr := runJSON(t, "", "--offline", "--provider", "llama", "--session", lfile, "--lesson", "tour"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, lines, stderr := runJSON(t, "", "--resume", lfile, "--from", "3", "--provider", "gemini")
	if code != exitOK || len(lines) == 0 || edges(lines)[len(lines)-1] != "delivered" {
		t.Fatalf("llama → gemini: exit %d, %v: %s", code, edges(lines), stderr)
	}
	for _, l := range lines {
		if l.LLM != nil && l.LLM.Provider != "gemini" {
			t.Fatalf("a call after the fork went to %s", l.LLM.Provider)
		}
	}

	// Onto the OpenAI-compatible dialect, from a Llama JSON-mode session
	// whose tool calls had no ids: the chat completions request pairs each
	// result with a call id all the same, and the run goes on there.
	code, lines, stderr = runJSON(t, "", "--resume", lfile, "--from", "7", "--provider", "openai")
	if code != exitOK || len(lines) == 0 || edges(lines)[len(lines)-1] != "delivered" {
		t.Fatalf("llama → openai: exit %d, %v: %s", code, edges(lines), stderr)
	}
	calls := 0
	for _, l := range lines {
		if l.LLM != nil {
			calls++
			if l.LLM.Provider != "openai" {
				t.Fatalf("a call after the fork went to %s", l.LLM.Provider)
			}
		}
	}
	if calls == 0 {
		t.Fatal("no call went to the OpenAI-compatible dialect")
	}
}

// A compare session keeps both runs, and resuming it continues both.
func TestResumeACompareSession(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "c.jsonl")
	code, first, stderr := runJSON(t, "", "--offline", "--compare", "--session", file, "list the files")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	last := map[string]int{}
	for _, l := range first {
		if l.Summary == nil {
			last[l.Run] = l.Seq
		}
	}
	code, again, stderr := runJSON(t, "", "--resume", file, "read hello.py")
	if code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	firstSeq := map[string]int{}
	for _, l := range again {
		if _, ok := firstSeq[l.Run]; !ok && l.Summary == nil {
			firstSeq[l.Run] = l.Seq
		}
	}
	if len(last) != 2 || firstSeq["gemini"] != last["gemini"]+1 || firstSeq["llama"] != last["llama"]+1 {
		t.Fatalf("the runs did not both go on: before %v, resumed at %v", last, firstSeq)
	}
	if code, _, stderr := runIn(t, "", "run", "--resume", file, "--provider", "llama"); code != exitUsage || !strings.Contains(stderr, "two runs of a comparison") {
		t.Fatalf("--provider on a compare session: exit %d: %s", code, stderr)
	}
}

// Replay is positional, and a replayed session resumed from a step goes on
// in its cassette where its run had got to: the next request meets the
// exchange it met the first time, with nothing flagged. A plain resume of a
// finished replay goes on past everything the run used.
func TestResumeAReplayedSessionLinesUpWithItsCassette(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cassette := filepath.Join(dir, "tour.cassette")
	if code, _, stderr := runJSON(t, "", "--offline", "--lesson", "tour", "--record", cassette); code != exitOK {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	file := filepath.Join(dir, "replayed.jsonl")
	code, lines, stderr := runJSON(t, "", "--replay", cassette, "--lesson", "tour", "--session", file)
	if code != exitOK {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	var calls []int // the steps that made a model call
	answer := ""
	for _, l := range lines {
		if l.LLM != nil {
			calls = append(calls, l.Seq)
			if len(l.LLM.Divergences) > 0 {
				t.Fatalf("the replay itself diverged at step %d: %v", l.Seq, l.LLM.Divergences)
			}
		}
		if l.Output != nil {
			answer = l.Output.Text
		}
	}
	if len(calls) < 3 || answer == "" {
		t.Fatalf("the tour made %d model calls and answered %q", len(calls), answer)
	}

	// From the step after the first call: the second request meets exchange #2.
	from := calls[0] + 1
	code, forked, stderr := runJSON(t, "", "--resume", file, "--from", strconv.Itoa(from))
	if code != exitOK {
		t.Fatalf("resume --from %d: exit %d: %s", from, code, stderr)
	}
	again := ""
	made := 0
	for _, l := range forked {
		if l.LLM != nil {
			made++
			if len(l.LLM.Divergences) > 0 {
				t.Fatalf("resumed from step %d, the request at step %d was flagged: %v", from, l.Seq, l.LLM.Divergences)
			}
		}
		if l.Output != nil {
			again = l.Output.Text
		}
	}
	if made != len(calls)-1 || again != answer {
		t.Fatalf("resumed from step %d: %d model calls (want %d), answer %q (want %q)", from, made, len(calls)-1, again, answer)
	}

	// Everything the cassette holds has been used (the first run's calls,
	// then the fork's): one more request finds none left, and says so.
	code, more, stderr := runJSON(t, "", "--resume", file, "one more question")
	past := false
	for _, l := range more {
		if l.Error != nil && strings.Contains(l.Error.Message, fmt.Sprintf("no recorded exchange #%d", len(calls)+1)) {
			past = true
		}
	}
	if !past {
		t.Fatalf("a request past the cassette (exit %d) did not say that the cassette has no exchange #%d:\n%+v\n%s", code, len(calls)+1, more, stderr)
	}
}
