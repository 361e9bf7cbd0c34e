package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// crashRecord is what the crash tests read of a trace line.
type crashRecord struct {
	Seq  int    `json:"seq"`
	From string `json:"from"`
	Edge string `json:"edge"`
	LLM  *struct {
		Resent bool `json:"resent"`
	} `json:"llm"`
	Error *struct {
		Kind string `json:"kind"`
	} `json:"error"`
	Tool *struct {
		Name string `json:"name"`
	} `json:"tool"`
	Result *struct {
		Content string `json:"content"`
	} `json:"result"`
}

// buildGlassbox builds the real binary once for the crash tests.
func buildGlassbox(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "glassbox")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs the binary with env added and returns the trace records,
// stderr and how it ended.
func runBinary(t *testing.T, bin, stdin string, env []string, args ...string) ([]crashRecord, string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var recs []crashRecord
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r crashRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Seq > 0 {
			recs = append(recs, r)
		}
	}
	return recs, errb.String(), err
}

func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// TestCrashAndResumeInEveryState kills the real binary (SIGKILL, as kill -9
// does) in each of the ten states — on entering it, and in the middle of
// the steps that act (the model call, the tool, the person's answer) — then
// resumes the session and checks that the run goes on from where it was
// with nothing lost: the typed request, the person's approval, the tool
// recorded as interrupted, the model call sent again.
func TestCrashAndResumeInEveryState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildGlassbox(t) // before isolate leaves the module's folder
	isolate(t)
	tests := []struct {
		at            string // GLASSBOX_TEST_CRASH_AT
		lesson        string
		stdin, stdin2 string // before the crash, after it
		extra         []string
		code          int // the resumed run's exit code
		check         func(t *testing.T, resumed []crashRecord, ws string)
	}{
		{at: "WAITING_FOR_EVENT", lesson: "tour"},
		{at: "ASSEMBLING_CONTEXT", lesson: "tour"},
		{at: "AWAITING_LLM_RESPONSE", lesson: "tour"},
		{at: "AWAITING_LLM_RESPONSE:mid", lesson: "tour", check: func(t *testing.T, r []crashRecord, _ string) {
			if r[0].LLM == nil || !r[0].LLM.Resent {
				t.Fatalf("the interrupted model call was not sent again: %+v", r[0])
			}
		}},
		{at: "CHECKING_POLICY", lesson: "tour"},
		{at: "AWAITING_USER_CONFIRMATION", lesson: "write-file", stdin2: "y\n", check: wroteAndApproved},
		// Approved, then killed before the step was written: the approval
		// is not lost (the resumed run has no answer to give: EOF would deny).
		{at: "AWAITING_USER_CONFIRMATION:mid", lesson: "write-file", stdin: "y\n", check: wroteAndApproved},
		{at: "EXECUTING_TOOL", lesson: "write-file", stdin: "y\n", check: func(t *testing.T, r []crashRecord, ws string) {
			if r[0].From != "EXECUTING_TOOL" || r[0].Edge != "tool_success" {
				t.Fatalf("the approved tool did not run after the resume: %+v", r[0])
			}
		}},
		{at: "EXECUTING_TOOL:mid", lesson: "write-file", stdin: "y\n", check: func(t *testing.T, r []crashRecord, ws string) {
			if r[0].Edge != "tool_failure" || r[0].Error == nil || r[0].Error.Kind != "interrupted" || r[0].Tool.Name != "write_file" {
				t.Fatalf("the interrupted tool is not recorded as interrupted: %+v", r[0])
			}
		}},
		// The person answered ask_user's question, then glassbox died: the
		// answer is not lost (the resumed run reads "y" for the later
		// confirmation; had it asked again, "y" would be the answer).
		{at: "EXECUTING_TOOL:mid", lesson: "ask-delete", stdin: "1\n", stdin2: "y\n", check: func(t *testing.T, r []crashRecord, ws string) {
			if r[0].Edge != "tool_success" || r[0].Tool.Name != "ask_user" || r[0].Result == nil || r[0].Result.Content != "yes" {
				t.Fatalf("the answer typed before the crash was lost: %+v %+v", r[0], r[0].Result)
			}
			if _, err := os.Stat(filepath.Join(ws, "old_log.txt")); !os.IsNotExist(err) {
				t.Fatalf("the run did not go on to delete old_log.txt (%v)", err)
			}
		}},
		{at: "RECORDING_RESULT", lesson: "tour"},
		{at: "RECORDING_ERROR", lesson: "path-escape"},
		{at: "DELIVERING_OUTPUT", lesson: "tour"},
		{at: "HALTED", lesson: "iteration-limit", extra: []string{"--max-iterations", "2"}, code: exitHalted},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		state, _, _ := strings.Cut(tc.at, ":")
		seen[state] = true
		t.Run(tc.at+"/"+tc.lesson, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "s.jsonl")
			args := slices.Concat([]string{"run", "--json", "--offline", "--lesson", tc.lesson, "--session", file}, tc.extra)
			before, stderr, err := runBinary(t, bin, tc.stdin, []string{agentrun.TestCrashVar + "=" + tc.at}, args...)
			if !killed(err) {
				t.Fatalf("the run was not killed at %s: %v\n%s", tc.at, err, stderr)
			}
			resumed, stderr, err := runBinary(t, bin, tc.stdin2, nil, "run", "--json", "--resume", file)
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Fatalf("resume: exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if state == "WAITING_FOR_EVENT" {
				if len(resumed) != 0 {
					t.Fatalf("an idle session did more: %+v", resumed)
				}
				return
			}
			if len(resumed) == 0 {
				t.Fatalf("nothing was resumed:\n%s", stderr)
			}
			// The resumed run picks up where the file ends: the step in
			// the state it was killed in, numbered after the last one saved.
			if resumed[0].From != state {
				t.Fatalf("resumed from %s, want %s", resumed[0].From, state)
			}
			f, err := session.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			rl, _ := f.Run("")
			if saved := len(rl.Steps) - len(resumed); resumed[0].Seq != saved+1 || saved < len(before) {
				t.Fatalf("resumed at #%d with %d steps saved before the crash (%d printed)", resumed[0].Seq, saved, len(before))
			}
			last := resumed[len(resumed)-1]
			if last.Edge != string(loop.EdgeDelivered) && last.Edge != string(loop.EdgeReported) {
				t.Fatalf("the resumed run did not finish: %+v", last)
			}
			if tc.check != nil {
				tc.check(t, resumed, filepath.Join(strings.TrimSuffix(file, ".jsonl")+".files", "workspace"))
			}
		})
	}
	for _, s := range loop.States {
		if !seen[string(s)] {
			t.Errorf("no crash test in %s", s)
		}
	}
}

// wroteAndApproved: the write was approved once (before or after the crash)
// and the file is there.
func wroteAndApproved(t *testing.T, r []crashRecord, ws string) {
	t.Helper()
	var edges []string
	for _, x := range r {
		edges = append(edges, x.Edge)
	}
	if !slices.Contains(edges, "user_approval") || !slices.Contains(edges, "tool_success") || slices.Contains(edges, "user_denial") {
		t.Fatalf("edges after resume %v: the approval was lost", edges)
	}
	entries, _ := os.ReadDir(ws)
	if len(entries) < 5 {
		t.Fatalf("the approved write did not reach the workspace: %d entries", len(entries))
	}
}
