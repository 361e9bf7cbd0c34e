//go:build linux

package mcptool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/internal/proctest"
)

// Issue 21, part 4: a stdio server runs under the sandbox that confines
// execute_command's commands. These tests attack it from inside with
// testdata/hostile_server.py, as a server you attached by mistake would.

// requireSandbox fails, loudly, where the sandbox is off: CI's kernel has
// Landlock and seccomp, and a sandbox test that skipped would prove nothing.
func requireSandbox(t *testing.T) {
	t.Helper()
	if s := tools.SandboxStatus(); !strings.HasPrefix(s, "on") {
		t.Fatalf("this test needs the sandbox: %s", s)
	}
}

// hostileServer attaches testdata/hostile_server.py (with extra arguments)
// in ws under box.
func hostileServer(t *testing.T, ws string, box tools.Confinement, extra ...string) *Server {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "hostile_server.py"))
	spec := Spec{Name: "evil", Command: append([]string{"python3", script}, extra...)}
	s, err := Attach(context.Background(), spec, &tools.WireLog{}, Options{Dir: ws, Timeout: 10 * time.Second, Sandbox: box})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call runs the server's tool with args and returns its text.
func call(t *testing.T, s *Server, tool string, args any) string {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := toolNamed(t, s, "evil__"+tool).Run(context.Background(), b)
	if err != nil || res.IsError {
		t.Fatalf("%s %s = %+v, %v", tool, b, res, err)
	}
	return res.Content
}

// attackScene is a home folder with an SSH key and glassbox's approvals
// key under its state folder, a folder beside the workspace, and the
// workspace, which holds the .env glassbox read its keys from.
type attackScene struct {
	ws, sshKey, approvalsKey, outside, dotEnv string
}

func newAttackScene(t *testing.T) attackScene {
	t.Helper()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	sc := attackScene{
		ws:           filepath.Join(base, "ws"),
		sshKey:       filepath.Join(home, ".ssh", "id_ed25519"),
		approvalsKey: filepath.Join(home, ".local", "state", "glassbox", "approvals.key"),
		outside:      filepath.Join(base, "outside"),
	}
	sc.dotEnv = filepath.Join(sc.ws, ".env")
	for path, content := range map[string]string{
		sc.sshKey:                              "-----BEGIN OPENSSH PRIVATE KEY----- the-ssh-key\n",
		sc.approvalsKey:                        "the-approvals-key\n",
		filepath.Join(sc.ws, "notes.txt"):      "the workspace's notes\n",
		sc.dotEnv:                              "GEMINI_API_KEY=the-dotenv-key\n",
		filepath.Join(sc.outside, "plain.txt"): "beside the workspace\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	return sc
}

// TestStdioServerCannotReadOutside: the server reads the workspace and its
// own script's folder, and nothing of the home folder — not an SSH key,
// not glassbox's approvals key — nor a folder beside the workspace; the
// .env glassbox read is empty to it even inside the workspace. Before the
// sandbox it read them all.
func TestStdioServerCannotReadOutside(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	s := hostileServer(t, sc.ws, tools.Confinement{Conceal: []string{sc.dotEnv}})
	if !strings.HasPrefix(s.Sandbox(), "on") {
		t.Fatalf("sandbox line %q", s.Sandbox())
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "hostile_server.py"))
	if got, want := s.Reads(), []string{script, filepath.Dir(script)}; !slices.Equal(got, want) {
		t.Errorf("beyond a command's folders the server may read %q, want exactly %q", got, want)
	}
	if got := call(t, s, "read", map[string]string{"path": filepath.Join(sc.ws, "notes.txt")}); got != "ok: the workspace's notes\n" {
		t.Errorf("reading the workspace: %q", got)
	}
	sibling, _ := filepath.Abs(filepath.Join("testdata", "notes_server.py"))
	if got := call(t, s, "read", map[string]string{"path": sibling}); !strings.HasPrefix(got, "ok: #!/usr/bin/env python3") {
		t.Errorf("reading a file beside its own script: %q", got)
	}
	for _, path := range []string{sc.sshKey, sc.approvalsKey, filepath.Join(sc.outside, "plain.txt"), "/etc/shadow"} {
		if got := call(t, s, "read", map[string]string{"path": path}); !strings.HasPrefix(got, "refused: [Errno 13] Permission denied") {
			t.Errorf("reading %s was not refused (%d bytes came back)", path, len(got)) // what it read stays off the screen
		}
	}
	if got := call(t, s, "read", map[string]string{"path": sc.dotEnv}); got != "ok: " {
		t.Errorf("reading the concealed .env: %q", got)
	}
}

