//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
)

// Issue 19, on the built binary: the confinement as an attacker meets it.

// scriptServer plays Gemini asking for one execute_command per request, in
// order, then answering in text.
func scriptServer(t *testing.T, commands ...string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		i := next
		next++
		mu.Unlock()
		part := `{"text":"done"}`
		if i < len(commands) {
			args, _ := json.Marshal(map[string]string{"command": commands[i]})
			part = fmt.Sprintf(`{"functionCall":{"name":"execute_command","args":%s}}`, args)
		}
		writeGeminiReply(w, r, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[%s]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}}`, part))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// liveEnv is the environment for a live run against srv.
func liveEnv(srv *httptest.Server, tmp string) []string {
	return append(os.Environ(), "TMPDIR="+tmp, "GEMINI_API_KEY="+testKey, "GOOGLE_GEMINI_BASE_URL="+srv.URL, "GOOGLE_API_KEY=")
}

// toolResults are the contents of the tool results in a JSON trace.
func toolResults(t *testing.T, trace string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(trace, "\n") {
		var rec struct {
			Result *struct {
				Content string `json:"content"`
				Sandbox string `json:"sandbox"`
			} `json:"result"`
		}
		// The result comes with the record that produced it (the one
		// carrying the sandbox line) and again when it is observed.
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Result != nil && rec.Result.Sandbox != "" {
			out = append(out, rec.Result.Sandbox+"\n"+rec.Result.Content)
		}
	}
	return out
}

// Issue item 3: with the binary inside the workspace (go build && ./glassbox
// --workspace .), a command replaces ./glassbox; the next command must still
// run confined by the real helper, not by the attacker's program.
func TestBinaryInWorkspaceCannotBeSwapped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	ws := t.TempDir()
	bin := filepath.Join(ws, "glassbox")
	if err := os.Rename(buildGlassbox(t), bin); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	pwned := filepath.Join(outside, "pwned")
	escaped := filepath.Join(outside, "escaped")
	// Removed, then written anew: the running program's path now names
	// the attacker's file (os.Executable drops the " (deleted)").
	swap := fmt.Sprintf(`rm glassbox && printf '#!/bin/sh\necho pwned > %s\nexec sh -c "$5"\n' > glassbox && chmod +x glassbox && echo swapped`, pwned)
	// The target is known only at run time, so the policy (which denies a
	// literal write outside the workspace) leaves it to the kernel.
	escape := `echo escaped > "$(echo ` + escaped + `)"`
	srv := scriptServer(t, swap, escape, escape)
	cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--workspace", ws, "hi")
	cmd.Dir = ws
	cmd.Env = liveEnv(srv, t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, out)
	}
	results := toolResults(t, string(out))
	if len(results) != 3 || !strings.Contains(results[0], "swapped") {
		t.Fatalf("results: %q", results)
	}
	for _, r := range results[1:] {
		if !strings.HasPrefix(r, "on") || !strings.Contains(r, "Permission denied") {
			t.Errorf("after the swap a command ran %q", r)
		}
	}
	for _, f := range []string{pwned, escaped} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s exists: the swapped program ran as the helper", f)
		}
	}
}

// Issue item 7: kill -9 of glassbox leaves nothing running — not the
// command, not its background jobs, not a setsid daemon — and the next
// start removes the command folders a dead glassbox left. Three rounds:
// the kill races the helper.
func TestKill9LeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	for round := 0; round < 3; round++ {
		marker := fmt.Sprintf("309.%d%d", round, time.Now().UnixNano()%1000000)
		srv := scriptServer(t, "sleep "+marker+" & setsid sleep "+marker+" >/dev/null 2>&1 & (trap '' TERM HUP; sleep "+marker+") & sleep "+marker)
		tmp := t.TempDir()
		cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "hi")
		cmd.Dir = t.TempDir()
		cmd.Env = liveEnv(srv, tmp)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for countProcesses(marker) < 4 {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("the command's processes never started (%d)", countProcesses(marker))
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		deadline = time.Now().Add(10 * time.Second)
		for countProcesses(marker) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d of the command's processes outlived glassbox's kill -9", round, countProcesses(marker))
			}
			time.Sleep(10 * time.Millisecond)
		}
		// A folder left by a glassbox that died (its pid is gone, nobody
		// holds its lock) goes at the next start.
		stale := filepath.Join(tmp, fmt.Sprintf("glassbox-cmd-%d-1", cmd.Process.Pid))
		if err := os.MkdirAll(filepath.Join(stale, "home"), 0o700); err != nil {
			t.Fatal(err)
		}
		v := exec.Command(bin, "version")
		v.Env = append(os.Environ(), "TMPDIR="+tmp)
		if out, err := v.CombinedOutput(); err != nil {
			t.Fatalf("glassbox version: %v\n%s", err, out)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "glassbox-cmd-*")); len(left) > 0 {
			t.Fatalf("round %d: command folders left after the next start: %v", round, left)
		}
	}
}

// Issue item 2 and 8, in tmux as a learner runs it: a command that asks
// the tmux server it runs under to run something (tmux run-shell, by
// $TMUX, by the server's name, by its socket's path) must not write
// outside the workspace, and a title written to /dev/tty must not reach
// the terminal.
func TestTmuxEscapeIsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("this test needs tmux: %v", err)
	}
	bin := buildGlassbox(t)
	sock := fmt.Sprintf("sandbox-%d", os.Getpid())
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	socketPath := fmt.Sprintf("/tmp/tmux-%d/%s", os.Getuid(), sock)
	t.Cleanup(func() {
		tmux("kill-server")
		os.Remove(socketPath) // the server leaves its socket file behind
	})
	outside := t.TempDir()
	attack := strings.Join([]string{
		`tmux run-shell "id > ` + outside + `/by-env"`,
		`tmux -L ` + sock + ` run-shell "id > ` + outside + `/by-name"`,
		`tmux -S ` + socketPath + ` run-shell "id > ` + outside + `/by-path"`,
		`printf '\033]2;glassbox-pwned\007' > /dev/tty`,
		`echo attempted`,
	}, "; ")
	srv := scriptServer(t, attack)
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	var env strings.Builder
	for _, kv := range liveEnv(srv, t.TempDir()) {
		if k, v, ok := strings.Cut(kv, "="); ok && !strings.ContainsAny(k, "%-.") && k != "TMUX" && k != "TMUX_PANE" {
			fmt.Fprintf(&env, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
		}
	}
	fmt.Fprintf(&env, "%s run --live --yes --json --workspace %s hi > %s/out 2>&1\necho exit=$? >> %s/out\nsleep 600\n", bin, t.TempDir(), dir, dir)
	if err := os.WriteFile(script, []byte(env.String()), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", "sh "+script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	var out []byte
	for !strings.Contains(string(out), "exit=") {
		if time.Now().After(deadline) {
			t.Fatalf("glassbox did not finish in tmux: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
		out, _ = os.ReadFile(filepath.Join(dir, "out"))
	}
	if !strings.Contains(string(out), "exit=0") || !strings.Contains(string(out), "attempted") {
		t.Fatalf("glassbox in tmux: %s", out)
	}
	for _, f := range []string{"by-env", "by-name", "by-path"} {
		if b, err := os.ReadFile(filepath.Join(outside, f)); err == nil {
			t.Errorf("the tmux server ran the command's %s: %s", f, b)
		}
	}
	title, err := tmux("display-message", "-p", "-t", "main", "#{pane_title}")
	if err != nil || strings.Contains(title, "glassbox-pwned") {
		t.Errorf("pane title %q (%v): the command reached the terminal", title, err)
	}
}

// Item 8: the `glassbox run` header names what the sandbox leaves open for
// this run's policy: nothing by default, TCP and UDP when the policy sets
// network = true; and the policy's env reaches the command, a secret name
// in it is refused.
func TestRunHeaderNamesWhatIsOpen(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	open := filepath.Join(dir, "network.toml")
	if err := os.WriteFile(open, []byte(strings.Replace(loop.DefaultPolicyTOML, "network = false", "network = true", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.toml")
	if err := os.WriteFile(secret, []byte("env = [\"GITHUB_TOKEN\"]\n"+loop.DefaultPolicyTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--offline", "hi"}, exitOK, "\nsandbox: on — Landlock ABI"},
		{[]string{"run", "--offline", "--policy", open, "hi"}, exitOK, "\nsandbox: on (open: TCP, UDP) — "},
		{[]string{"run", "--offline", "--policy", secret, "hi"}, exitUsage, "env: GITHUB_TOKEN looks like a secret"},
	} {
		var out, errb strings.Builder
		code := realMain(t.Context(), tc.args, strings.NewReader(""), &out, &errb)
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d and %q in\n%s%s", tc.args, code, tc.code, tc.want, out.String(), errb.String())
		}
	}
}

// The .env glassbox read is out of reach of commands even when glassbox
// runs in the folder it hands the agent (--workspace .), on the built
// binary: the command finds it empty, glassbox still read its key from it.
func TestDotEnvInTheWorkspaceIsConcealed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	ws := t.TempDir()
	srv := commandServer(t, "cat .env; grep -r dotenv-marker . ; echo done")
	dotenv := "# dotenv-marker-4711\nGEMINI_API_KEY=" + testKey + "\nGOOGLE_GEMINI_BASE_URL=" + srv.URL + "\n"
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(dotenv), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--max-iterations", "2", "--workspace", ".", "hi")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "GOOGLE_GEMINI_BASE_URL=")
	out, _ := cmd.CombinedOutput()
	results := toolResults(t, string(out))
	if len(results) == 0 || !strings.Contains(results[0], "done") {
		t.Fatalf("the command did not run (did glassbox read its key from .env?):\n%s", out)
	}
	for _, r := range results {
		if strings.Contains(r, "dotenv-marker") || strings.Contains(r, "REDACTED") {
			t.Fatalf("the command read the .env glassbox read: %s", r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != dotenv {
		t.Fatalf(".env changed: %q", b)
	}
}

// The same holds when each run works on a copy of that folder: in compare
// mode both runs' copies of the .env are hidden from their commands.
func TestDotEnvCopiesAreConcealedInCompareMode(t *testing.T) {
	isolate(t)
	dir, _ := os.Getwd() // isolate's fresh folder: the project glassbox runs in
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("# dotenv-marker-4712\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := realMain(t.Context(), []string{"run", "--offline", "--yes", "--json", "--compare", "--workspace", ".", "run `cat .env; echo read-done`"}, strings.NewReader(""), &out, &errb)
	results := toolResults(t, out.String())
	if code != exitOK || len(results) != 2 {
		t.Fatalf("exit %d, %d results:\n%s%s", code, len(results), out.String(), errb.String())
	}
	for _, r := range results {
		if !strings.Contains(r, "read-done") || strings.Contains(r, "dotenv-marker") {
			t.Fatalf("a run's command: %s", r)
		}
	}
}
