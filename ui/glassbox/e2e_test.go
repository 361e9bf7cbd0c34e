package glassbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndToEndInTmux builds the real binary and drives it in tmux the way a
// learner would: send the tour lesson, step, continue to the answer, resize
// down to a phone-sized terminal and back, quit. On a developer machine
// without tmux it is skipped; in CI (CI set, as .ci/run runs) a missing tmux
// is a failure, so the test can never quietly not run there.
func TestEndToEndInTmux(t *testing.T) {
	ws := t.TempDir()
	tm := startTmux(t, 160, 48, "--offline", "--workspace", ws, "--sim-latency", "50ms")
	screen, waitFor, keys := tm.screen, tm.waitFor, tm.keys

	waitFor("the welcome", has("Enter: send the tour lesson"))
	s := screen()
	for _, want := range []string{"History", "State machine", "Tool calls", "Raw payload", "OFFLINE"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the first screen lacks %q:\n%s", want, s)
		}
	}

	keys("Enter")
	waitFor("the queued event", has("press space to take it"))
	keys("Space")
	waitFor("new_event", has("state ASSEMBLING_CONTEXT"))
	keys("Space")
	waitFor("context_ready", has("state AWAITING_LLM_RESPONSE"))
	keys("Space")
	waitFor("the model's tool call", has("state CHECKING_POLICY"))
	waitFor("the tool call in History", has("→ list_files"))

	keys("c")
	waitFor("the answer", has("answer delivered to ui"))
	waitFor("idle", has("state WAITING_FOR_EVENT"))

	// A sentence typed with the stepper focused: nothing quits (the q of
	// "quickly" only asks), nothing is lost (it all lands in the input).
	keys("-l", "quickly list the files")
	waitFor("the sentence in the input", has("› quickly list the files"))
	if _, err := tm.tmux("has-session", "-t", "gb"); err != nil {
		t.Fatal("typing a sentence at the stepper quit glassbox")
	}
	keys("Enter") // sent: the input is empty again
	waitFor("the sentence queued", has("event queued"))

	// Smaller: tabs; tiny: the too-small notice; back: four panes again.
	tm.resize(80, 24)
	waitFor("tabs at 80×24", has("History │ State machine │ Tool calls │ Raw payload"))
	tm.resize(28, 8)
	waitFor("the too-small notice", func(s string) bool {
		return strings.Contains(strings.ReplaceAll(s, "\n", " "), "too small")
	})
	tm.resize(160, 48)
	waitFor("four panes again", func(s string) bool {
		// A pane whose status is long is framed with its short name.
		return strings.Contains(s, "─ State machine ─") && (strings.Contains(s, "─ Raw payload ─") || strings.Contains(s, "─ Raw ─")) && !strings.Contains(s, "tab ⇥")
	})

	// A two-line request: both lines stay visible while typing (a
	// textarea that grows after the newline scrolls its first line away).
	keys("/")
	keys("-l", "first line")
	keys("M-Enter")
	keys("-l", "second line")
	waitFor("both input lines", func(s string) bool {
		return strings.Contains(s, "› first line") && strings.Contains(s, "› second line")
	})
	keys("Escape")
	// Wait for the stepper before [: esc and [ read together are the start
	// of an escape sequence, not two keys.
	waitFor("the stepper's keys", has("space/n step"))

	// Time travel one step back, then quit.
	keys("[")
	waitFor("time travel", has("◀ step"))
	keys("q")
	waitFor("the quit question", has("quit glassbox?"))
	keys("y")
	tm.waitExit()
}

// TestEndToEndApprovalOpensInTheSameStep steps the write-file lesson in
// tmux with space: the step that enters AWAITING_USER_CONFIRMATION shows
// the approval dialog at once; esc hides it (space brings it back) and y
// approves.
func TestEndToEndApprovalOpensInTheSameStep(t *testing.T) {
	ws := t.TempDir()
	tm := startTmux(t, 120, 34, "--offline", "--lesson", "write-file", "--workspace", ws, "--sim-latency", "10ms")
	waitFor, keys := tm.waitFor, tm.keys
	waitFor("the welcome", has("Enter: send the write-file lesson"))
	keys("Enter")
	waitFor("the queued event", has("press space to take it"))
	for _, want := range []string{"ASSEMBLING_CONTEXT", "AWAITING_LLM_RESPONSE", "CHECKING_POLICY"} {
		keys("Space")
		waitFor(want, has("state "+want))
	}
	keys("Space") // confirm_required: the same press opens the dialog
	s := waitFor("AWAITING_USER_CONFIRMATION", has("AWAITING_USER_CONFIRMATION"))
	if !strings.Contains(s, "Confirm: write_file") {
		s = waitFor("the dialog", has("Confirm: write_file"))
	}
	contains(t, s, "y allow once")
	if strings.Contains(s, "state CHECKING_POLICY") {
		t.Fatalf("the dialog opened before the state changed:\n%s", s)
	}
	keys("Escape")
	waitFor("the dialog hidden", has("dialog is hidden"))
	keys("Space")
	waitFor("the dialog back", has("Confirm: write_file"))
	keys("y")
	waitFor("user_approval", has("state EXECUTING_TOOL"))
	keys("c")
	waitFor("the answer", has("state WAITING_FOR_EVENT"))
	if _, err := os.Stat(filepath.Join(ws, "farewell.py")); err != nil {
		t.Fatalf("farewell.py was not written: %v", err)
	}
}

