//go:build linux

package tools

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requireLandlock fails the test, loudly, where the kernel has no
// Landlock: CI runs on a kernel that has it, and a sandbox test that
// skipped there would prove nothing.
func requireLandlock(t *testing.T) int {
	t.Helper()
	v, err := landlockABI()
	if err != nil {
		t.Fatalf("this test needs Landlock: %v", err)
	}
	return v
}

// Issue 12 item 2: under the sandbox a command may write in the workspace
// and its TMPDIR, and the kernel refuses a write anywhere else although
// glassbox itself (root here) could write there.
func TestSandboxConfinesWrites(t *testing.T) {
	requireLandlock(t)
	ws := newTestWorkspace(t, nil)
	outside := t.TempDir()
	ec := NewExecuteCommand(ws, 10*time.Second)

	res := run(t, ec, `{"command":"echo in > inside.txt && echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\""}`)
	if res.IsError || !strings.Contains(res.Content, "tmp") || readTestFile(t, filepath.Join(ws.Root(), "inside.txt")) != "in\n" {
		t.Fatalf("writing inside: %+v", res)
	}
	if !strings.HasPrefix(res.Sandbox, "on — Landlock ABI") {
		t.Fatalf("sandbox line = %q", res.Sandbox)
	}

	target := filepath.Join(outside, "escaped.txt")
	res = run(t, ec, `{"command":"echo out > `+target+`"}`)
	if !res.IsError || !(strings.Contains(res.Content, "Permission denied") || strings.Contains(res.Content, "Read-only file system")) {
		t.Fatalf("writing outside: %+v", res)
	}
	if !strings.Contains(res.Content, "[sandbox] The security policy let this command run") {
		t.Fatalf("the kernel's refusal is not explained: %s", res.Content)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the command wrote outside the workspace")
	}
	// glassbox's own process is never restricted.
	if err := os.WriteFile(target, []byte("glassbox may"), 0o644); err != nil {
		t.Fatalf("the test process itself was confined: %v", err)
	}
}

// Under the sandbox a command cannot connect to a TCP listener (here on
// loopback) unless the policy grants network.
func TestSandboxRefusesConnections(t *testing.T) {
	if v := requireLandlock(t); v < minNetABI {
		t.Skipf("Landlock ABI %d cannot confine TCP (needs %d)", v, minNetABI)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	cmd := fmt.Sprintf(`{"command":"bash -c 'echo hi > /dev/tcp/127.0.0.1/%d' && echo connected"}`, port)
	ws := newTestWorkspace(t, nil)
	ec := NewExecuteCommand(ws, 10*time.Second)

	res := run(t, ec, cmd)
	if !res.IsError || strings.Contains(res.Content, "connected") || !strings.Contains(res.Content, "Permission denied") {
		t.Fatalf("connect under the sandbox: %+v", res)
	}
	select {
	case <-accepted:
		t.Fatal("the listener accepted a connection from the sandboxed command")
	case <-time.After(100 * time.Millisecond):
	}

	ec.AllowNetwork(true)
	res = run(t, ec, cmd)
	if res.IsError || !strings.Contains(res.Content, "connected") || !strings.Contains(res.Sandbox, "network allowed by the policy") {
		t.Fatalf("connect with network = true: %+v", res)
	}
}

// Issue 12 item 3: a process that leaves the command's session and process
// group (setsid) is stopped when the command ends, and the result says so.
func TestSetsidEscapeIsStopped(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	marker := fmt.Sprintf("303.%d", time.Now().UnixNano()%1000000)
	res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":"setsid sleep `+marker+` > /dev/null 2>&1 < /dev/null & sleep 0.2; echo started"}`)
	if res.IsError || !strings.Contains(res.Content, "started") {
		t.Fatalf("Run = %+v", res)
	}
	if !strings.HasPrefix(res.Content, "exit code: 0 (1 process it left running was stopped)") {
		t.Fatalf("the result does not say what happened: %q", res.Content)
	}
	if n := countProcesses(marker); n != 0 {
		t.Fatalf("%d processes 'sleep %s' still run after the tool returned", n, marker)
	}
}

// countProcesses counts the live processes running `sleep S`.
func countProcesses(s string) int {
	n := 0
	for _, p := range processes() {
		if p.zombie {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		if err == nil && strings.HasPrefix(string(b), "sleep\x00"+s+"\x00") {
			n++
		}
	}
	return n
}

// Without the helper (a program that does not dispatch SandboxArg) the
// command runs as a plain shell, unconfined, and says so; a setsid escape is
// still stopped when glassbox is a subreaper.
func TestWithoutHelperSandboxIsOffAndSetsidStillStopped(t *testing.T) {
	if err := BecomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	helperReady.Store(false)
	defer helperReady.Store(true)
	if s := SandboxStatus(); !strings.HasPrefix(s, "off — this program does not start the sandbox helper") {
		t.Fatalf("SandboxStatus = %q", s)
	}
	ws := newTestWorkspace(t, nil)
	marker := fmt.Sprintf("304.%d", time.Now().UnixNano()%1000000)
	res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":"setsid sleep `+marker+` > /dev/null 2>&1 < /dev/null & sleep 0.2; echo started"}`)
	if res.IsError || !strings.HasPrefix(res.Content, "exit code: 0 (1 process it left running was stopped)") || !strings.HasPrefix(res.Sandbox, "off — ") {
		t.Fatalf("Run = %+v", res)
	}
	if n := countProcesses(marker); n != 0 {
		t.Fatalf("%d processes 'sleep %s' still run", n, marker)
	}
}

// A run's StopCommands stops its own commands and leaves another run's
// running; StopAllCommands (glassbox's way out) stops every one.
func TestStopCommandsStopsOnlyItsOwn(t *testing.T) {
	mine := NewExecuteCommand(newTestWorkspace(t, nil), 30*time.Second)
	other := NewExecuteCommand(newTestWorkspace(t, nil), 30*time.Second)
	marker := fmt.Sprintf("305.%d", time.Now().UnixNano()%1000000)
	results := make(chan string, 2)
	for _, ec := range []*ExecuteCommand{mine, other} {
		go func() {
			res, _ := ec.Run(t.Context(), []byte(`{"command":"sleep `+marker+`"}`))
			results <- res.Content
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for countProcesses(marker) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the commands never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	mine.StopCommands()
	select {
	case <-results:
	case <-time.After(5 * time.Second):
		t.Fatal("StopCommands did not stop its command")
	}
	if n := countProcesses(marker); n != 1 {
		t.Fatalf("%d commands run after StopCommands, want the other run's 1", n)
	}
	StopAllCommands()
	select {
	case <-results:
	case <-time.After(5 * time.Second):
		t.Fatal("StopAllCommands did not stop the other command")
	}
	if n := countProcesses(marker); n != 0 {
		t.Fatalf("%d commands still run", n)
	}
}
