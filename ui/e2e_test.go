package ui

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

	ws := t.TempDir()
	state := t.TempDir()
	socket := fmt.Sprintf("glassbox-e2e-%d", os.Getpid())
	tm := func(args ...string) (string, error) {
		cmd := exec.Command(tmux, append([]string{"-L", socket}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	t.Cleanup(func() { _, _ = tm("kill-server") })

	// A clean environment: no API keys, so the offline simulation runs;
	// logs go to a state folder of the test's own.
	command := fmt.Sprintf("env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u OLLAMA_HOST -u OLLAMA_BASE_URL XDG_STATE_HOME=%s TERM=xterm-256color %s --offline --workspace %s --sim-latency 50ms",
		state, bin, ws)
	if out, err := tm("new-session", "-d", "-s", "gb", "-x", "160", "-y", "48", command); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	screen := func() string {
		out, _ := tm("capture-pane", "-p", "-t", "gb")
		return out
	}
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	has := func(sub string) func(string) bool { return func(s string) bool { return strings.Contains(s, sub) } }
	keys := func(k ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "gb"}, k...)...); err != nil {
			t.Fatalf("send-keys %v: %v\n%s", k, err, out)
		}
	}

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

	// Smaller: tabs; tiny: the too-small notice; back: four panes again.
	if out, err := tm("resize-window", "-t", "gb", "-x", "80", "-y", "24"); err != nil {
		t.Fatalf("resize: %v\n%s", err, out)
	}
	waitFor("tabs at 80×24", has("History │ State machine │ Tool calls │ Raw payload"))
	_, _ = tm("resize-window", "-t", "gb", "-x", "28", "-y", "8")
	waitFor("the too-small notice", func(s string) bool {
		return strings.Contains(strings.ReplaceAll(s, "\n", " "), "too small")
	})
	_, _ = tm("resize-window", "-t", "gb", "-x", "160", "-y", "48")
	waitFor("four panes again", func(s string) bool {
		return strings.Contains(s, "─ State machine ─") && strings.Contains(s, "─ Raw payload ─") && !strings.Contains(s, "tab ⇥")
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

	// Time travel one step back, then quit.
	keys("[")
	waitFor("time travel", has("◀ step"))
	keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := tm("has-session", "-t", "gb"); err != nil {
			break // the program exited and took the session with it
		}
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit; the screen:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
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
