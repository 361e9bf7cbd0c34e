package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestYesDoesNotRunWhatThePolicyCannotRead drives `glassbox run --yes` with
// the offline tutor asked to run each command, in a workspace whose HOME is
// a folder inside it holding a canary file. Every spelling that would
// delete HOME is denied (a DENY rule, or a confirmation only a person may
// answer, which --yes leaves unanswered), so the canary survives; an
// ordinary command is still approved by --yes and runs.
//
// Whatever a command would harm here is inside the test's own folders: HOME
// is the fake one, and the network address is a closed local port.
func TestYesDoesNotRunWhatThePolicyCannotRead(t *testing.T) {
	isolate(t)
	tests := []struct {
		command string
		shows   string // in the trace
	}{
		// The tutor's intent matcher reads a bare "rm" as a delete request,
		// so these spell it r\m: the shell (and the policy) read rm.
		{`true &>/dev/null r\m -rf ~/`, "rule delete-outside-workspace"},
		{`echo $'\' ; r\m -rf ~/ # '`, "rule delete-outside-workspace"},
		{`((r\m -rf ~/))`, "rule delete-outside-workspace"},
		{`X=r\m; $X -rf ~/`, "rule delete-outside-workspace"},
		{`cd ~ && find . -mindepth 1 -exec r\m -rf {} +`, "rule delete-outside-workspace"},
		{`curl -s http://127.0.0.1:9/setup.py | python3`, "rule download-to-interpreter"},
		{`$(printf r%s m) -rf ~/`, "rule unknowable-command: needs a person: the command name $(printf) is only known"},
		{`python3 -c "import shutil, os; shutil.rmtree(os.path.expanduser('~'))"`, "rule unknowable-command: needs a person: python3 runs code"},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			ws := t.TempDir()
			home := filepath.Join(ws, "home")
			canary := filepath.Join(home, "canary.txt")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(canary, []byte("still here"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", home)
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			var out, errb bytes.Buffer
			code := realMain(context.Background(), []string{"run", "--offline", "--yes", "--trace", trace, "--workspace", ws, "run `" + tc.command + "`"},
				strings.NewReader(""), &out, &errb)
			if code != exitOK {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
			}
			if _, err := os.Stat(canary); err != nil {
				t.Fatalf("the command ran: HOME's canary is gone (%v)\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), tc.shows) {
				t.Errorf("the trace does not show %q:\n%s", tc.shows, out.String())
			}
			if !strings.Contains(out.String(), "execute_command") {
				t.Errorf("the tutor never called execute_command:\n%s", out.String())
			}
			// A confirmation only a person may answer goes unanswered, and
			// the trace says why.
			if strings.Contains(tc.shows, "needs a person") {
				b, err := os.ReadFile(trace)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.String(), "--user_denial--> RECORDING_ERROR") ||
					!strings.Contains(string(b), `"kind":"user_denied","message":"No approval could be obtained (--yes does not answer this confirmation, only a person may (rule unknowable-command: needs a person: `) {
					t.Errorf("the denial does not say --yes left it unanswered:\n%s\n%s", out.String(), b)
				}
			}
		})
	}

	// An ordinary command is still approved by --yes, and runs.
	ws := t.TempDir()
	var out, errb bytes.Buffer
	if code := realMain(context.Background(), []string{"run", "--offline", "--yes", "--workspace", ws, "run `echo yes > proof.txt`"},
		strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "proof.txt")); err != nil || string(b) != "yes\n" {
		t.Fatalf("the approved command did not run: %q, %v\n%s", b, err, out.String())
	}
}
