//go:build linux

package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minNetABI is the first Landlock ABI that can refuse TCP connections.
const minNetABI = 4

// minScopeABI is the first Landlock ABI that keeps a command's signals
// (and abstract Unix sockets) inside its own sandbox.
const minScopeABI = 6

// landlockABI is the kernel's Landlock ABI version, or an error saying why
// there is none.
func landlockABI() (int, error) {
	v, err := llsyscall.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, errors.New("this kernel has no Landlock (it needs Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)")
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, errors.New("Landlock is built into this kernel but not enabled (add landlock to the lsm= boot parameter)")
	case err != nil:
		return 0, fmt.Errorf("the kernel's Landlock could not be queried: %v", err)
	}
	return v, nil
}

// SandboxStatus says in one line whether execute_command's commands run
// under the kernel's sandbox, what limits them and what this kernel leaves
// open: "on — …", "on (open: …) — …" or "off — reason". It describes a
// policy without network and a workspace without quota; a run's line
// (ExecuteCommand.LastSandbox, which the welcome note, the status bar and
// the headless header show) follows its policy and quota, and each
// command's (Result.Sandbox, in the trace) says what it had.
func SandboxStatus() string { return sandboxStatus(false, Quota{}) }

// sandboxStatus is SandboxStatus for commands run with or without the
// policy's network = true, in a workspace with quota q.
func sandboxStatus(network bool, q Quota) string {
	if !helperReady.Load() {
		if why, ok := helperMissing.Load().(string); ok {
			return "off — the sandbox helper could not be prepared: " + why
		}
		return "off — this program does not start the sandbox helper (glassbox's main calls tools.RunSandboxHelper first)"
	}
	abi, llErr := landlockABI()
	_, roErr := privateMountsAttr()
	pids, memory := limitsHeld()
	return sandboxLine(reach{abi: abi, landlock: llErr, seccomp: seccompAvailable(), readOnly: roErr, network: network,
		limits: CommandLimits(), held: limitMechanismsFor(heldLimits{Pids: pids, Memory: memory}, roErr == nil), quota: q})
}

// reach is what confines a command: the Landlock ABI (or why there is
// none), seccomp, the read-only view of everything outside its folders
// with its own PID namespace and /proc (they come together), whether the
// policy grants network, its limits and how they are held, and the
// workspace's quota.
type reach struct {
	abi                         int
	landlock, seccomp, readOnly error
	network                     bool
	limits                      Limits
	held                        limitMechanisms
	quota                       Quota
}

// limitMechanismsFor says how a program's limits are held: the cgroups
// the helper made, or RLIMIT_NPROC where the program has a user namespace
// of its own and is not root (there RLIMIT_NPROC counts its processes
// alone; root it does not bind at all).
func limitMechanismsFor(h heldLimits, ownNamespaces bool) limitMechanisms {
	m := limitMechanisms{pidsCgroup: h.Pids, memoryCgroup: h.Memory}
	switch {
	case h.Pids != "":
	case os.Geteuid() != 0 && ownNamespaces:
		m.nproc = true
	case os.Geteuid() == 0:
		m.why = "RLIMIT_NPROC does not bind root and glassbox may not make a cgroup with a pids controller here"
	default:
		m.why = "no cgroup with a pids controller, and no user namespace of its own for RLIMIT_NPROC to count in"
	}
	return m
}

// sandboxLine is the one wording of the sandbox's reach: what commands may
// read and write, which processes they see, which socket routes out are
// closed, their limits, and — in the head, so the status bar shows it —
// what stays open on this kernel and why.
func sandboxLine(r reach) string {
	if r.landlock != nil {
		line := "off — " + r.landlock.Error()
		if r.seccomp == nil {
			line += "; the seccomp filter still refuses Unix, raw and (without network) UDP sockets, device nodes, setuid files and new user namespaces"
		}
		return line + "; limits: " + limitsWords(r.limits, r.held) + quotaWords(r.quota)
	}
	closed, open, why := reachOpen(r)
	head := "on"
	if len(open) > 0 {
		head = "on (open: " + strings.Join(open, ", ") + ")"
	}
	tool := fmt.Sprintf("Landlock ABI %d", r.abi)
	if r.seccomp == nil {
		tool += " + seccomp"
	}
	if r.readOnly == nil {
		tool += " + read-only mounts + PID namespace"
	}
	line := fmt.Sprintf("%s — %s: commands read only the workspace, their temporary folder and the system's program folders and change only the first two", head, tool)
	if r.readOnly == nil {
		line += "; they see only their own processes"
	}
	if r.seccomp == nil {
		line += "; no device nodes, FIFOs, setuid files or new user namespaces"
	} else {
		line += "; no device nodes or FIFOs"
	}
	if len(closed) > 0 {
		line += "; sockets closed: " + strings.Join(closed, ", ")
	}
	line += "; limits: " + limitsWords(r.limits, r.held) + quotaWords(r.quota)
	if len(open) > 0 {
		return line + "; left open: " + strings.Join(open, ", ") + " (" + strings.Join(why, "; ") + ")"
	}
	return line + "; nothing left open"
}

// quotaWords is the quota on the line, "" without one.
func quotaWords(q Quota) string {
	if !q.Set() {
		return ""
	}
	return fmt.Sprintf("; workspace quota: %s (checked every %s while a program runs)", q, quotaPoll)
}

