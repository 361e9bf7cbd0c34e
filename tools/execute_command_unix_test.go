//go:build unix

package tools

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecuteCommandKillsGrandchild proves the timeout kills the whole
// process group: the grandchild, a sleep of a length no other process
// sleeps, must be gone after the timeout, not left running in the
// background. (Its pid means nothing here: under the sandbox the command
// has a PID namespace of its own.)
func TestExecuteCommandKillsGrandchild(t *testing.T) {
	tests := []struct {
		name   string
		format string
	}{
		{name: "background grandchild", format: `sh -c 'sleep %s & wait'`},
		{name: "grandchild with output redirected", format: `sh -c 'sleep %s >/dev/null 2>&1 & wait'`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := fmt.Sprintf("30.%d%d", i, time.Now().UnixNano()%1000000)
			ws := newTestWorkspace(t, nil)
			res := run(t, NewExecuteCommand(ws, 1500*time.Millisecond), `{"command":`+quote(fmt.Sprintf(tt.format, marker))+`}`)
			if !strings.HasPrefix(res.Content, "timed out after 1.5s; the command and everything it started were killed") {
				t.Fatalf("Run = %+v, want a timeout", res)
			}
			waitUntilNoneSleeps(t, marker)
		})
	}
}

// TestExecuteCommandStopsLeftoverBackgroundJobs: a command that exits but
// leaves a job running must not leave it behind.
func TestExecuteCommandStopsLeftoverBackgroundJobs(t *testing.T) {
	marker := fmt.Sprintf("30.9%d", time.Now().UnixNano()%1000000)
	ws := newTestWorkspace(t, nil)
	res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":"sleep `+marker+` & echo started"}`)
	if res.IsError || !strings.HasPrefix(res.Content, "exit code: 0") {
		t.Fatalf("Run = %+v, want success", res)
	}
	waitUntilNoneSleeps(t, marker)
}

// waitUntilNoneSleeps fails the test unless no process runs `sleep
// marker` within a few seconds.
func waitUntilNoneSleeps(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := exec.Command("ps", "-Ao", "pid=,args=").Output()
		if err != nil {
			t.Fatalf("ps: %v", err)
		}
		var left []string
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[1] == "sleep" && f[2] == marker {
				left = append(left, f[0])
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				if n, err := strconv.Atoi(pid); err == nil {
					_ = syscall.Kill(n, syscall.SIGKILL) // do not leave it behind ourselves
				}
			}
			t.Fatalf("sleep %s still runs (pids %v): the process group was not killed", marker, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
