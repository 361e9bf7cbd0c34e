//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	gossh "golang.org/x/crypto/ssh"
)

// Issue 28, "attack what no one has": each on the built binary.

// A stdio server reads what its command line names. Named the key that
// seals approvals, or the home folder that holds it, the hostile server
// (--leak FILE writes FILE to its log, which glassbox shows when the
// handshake fails) read the key; glassbox now refuses to start it, naming
// the word, before anything runs.
func TestServerCommandLineCannotOpenTheStateFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state")
	key := filepath.Join(state, "glassbox", "approvals.key")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("sealing-key-4714"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, _ := callServer(t, "x__echo", `{"text":"hi"}`)
	for _, words := range []string{key, key + " " + home} {
		ws := t.TempDir()
		cmd := exec.Command(bin, "run", "--live", "--yes", "--workspace", ws, "--mcp", "x=python3 "+hostileScript()+" --leak "+words, "read it")
		cmd.Dir = ws
		cmd.Env = append(liveEnv(srv, t.TempDir()), "HOME="+home, "XDG_STATE_HOME="+state)
		out, err := cmd.CombinedOutput()
		if strings.Contains(string(out), "sealing-key-4714") {
			t.Fatalf("%s: the server read the approvals key:\n%s", words, tail(out))
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(string(out), "the server's command line names") {
			t.Errorf("%s: %v\n%s", words, err, tail(out))
		}
	}
}

// NeedsPerson under --yes through mcp-serve: a caller on the bus asks for
// a command the security layer cannot read. --yes leaves it unanswered,
// so it is denied — never put to the caller's own person either — and
// the command does not run; an ordinary command still runs. (tap, which
// does not exist yet, needs the same test.)
func TestNeedsPersonIsNotAnsweredByYesThroughMCPServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	isolate(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "canary.txt"), "still here")
	var stderr syncBuffer
	cmd := serveCmd(t, &stderr, "--offline", "--yes", "--json", "--workspace", ws)
	elicited := 0
	var mu sync.Mutex
	cs := connect(t, &mcp.CommandTransport{Command: cmd}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		elicited++
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
	})
	res := ask(t, cs, "run `$(printf r%s m) -f canary.txt`")
	if _, err := os.Stat(filepath.Join(ws, "canary.txt")); err != nil {
		t.Fatalf("the command ran: the canary is gone\n%s\n%s", resultText(res), stderr.String())
	}
	// The trace reaches standard error as glassbox writes it, maybe after
	// the answer.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "--yes does not answer this confirmation, only a person may (rule unknowable-command"); {
		if time.Now().After(deadline) {
			t.Fatalf("the denial does not say why:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	if elicited != 0 {
		t.Errorf("the caller's person was asked %d times", elicited)
	}
	mu.Unlock()
	ask(t, cs, "run `echo yes > proof.txt`")
	if b, err := os.ReadFile(filepath.Join(ws, "proof.txt")); err != nil || string(b) != "yes\n" {
		t.Errorf("an ordinary command under --yes: %q %v\n%s", b, err, stderr.String())
	}
}

// kill -9 of `glassbox serve` while two learners' commands run: nothing
// is left behind — not the commands, not their helpers, not their
// temporary folders, not their cgroups.
func TestKill9OfServeLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	tmp := t.TempDir()
	serve, addr, passphrase := startServe(t, t.TempDir(), tmp)
	marker := fmt.Sprintf("309.%d", time.Now().UnixNano()%1000000)
	for _, name := range []string{"ada", "grace"} {
		learnerRuns(t, addr, name, passphrase, "run `sleep "+marker+" & sleep "+marker+"`")
	}
	deadline := time.Now().Add(60 * time.Second)
	for countProcesses(marker) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the learners' commands never ran (%d of 4 processes)", countProcesses(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid := serve.Process.Pid
	t.Logf("%d processes sleep %s, helpers %v", countProcesses(marker), marker, helpersWith("TMPDIR="+tmp))
	if err := serve.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	serve.Wait()
	deadline = time.Now().Add(30 * time.Second) // each helper stops its program's tree, then cleans up
	for {
		left := leftBehind(tmp, pid, marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after kill -9 of serve: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startServe starts the built `glassbox serve --yes` on a loopback port,
// its state in state and its temporary folder tmp, until the test ends,
// and reads where it listens and its passphrase.
func startServe(t *testing.T, state, tmp string) (serve *exec.Cmd, addr, passphrase string) {
	t.Helper()
	serve = exec.Command(builtGlassbox(t), "serve", "--addr", "127.0.0.1:0", "--yes")
	serve.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "TMPDIR="+tmp, "GEMINI_API_KEY=", "GOOGLE_API_KEY=")
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	serve.Stderr = serve.Stdout
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	addr, passphrase = readAnnouncement(t, out)
	return serve, addr, passphrase
}

// readAnnouncement reads serve's banner until it has the address and the
// passphrase.
func readAnnouncement(t *testing.T, out io.Reader) (addr, passphrase string) {
	t.Helper()
	listening := regexp.MustCompile(`listening on (\S+)`)
	phrase := regexp.MustCompile(`workshop passphrase:\s+(\S+)`)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
		if m := phrase.FindStringSubmatch(sc.Text()); m != nil {
			passphrase = m[1]
		}
		if addr != "" && passphrase != "" {
			go io.Copy(io.Discard, out)
			return addr, passphrase
		}
	}
	t.Fatalf("serve never said where it listens (%q, %q)", addr, passphrase)
	return "", ""
}

