//go:build linux

package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 28: one learner's command must not see, nor hurt, another's.

// Finding 2: a command sees only its own processes. While another run's
// command (holding a password on its command line) and its helper run, a
// command reads every /proc entry it can: it finds neither that command
// line nor any helper's job, nor the mountinfo or status of anything but
// its own namespace's processes. On the machine's side, no helper carries
// its job in its arguments.
func TestCommandSeesOnlyItsOwnProcesses(t *testing.T) {
	requireLandlock(t)
	marker := fmt.Sprintf("DB_PASSWORD=hunter2-%d", time.Now().UnixNano())
	other := NewExecuteCommand(newTestWorkspace(t, nil), 20*time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runCommand(t, other, "export "+marker+"; sleep 5; echo $DB_PASSWORD")
	}()
	defer wg.Wait()
	waitFor(t, func() bool { return len(hostProcessesWith(marker)) > 0 })

	// On the machine's side: the helpers' arguments hold no job.
	for _, pid := range hostProcessesWith(SandboxArg) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(b), "{") || strings.Contains(string(b), "workspace") {
			t.Errorf("helper %d carries its job in its arguments: %q", pid, b)
		}
	}

	ec := NewExecuteCommand(newTestWorkspace(t, nil), 20*time.Second)
	res := runCommand(t, ec, `for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ /proc/[0-9]*/mountinfo /proc/[0-9]*/status; do cat "$f" 2>/dev/null | tr '\0' ' '; echo; done; echo pids: $(ls -d /proc/[0-9]* | wc -l); echo me: $$`)
	if strings.Contains(res.Content, "hunter2") {
		t.Errorf("a command read another run's command line:\n%s", res.Content)
	}
	if strings.Contains(res.Content, `"workspace"`) || strings.Contains(res.Content, SandboxArg+" {") {
		t.Errorf("a command read a helper's job:\n%s", res.Content)
	}
	// Its namespace: its init, its shell, and the shell's children.
	var pids int
	if i := strings.LastIndex(res.Content, "pids: "); i >= 0 {
		fmt.Sscan(res.Content[i+len("pids: "):], &pids)
	}
	if pids == 0 || pids > 5 || !strings.Contains(res.Content, "glassbox "+confineArg) {
		t.Errorf("the command is not in a PID namespace of its own (%d processes):\n%s", pids, res.Content)
	}
	if !strings.HasPrefix(res.Sandbox, "on") || !strings.Contains(res.Sandbox, "they see only their own processes") {
		t.Errorf("sandbox line %q", res.Sandbox)
	}
}

// hostProcessesWith lists the processes whose command line holds s, as
// the machine sees them.
func hostProcessesWith(s string) []int {
	var out []int
	for _, p := range processes() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		if err == nil && p.pid != os.Getpid() && strings.Contains(string(b), s) {
			out = append(out, p.pid)
		}
	}
	return out
}

// waitFor waits (up to 10 s) until ok holds.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Finding 5 and brief item 5: no new user namespace — by unshare(1), by
// unshare(2), by clone(2) with CLONE_NEWUSER — and no setns; clone3 is
// "not implemented", so the C library falls back to clone, and programs
// still fork.
func TestSandboxRefusesNewNamespaces(t *testing.T) {
	requireLandlock(t)
	requireSeccomp(t)
	ec := NewExecuteCommand(newTestWorkspace(t, nil), 20*time.Second)
	// x86-64 system call numbers: clone 56, setns 308, clone3 435.
	program := `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    r = libc.syscall(*args)
    print(name, r, os.strerror(ctypes.get_errno()) if r < 0 else "ok")
call("clone-newuser", 56, 0x10000000 | 17, 0, 0, 0, 0)
fd = os.open("/proc/self/ns/mnt", os.O_RDONLY)
call("setns", 308, fd, 0)
args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0)
call("clone3", 435, ctypes.byref(args), ctypes.sizeof(args))
call("unshare", 272, 0x10000000)
pid = os.fork()
if pid == 0:
    os._exit(7)
print("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
`
	res := python(t, ec, program)
	for _, want := range []string{"clone-newuser -1 Operation not permitted", "setns -1 Operation not permitted", "clone3 -1 Function not implemented", "unshare -1 Operation not permitted", "fork 7"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("lacks %q:\n%s", want, res.Content)
		}
	}
	if res := runCommand(t, ec, "unshare -U id; echo status $?"); strings.Contains(res.Content, "uid=") {
		t.Errorf("unshare -U ran a program in a new user namespace:\n%s", res.Content)
	}
}