// tmuxRun is the real binary running in a tmux session of the test's own.
type tmuxRun struct {
	t    *testing.T
	tmux func(args ...string) (string, error)
}

// startTmux builds glassbox and starts it in tmux at w×h with args, in a
// clean environment: no API keys (the offline simulation runs), logs in a
// state folder of the test's own. On a developer machine without tmux the
// test is skipped; in CI (CI set, as .ci/run runs) a missing tmux is a
// failure, so the test can never quietly not run there.
func startTmux(t *testing.T, w, h int, args ...string) *tmuxRun {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: .ci/run installs it before the tests")
		}
		t.Skip("tmux is not installed (apt-get install tmux to run this test)")
	}
	root := moduleRoot(t)
	bin := filepath.Join(t.TempDir(), "glassbox")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	socket := fmt.Sprintf("glassbox-e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	tm := &tmuxRun{t: t, tmux: func(args ...string) (string, error) {
		cmd := exec.Command(tmux, append([]string{"-L", socket}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}}
	t.Cleanup(func() { _, _ = tm.tmux("kill-server") })
	command := fmt.Sprintf("env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u OLLAMA_HOST -u OLLAMA_BASE_URL XDG_STATE_HOME=%s TMPDIR=%s TERM=xterm-256color %s %s",
		t.TempDir(), t.TempDir(), bin, strings.Join(args, " "))
	if out, err := tm.tmux("new-session", "-d", "-s", "gb", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return tm
}

func (tm *tmuxRun) screen() string {
	out, _ := tm.tmux("capture-pane", "-p", "-t", "gb")
	return out
}

// waitFor waits until ok holds for the screen, and returns that screen.
func (tm *tmuxRun) waitFor(what string, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *tmuxRun) keys(k ...string) {
	tm.t.Helper()
	if out, err := tm.tmux(append([]string{"send-keys", "-t", "gb"}, k...)...); err != nil {
		tm.t.Fatalf("send-keys %v: %v\n%s", k, err, out)
	}
}

func (tm *tmuxRun) resize(w, h int) {
	tm.t.Helper()
	if out, err := tm.tmux("resize-window", "-t", "gb", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h)); err != nil {
		tm.t.Fatalf("resize: %v\n%s", err, out)
	}
}

// waitExit waits for the program to exit (it takes the session with it).
func (tm *tmuxRun) waitExit() {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := tm.tmux("has-session", "-t", "gb"); err != nil {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the program did not exit; the screen:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// has is a waitFor condition: the screen contains sub.
func has(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// moduleRoot is the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside a Go module")
	}
	return filepath.Dir(gomod)
}

// TestEndToEndCompareInTmux: the card's side by side in the real binary.
// Enter sends the tour's request to both runs; three steps later both raw
// responses are on one 160×48 screen, under the comparison strip.
func TestEndToEndCompareInTmux(t *testing.T) {
	tm := startTmux(t, 160, 48, "--compare", "--sim-latency", "50ms")
	tm.waitFor("both runs", func(s string) bool {
		return strings.Contains(s, "Gemini · native function calling") && strings.Contains(s, "Llama · JSON-mode prompting")
	})
	tm.keys("Enter")
	tm.waitFor("the event queued in both", has("event queued in both runs"))
	tm.keys("Space")
	tm.waitFor("new_event", has("gemini  ASSEMBLING_CONTEXT"))
	tm.keys("Space")
	tm.waitFor("context_ready", has("not sent yet · request (r)"))
	tm.keys("Space")
	s := tm.waitFor("both responses", func(s string) bool {
		return strings.Count(s, "response (r)") == 2 && strings.Contains(s, "gemini  CHECKING_POLICY") && strings.Contains(s, "llama  CHECKING_POLICY")
	})
	// Each payload pane has scrolled to what decided tool_call: Gemini's
	// functionCall part, the JSON Llama's reply was parsed into.
	for _, want := range []string{"tool_use / STOP", "tool_use / stop", "functionCall", "2 · the JSON extracted", "▶ tool_call"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, s)
		}
	}
	tm.resize(120, 34) // the projector: the strip stays, the runs become tabs
	tm.waitFor("the run bar at 120×34", has("keys act on both runs · tab picks one"))
	tm.keys("c")
	tm.waitFor("both answers", func(s string) bool {
		return strings.Contains(s, "gemini  WAITING_FOR_EVENT") && strings.Contains(s, "llama  WAITING_FOR_EVENT")
	})
	tm.keys("q")
	tm.waitFor("the quit question", has("quit glassbox?"))
	tm.keys("y")
	tm.waitExit()
}
