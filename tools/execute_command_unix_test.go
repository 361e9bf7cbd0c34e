//go:build unix

package tools

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecuteCommandKillsGrandchild proves the timeout kills the whole
// process group: the grandchild writes its pid, and after the timeout that
// process must be gone, not left running in the background.
func TestExecuteCommandKillsGrandchild(t *testing.T) {
	tests := []struct {
		name    string
		command string
	}{
		{name: "background grandchild", command: `sh -c 'sleep 30 & echo $! > grandchild.pid; wait'`},
		{name: "grandchild with output redirected", command: `sh -c 'sleep 30 >/dev/null 2>&1 & echo $! > grandchild.pid; wait'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTestWorkspace(t, nil)
			res := run(t, NewExecuteCommand(ws, 1500*time.Millisecond), `{"command":`+quote(tt.command)+`}`)
			if !strings.HasPrefix(res.Content, "timed out after 1.5s; the command and everything it started were killed") {
				t.Fatalf("Run = %+v, want a timeout", res)
			}
			pid := readPID(t, filepath.Join(ws.Root(), "grandchild.pid"))
			waitUntilGone(t, pid)
		})
	}
}

// TestExecuteCommandStopsLeftoverBackgroundJobs: a command that exits but
// leaves a job running must not leave it behind.
func TestExecuteCommandStopsLeftoverBackgroundJobs(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":"sleep 30 & echo $! > job.pid"}`)
	if res.IsError || !strings.HasPrefix(res.Content, "exit code: 0") {
		t.Fatalf("Run = %+v, want success", res)
	}
	waitUntilGone(t, readPID(t, filepath.Join(ws.Root(), "job.pid")))
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readTestFile(t, path)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

// waitUntilGone fails the test unless process pid ends within a few seconds.
func waitUntilGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // do not leave it behind ourselves
			t.Fatalf("process %d is still running: the process group was not killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processAlive reports whether pid is a running process. A zombie (killed
// but not yet reaped by its new parent) counts as gone; on Linux /proc tells
// them apart, elsewhere signal 0 is the best test.
func processAlive(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// The state letter follows the command name in parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			state := stat[i+2]
			return state != 'Z' && state != 'X'
		}
		return true
	} else if _, statErr := os.Stat("/proc/self/stat"); statErr == nil {
		return false // /proc works, and this pid is not in it
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