// TestStdioServerCannotWriteOutside: the server writes in the workspace
// and nowhere else — not beside it, not in the home folder, not in its own
// script's folder, which it may only read.
func TestStdioServerCannotWriteOutside(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	s := hostileServer(t, sc.ws, tools.Confinement{})
	if got := call(t, s, "write", map[string]string{"path": filepath.Join(sc.ws, "out.txt")}); got != "ok: written" {
		t.Errorf("writing the workspace: %q", got)
	}
	own, _ := filepath.Abs(filepath.Join("testdata", "pwned.txt"))
	for _, path := range []string{filepath.Join(sc.outside, "pwned.txt"), filepath.Join(filepath.Dir(sc.sshKey), "authorized_keys"), own} {
		got := call(t, s, "write", map[string]string{"path": path})
		if !strings.HasPrefix(got, "refused: ") {
			t.Errorf("writing %s: %q", path, got)
		}
		if _, err := os.Stat(path); err == nil {
			os.Remove(path)
			t.Errorf("%s was written", path)
		}
	}
}

// TestStdioServerCannotOpenSockets: the server cannot reach a Unix socket
// (tmux's server, an SSH agent) and, unless the policy allows network,
// cannot connect out over TCP; with network = true it can.
func TestStdioServerCannotOpenSockets(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	tmuxDir := filepath.Join(t.TempDir(), "tmux-0")
	if err := os.Mkdir(tmuxDir, 0o700); err != nil {
		t.Fatal(err)
	}
	unixL, err := net.Listen("unix", filepath.Join(tmuxDir, "default"))
	if err != nil {
		t.Fatal(err)
	}
	defer unixL.Close()
	tcpL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcpL.Close()
	heard := make(chan string, 4)
	for _, l := range []net.Listener{unixL, tcpL} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				line, _ := bufio.NewReader(c).ReadString('\n')
				heard <- l.Addr().Network() + " " + line
				c.Close()
			}
		}()
	}
	port := tcpL.Addr().(*net.TCPAddr).Port
	s := hostileServer(t, sc.ws, tools.Confinement{})
	if got := call(t, s, "unix", map[string]string{"path": filepath.Join(tmuxDir, "default")}); !strings.HasPrefix(got, "refused: [Errno 1] Operation not permitted") {
		t.Errorf("connecting to tmux's socket: %q", got)
	}
	if got := call(t, s, "tcp", map[string]int{"port": port}); !strings.HasPrefix(got, "refused: ") {
		t.Errorf("connecting out without network: %q", got)
	}
	select {
	case h := <-heard:
		t.Fatalf("a listener heard the server: %q", h)
	default:
	}
	open := hostileServer(t, sc.ws, tools.Confinement{Network: true})
	if got := call(t, open, "tcp", map[string]int{"port": port}); got != "ok: connected" {
		t.Errorf("connecting out with network = true: %q", got)
	}
	if got := call(t, open, "unix", map[string]string{"path": filepath.Join(tmuxDir, "default")}); !strings.HasPrefix(got, "refused: ") {
		t.Errorf("network = true opened Unix sockets: %q", got)
	}
	if h := <-heard; h != "tcp pwned\n" {
		t.Errorf("heard %q", h)
	}
}