// learnerRuns connects as a learner and has their glass box run request
// (serve runs with --yes); the function returned waits until their screen
// shows a text.
func learnerRuns(t *testing.T, addr, name, passphrase, request string) func(string) {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: name, Auth: []gossh.AuthMethod{gossh.Password(passphrase)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 34, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var screen strings.Builder
	sess.Stdout = writerTo(func(b []byte) { mu.Lock(); screen.Write(b); mu.Unlock() })
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	waitScreen := func(want string) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			s := ansi.Strip(screen.String())
			mu.Unlock()
			if strings.Contains(s, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s's screen never showed %q:\n%s", name, want, s[max(0, len(s)-2000):])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitScreen("You are a learner in this room") // the welcome opens at its first line
	in.Write([]byte(request + "\r"))
	waitScreen("press space to take it")
	in.Write([]byte("c"))
	return waitScreen
}

type writerTo func([]byte)

func (w writerTo) Write(b []byte) (int, error) { w(b); return len(b), nil }

// leftBehind lists what a dead serve (pid) left: processes sleeping
// marker, helpers, command folders in tmp, cgroups named after it.
func leftBehind(tmp string, pid int, marker string) []string {
	var left []string
	if n := countProcesses(marker); n > 0 {
		left = append(left, fmt.Sprintf("%d processes sleep %s", n, marker))
	}
	for _, p := range helpersWith("TMPDIR=" + tmp) {
		left = append(left, "a helper: "+p)
	}
	folders, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("glassbox-cmd-%d-*", pid)))
	left = append(left, folders...)
	cgroups, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/*/glassbox-%d-*", pid))
	more, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/*/*/*/glassbox-%d-*", pid))
	return append(append(left, cgroups...), more...)
}

// helpersWith lists the sandbox helpers whose environment holds s (their
// TMPDIR names the folder of the glassbox that started them).
func helpersWith(s string) []string {
	var out []string
	for _, p := range hostProcesses("__sandbox-exec") {
		if env, err := os.ReadFile(filepath.Join(p, "environ")); err == nil && strings.Contains(string(env), s) {
			out = append(out, p)
		}
	}
	return out
}

// The predict scores' seal (an HMAC keyed by the host key) is checked on
// every load; here the attack comes from where a learner can act: their
// own command, run approved in their own workspace, which sits two folders
// below their scores file. Writing it, through a link or not, is refused
// by the kernel, and the learner's folder gains nothing. The direct write
// names its target only at run time: written literally, the policy's
// write-outside-workspace rule would deny the whole line before the kernel
// is asked.
func TestALearnersCommandCannotWriteTheirScores(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	state := t.TempDir()
	_, addr, passphrase := startServe(t, state, t.TempDir())
	forged := `{"learner":"x","scores":{"tour":{"right":99,"total":99}},"seal":"00"}`
	wait := learnerRuns(t, addr, "eve", passphrase, "run `echo '"+forged+"' > \"$(echo ../../scores.json)\"; ln -s ../../scores.json s; echo '"+forged+"' > s; echo done-$((6*7))`")
	wait("done-42")
	learners, _ := filepath.Glob(filepath.Join(state, "glassbox", "serve", "learners", "*"))
	if len(learners) != 1 {
		t.Fatalf("learner folders: %v", learners)
	}
	if _, err := os.Lstat(filepath.Join(learners[0], "session.files", "workspace", "s")); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(learners[0], "scores.json")); err == nil && strings.Contains(string(b), "99") {
		t.Fatalf("the learner's command wrote their scores: %s", b)
	}
}