// reachOpen lists the socket routes closed, and what stays open with why.
func reachOpen(r reach) (closed, open, why []string) {
	if r.seccomp == nil {
		closed = append(closed, "Unix", "raw")
		if !r.network {
			closed = append(closed, "UDP")
		}
	} else {
		open = append(open, "Unix sockets", "raw sockets", "UDP", "setuid files", "new user namespaces")
		why = append(why, r.seccomp.Error())
	}
	switch {
	case r.network:
		open = append(open, "TCP")
		if r.seccomp == nil {
			open = append(open, "UDP")
		}
		why = append(why, "network allowed by the policy")
	case r.abi < minNetABI:
		open = append(open, "TCP")
		why = append(why, fmt.Sprintf("TCP rules need Landlock ABI %d", minNetABI))
	default:
		closed = append(closed, "TCP")
	}
	if r.readOnly != nil {
		open = append(open, "chmod, chown and touch outside", "other processes' command lines")
		why = append(why, "Landlock does not govern file modes, owners and times, nor /proc, and "+r.readOnly.Error())
	}
	if r.abi < minScopeABI {
		open = append(open, "signals to your other processes")
		why = append(why, fmt.Sprintf("scoping needs Landlock ABI %d", minScopeABI))
	}
	if r.held.why != "" {
		open = append(open, "process count")
		why = append(why, r.held.why)
	}
	return closed, open, why
}

// BecomeSubreaper makes this process the reaper of its orphaned
// descendants: a command that escapes its process group with setsid, then
// loses its parent, becomes glassbox's child instead of init's, so
// StopAllCommands can still find and stop it. glassbox's main calls it.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// self is this program's file, opened when it started (openSelf): the
// helper is executed from it, never from a path.
var self struct {
	sync.Mutex
	f *os.File
}

// openSelf opens the running program's own file. /proc/self/exe names the
// image the kernel is running, whatever has since happened to the path it
// was started from.
func openSelf() error {
	self.Lock()
	defer self.Unlock()
	if self.f != nil {
		return nil
	}
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("cannot open the running program (%v)", err)
	}
	self.f = f
	return nil
}

// selfPath is a path to the program opened at start: the magic link of its
// descriptor, which a child (it inherits the descriptor until its exec
// completes) resolves to the same file.
func selfPath() (string, error) {
	self.Lock()
	defer self.Unlock()
	if self.f == nil {
		return "", errors.New("the program's own file was not opened at start")
	}
	return "/proc/self/fd/" + strconv.Itoa(int(self.f.Fd())), nil
}

// helperCommand is how a job (a command of execute_command, a stdio
// server) is started through the helper: this same program, from the
// descriptor opened at start, with SandboxArg, status as its descriptor 3
// and the job on a pipe at jobFD. The helper gets SIGTERM if glassbox dies,
// however it dies (kill -9 included), and then stops everything the
// program started. release closes the parent's ends of both once the
// helper has started (or failed to).
func helperCommand(ctx context.Context, job sandboxJob, status *os.File) (cmd *exec.Cmd, release func(), err error) {
	path, err := selfPath()
	if err != nil {
		return nil, nil, err
	}
	jobR, err := sendJob(job)
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.CommandContext(ctx, path, SandboxArg)
	cmd.Args[0] = "glassbox"
	cmd.Dir = job.Workspace
	cmd.ExtraFiles = []*os.File{status, jobR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return cmd, func() { closeAll(status, jobR) }, nil
}

// proc is one process as /proc/PID/stat shows it.
type procInfo struct {
	pid, ppid int
	zombie    bool
}

// processes reads every process's parent from /proc.
func processes() []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out = append(out, procInfo{pid: pid, ppid: ppid, zombie: f[0] == "Z"})
	}
	return out
}

// descendants lists the processes below root (not root itself), each
// after its parent, skipping the subtrees of the pids in skip.
func descendants(root int, skip map[int]bool) []procInfo {
	children := map[int][]procInfo{}
	for _, p := range processes() {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []procInfo
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if skip[c.pid] {
				continue
			}
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// killDescendants sends SIGKILL to every live process below root and
// returns how many it signalled.
func killDescendants(root int) int {
	n := 0
	for _, p := range descendants(root, nil) {
		if !p.zombie && syscall.Kill(p.pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// stopDescendants kills everything below this process and reaps it, until
// it has no child left: as the subreaper, every orphan of the command is
// its child. It returns how many distinct processes it had to kill.
func stopDescendants() int {
	killed := map[int]bool{}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range descendants(os.Getpid(), nil) {
			if !p.zombie && syscall.Kill(p.pid, syscall.SIGKILL) == nil {
				killed[p.pid] = true
			}
		}
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return len(killed)
		case err == nil && pid == 0:
			time.Sleep(time.Millisecond) // killed, not yet dead
		}
	}
	return len(killed)
}

// sweepOrphans stops the children of this process that are not in live
// (the commands still running) and everything below them: processes that
// escaped a command whose helper was itself killed, re-parented here
// because glassbox is a subreaper. It reaps only those, never a child
// os/exec still waits for.
func sweepOrphans(live map[int]bool) int {
	self := os.Getpid()
	n := 0
	for round := 0; round < 100; round++ {
		var orphans []procInfo
		for _, p := range descendants(self, live) {
			if p.ppid == self {
				orphans = append(orphans, p)
			}
		}
		if len(orphans) == 0 {
			return n
		}
		for _, o := range orphans {
			n += killDescendants(o.pid)
			if !o.zombie {
				if syscall.Kill(o.pid, syscall.SIGKILL) != nil {
					continue // not ours to stop
				}
				n++
			}
			var ws syscall.WaitStatus
			syscall.Wait4(o.pid, &ws, 0, nil)
		}
	}
	return n
}