// TestStdioServerEnvironmentFollowsThePolicy: a server gets the commands'
// environment — the allow-list, its own HOME and TMPDIR, the variables the
// policy's env passes — and never a key.
func TestStdioServerEnvironmentFollowsThePolicy(t *testing.T) {
	requireSandbox(t)
	t.Setenv("GEMINI_API_KEY", "AIza-secret-for-the-test")
	t.Setenv("GLASSBOX_PASSED", "yes")
	t.Setenv("GLASSBOX_NOT_PASSED", "no")
	script, _ := filepath.Abs(filepath.Join("testdata", "notes_server.py"))
	s, err := Attach(context.Background(), Spec{Name: "notes", Command: []string{"python3", script}}, &tools.WireLog{},
		Options{Dir: t.TempDir(), Sandbox: tools.Confinement{PassEnv: []string{"GLASSBOX_PASSED"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, _ := toolNamed(t, s, "notes__env").Run(context.Background(), nil)
	names := strings.Fields(res.Content)
	for _, want := range []string{"GLASSBOX_PASSED", "HOME", "PATH", "TMPDIR"} {
		if !contains(names, want) {
			t.Errorf("the server's environment lacks %s: %v", want, names)
		}
	}
	for _, not := range []string{"GEMINI_API_KEY", "GLASSBOX_NOT_PASSED"} {
		if contains(names, not) {
			t.Errorf("the server's environment holds %s", not)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestStdioServerLeavesNothingBehind: a daemon the server left running
// (its own session, SIGTERM and SIGHUP ignored) is stopped when the server
// is closed, and the server's temporary folder goes.
func TestStdioServerLeavesNothingBehind(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	marker := fmt.Sprintf("321.%d", time.Now().UnixNano()%1000000)
	s := hostileServer(t, sc.ws, tools.Confinement{}, "--spawn", marker)
	deadline := time.Now().Add(10 * time.Second)
	for countSleeps(marker) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the daemon never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tmp := s.program.TempDir()
	s.Close()
	if n := countSleeps(marker); n != 0 {
		t.Fatalf("%d processes the server left outlived it", n)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Fatalf("the server's temporary folder %s is still there", tmp)
	}
}

// countSleeps counts the live processes running `sleep S`.
func countSleeps(s string) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(b), "sleep\x00"+s+"\x00") {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
			n++
		}
	}
	return n
}

// TestStdioServerHasItsOwnSessionAndNoTerminal: the server runs in a
// session that is not glassbox's, with no controlling terminal. Both are
// read from outside (proctest): inside its PID namespace the server
// cannot see who leads its session.
func TestStdioServerHasItsOwnSessionAndNoTerminal(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	marker := fmt.Sprintf("--tag-%d", time.Now().UnixNano())
	hostileServer(t, sc.ws, tools.Confinement{}, marker)
	script, _ := filepath.Abs(filepath.Join("testdata", "hostile_server.py"))
	st, err := proctest.Find(5*time.Second, "python3", script, marker)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// Issue 28: a stdio server runs within the limits too, and a call that a
// limit stopped fails naming it: the hostile server's hog takes 2 GiB, its
// memory limit is 1 GiB.
func TestStdioServerIsStoppedByItsLimits(t *testing.T) {
	requireSandbox(t)
	sc := newAttackScene(t)
	s := hostileServer(t, sc.ws, tools.Confinement{})
	if !strings.Contains(s.Sandbox(), "1 GiB of memory (cgroup v") || !strings.Contains(s.Sandbox(), "10 min of CPU a process") {
		t.Errorf("the server's sandbox line: %q", s.Sandbox())
	}
	res, err := toolNamed(t, s, "evil__hog").Run(context.Background(), nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "the server reached the memory limit (1 GiB) and was stopped") {
		t.Fatalf("%+v %v", res, err)
	}
}
