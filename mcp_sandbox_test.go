//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 21, parts 2 and 4, on the built binary and through `glassbox run`:
// the demo server inside glassbox, and stdio servers under the sandbox.

// hostileScript is the path of tools/mcptool/testdata/hostile_server.py.
func hostileScript() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "tools", "mcptool", "testdata", "hostile_server.py")
}

// TestKill9LeavesNoServerBehind: a stdio server that leaves a daemon
// running (its own session, SIGTERM and SIGHUP ignored), then glassbox is
// killed with kill -9 while it waits for a person: neither the server nor
// the daemon outlives it, and no server folder is left once the next
// glassbox starts. Three rounds: the kill races the helper.
func TestKill9LeavesNoServerBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	for round := 0; round < 3; round++ {
		marker := fmt.Sprintf("322.%d%d", round, time.Now().UnixNano()%1000000)
		tmp := t.TempDir()
		cmd := exec.Command(bin, "run", "--offline", "--json", "--lesson", "mcp-tool",
			"--mcp", "evil=python3 "+hostileScript()+" --spawn "+marker)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+t.TempDir(), "HOME="+t.TempDir())
		stdin, err := cmd.StdinPipe() // open, silent: glassbox waits at the approval
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The trace's confirm_required record: the server is up and glassbox
		// waits for a person.
		waiting := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"edge":"confirm_required"`) {
					waiting <- true
				}
			}
			close(waiting)
		}()
		if !<-waiting {
			cmd.Process.Kill()
			t.Fatalf("round %d: glassbox ended before it asked", round)
		}
		// The daemon's parent returns before it has become `sleep`.
		deadline := time.Now().Add(10 * time.Second)
		for countProcesses(marker) != 1 {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("round %d: the daemon is not running", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		stdin.Close()
		deadline = time.Now().Add(10 * time.Second)
		for countProcesses(marker) > 0 || serverRuns(marker) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the server or its daemon outlived glassbox's kill -9", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		v := exec.Command(bin, "version")
		v.Env = append(os.Environ(), "TMPDIR="+tmp)
		if out, err := v.CombinedOutput(); err != nil {
			t.Fatalf("glassbox version: %v\n%s", err, out)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "glassbox-cmd-*")); len(left) > 0 {
			t.Fatalf("round %d: server folders left after the next start: %v", round, left)
		}
	}
}

// serverRuns reports whether a hostile server started with marker runs.
func serverRuns(marker string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), "hostile_server.py\x00--spawn\x00"+marker) {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				return true
			}
		}
	}
	return false
}

// TestMCPDemoOnTheBuiltBinary: `glassbox run --offline --lesson mcp-tool`
// with nothing installed and no --mcp: the built binary starts itself
// again as the demo server, under the sandbox; tools/list opens the run,
// the tools/call and its answer sit in the step that ran the tool, and the
// model quotes the answer.
func TestMCPDemoOnTheBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	cmd := exec.Command(bin, "run", "--offline", "--json", "--lesson", "mcp-tool")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "PATH=/nonexistent")
	cmd.Stdin = strings.NewReader("y\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, out)
	}
	var lines []traceLine
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var tl traceLine
		if err := json.Unmarshal([]byte(l), &tl); err != nil {
			t.Fatalf("not a trace line: %q", l)
		}
		lines = append(lines, tl)
	}
	if first := strings.Join(frameMethods(lines[0]), ", "); !strings.HasPrefix(first, "send initialize, recv initialize, send notifications/initialized, send tools/list, recv tools/list") {
		t.Errorf("first record's frames: %s", first)
	}
	var called bool
	for _, l := range lines {
		if l.Edge == "tool_success" && strings.Join(frameMethods(l), ", ") == "send tools/call, recv tools/call" {
			called = true
		}
	}
	if last := lines[len(lines)-1]; !called || last.Output == nil || !strings.Contains(last.Output.Text, "echo: hello from the glass box") {
		t.Fatalf("the demo's echo was not called and quoted: %s", out)
	}
}

// TestMCPDemoReplaysWithoutAServer: a run of the lesson with the demo
// server, recorded, replays with no server started: --replay brings the
// demo back from the recording.
func TestMCPDemoReplaysWithoutAServer(t *testing.T) {
	isolate(t)
	cassette := filepath.Join(t.TempDir(), "demo.cassette")
	code, recorded, stderr := runJSON(t, "y\n", "--offline", "--lesson", "mcp-tool", "--record", cassette)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(cassette + ".mcp.jsonl")
	if err != nil || !strings.Contains(string(b), `"server":"demo"`) {
		t.Fatalf("the MCP recording: %v %.200s", err, b)
	}
	code, replayed, stderr := runJSON(t, "y\n", "--replay", cassette, "--lesson", "mcp-tool")
	if code != exitOK {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	if got, want := strings.Join(edges(replayed), " "), strings.Join(edges(recorded), " "); got != want {
		t.Fatalf("replayed edges %s\nrecorded %s", got, want)
	}
	if last := replayed[len(replayed)-1]; !strings.Contains(last.Output.Text, "echo: hello from the glass box") {
		t.Errorf("replayed answer = %q", last.Output.Text)
	}
}

// TestMCPServerLogIsMasked: a server's log (its standard error, added to
// the reason it failed) is masked: a server that writes a key glassbox
// knows (from the workspace's .env) to its log before failing the
// handshake shows the reason, never the key. It reads the key from
// another file of the workspace: every .env* glassbox read is empty to it
// (issue 28), which the first run shows.
func TestMCPServerLogIsMasked(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	const key = "sk-proj-4hN8qTz2LmW9xYc3VbK7"
	for _, f := range []string{".env", "leak.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("OPENAI_API_KEY="+key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runJSON(t, "", "--offline", "--workspace", ws, "--mcp", "evil=python3 "+hostileScript()+" --leak .env", "hi")
	if code != exitUsage || strings.Contains(stderr, "OPENAI_API_KEY") {
		t.Fatalf("exit %d, stderr %q; want the handshake's failure, the .env read empty", code, stderr)
	}
	code, _, stderr = runJSON(t, "", "--offline", "--workspace", ws, "--mcp", "evil=python3 "+hostileScript()+" --leak leak.txt", "hi")
	if code != exitUsage || !strings.Contains(stderr, "the server wrote: OPENAI_API_KEY=") {
		t.Fatalf("exit %d, stderr %q; want the handshake's failure with the server's log", code, stderr)
	}
	if strings.Contains(stderr, key) || strings.Contains(stderr, key[:12]) {
		t.Fatalf("the key is on the screen: %q", stderr)
	}
}