// Finding 3: the limits stop a command, and the result names the limit
// the model met. Small limits here (the mechanism is the same); the built
// binary meets the real ones (TestLimitsStopCommandsOnTheBuiltBinary).
func TestLimitsStopCommands(t *testing.T) {
	requireLandlock(t)
	if err := probeCgroup(cgroupPlacesFor(t, "pids")); err != nil {
		t.Fatalf("no cgroup for the process limit: %v", err)
	}
	tests := []struct {
		name, command, limit string
	}{
		{"processes", `for i in $(seq 100); do sleep 5 & done; wait; echo done`, "the process limit (32 processes and threads at once)"},
		{"memory", `python3 -c 'b = b"x" * (256 << 20); print(len(b))'`, "the memory limit (64 MiB)"},
		{"file size", `head -c 64M /dev/zero > big; ls -l big`, "the file size limit (1 MiB a file)"},
		{"file size from Python", `python3 -c 'open("big", "wb").write(bytes(4 << 20))'`, "the file size limit (1 MiB a file)"},
		{"CPU time", `python3 -c 'while True: pass'`, "the CPU time limit (1 s a process)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec := NewExecuteCommand(newTestWorkspace(t, nil), 20*time.Second)
			ec.limits = Limits{Processes: 32, Memory: 64 << 20, FileSize: 1 << 20, CPU: time.Second}
			res := runCommand(t, ec, tt.command)
			if !res.IsError || !strings.Contains(res.Content, "[limit] This command reached "+tt.limit) {
				t.Fatalf("result does not name %s:\n%+v", tt.limit, res)
			}
			if !strings.Contains(res.Sandbox, "limits: 32 processes (cgroup v") || !strings.Contains(res.Sandbox, "1 MiB a file, 1 s of CPU a process") {
				t.Errorf("sandbox line %q", res.Sandbox)
			}
		})
	}
	// Within them, nothing is said.
	ec := NewExecuteCommand(newTestWorkspace(t, nil), 20*time.Second)
	if res := runCommand(t, ec, `python3 -c 'print(sum(range(10**6)))'; echo hi > small`); res.IsError || strings.Contains(res.Content, "[limit]") {
		t.Errorf("a lesson-sized command: %+v", res)
	}
}

// cgroupPlacesFor is the parent folder glassbox makes cgroups of ctl in.
func cgroupPlacesFor(t *testing.T, ctl string) string {
	t.Helper()
	p, ok := cgroupPlaces()[ctl]
	if !ok {
		t.Fatalf("glassbox may make no cgroup with the %s controller here", ctl)
	}
	return p.parent
}

// Brief item 3 under serve: a workspace's quota stops a command that goes
// past it, and names it; write_file refuses what would go past it.
func TestQuotaStopsACommand(t *testing.T) {
	requireLandlock(t)
	ws := newTestWorkspace(t, nil)
	ws.SetQuota(Quota{Bytes: 8 << 20, Entries: 1000})
	ec := NewExecuteCommand(ws, 20*time.Second)
	res := runCommand(t, ec, `i=0; while [ $i -lt 100000 ]; do mkdir d$i; i=$((i+1)); done`)
	if !res.IsError || !strings.Contains(res.Content, "reached the workspace quota (8 MiB and 1,000 entries; more than 1,000 entries") {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(res.Sandbox, "workspace quota: 8 MiB and 1,000 entries") {
		t.Errorf("sandbox line %q", res.Sandbox)
	}
	count, _ := workspaceUsage(ws.Root(), Quota{})
	if count.Entries > 20000 {
		t.Errorf("the command made %d entries before it was stopped", count.Entries)
	}
}

// A helper killed outright cannot remove its program's cgroups: the next
// start removes those whose glassbox is gone, and no other.
func TestRemoveStaleCgroups(t *testing.T) {
	parent := cgroupPlacesFor(t, "pids")
	dead := fmt.Sprintf("%s%d-1", cgroupPrefix, deadPID(t))
	alive := fmt.Sprintf("%s%d-1", cgroupPrefix, os.Getppid())
	for _, name := range []string{dead, alive} {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Remove(filepath.Join(parent, alive)) })
	if n := RemoveStaleCgroups(); n < 1 {
		t.Errorf("removed %d", n)
	}
	if _, err := os.Stat(filepath.Join(parent, dead)); err == nil {
		t.Error("the dead glassbox's cgroup is still there")
	}
	if _, err := os.Stat(filepath.Join(parent, alive)); err != nil {
		t.Errorf("a running glassbox's cgroup was removed: %v", err)
	}
}

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
