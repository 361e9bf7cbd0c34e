//go:build linux

package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minNetABI is the first Landlock ABI that can refuse TCP connections.
const minNetABI = 4

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
// under the kernel's sandbox, for the status bar, the trace and the
// headless header: "on — Landlock ABI 7: …" or "off — reason".
func SandboxStatus() string {
	if !helperReady.Load() {
		return "off — this program does not start the sandbox helper (glassbox's main calls tools.RunSandboxHelper first)"
	}
	v, err := landlockABI()
	if err != nil {
		return "off — " + err.Error()
	}
	net := "outbound TCP refused unless the policy sets network = true"
	if v < minNetABI {
		net = fmt.Sprintf("network NOT confined (Landlock ABI %d; TCP rules need ABI %d, Linux 6.7)", v, minNetABI)
	}
	return fmt.Sprintf("on — Landlock ABI %d: commands write only in the workspace and their own temporary folder; %s", v, net)
}

// sandboxOn reports whether SandboxStatus is "on".
func sandboxOn() bool { return strings.HasPrefix(SandboxStatus(), "on") }

// BecomeSubreaper makes this process the reaper of its orphaned
// descendants: a command that escapes its process group with setsid, then
// loses its parent, becomes glassbox's child instead of init's, so
// StopAllCommands can still find and stop it. glassbox's main calls it.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// helperCommand is how execute_command starts COMMAND through the helper:
// this same program with SandboxArg.
func helperCommand(ctx context.Context, command, dir, tmp string, network bool) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	net := "nonet"
	if network {
		net = "net"
	}
	return exec.CommandContext(ctx, self, SandboxArg, dir, tmp, net, command), nil
}

// sandboxHelperMain is the helper: it becomes the subreaper of everything
// the command starts, confines itself with Landlock (writes only under
// workspace and tmp; no TCP connect or bind unless net), runs `sh -c
// command`, and when the shell ends kills every process the command left
// behind, wherever it went (a new session, a new process group). Its
// report goes to fd 3; glassbox reads it.
func sandboxHelperMain(args []string) int {
	// The status pipe is the helper's alone: the command must not hold it
	// (a background job would keep glassbox waiting for the report).
	syscall.CloseOnExec(3)
	status := os.NewFile(3, "status")
	report := func(s helperStatus) int {
		if status != nil {
			status.Write(s.encode())
			status.Close()
		}
		return 0
	}
	if len(args) != 4 {
		return report(helperStatus{Error: fmt.Sprintf("the sandbox helper wants 4 arguments (workspace, temporary folder, net|nonet, command), got %d", len(args))})
	}
	ws, tmp, network, command := args[0], args[1], args[2] == "net", args[3]
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return report(helperStatus{Error: "cannot become the command's subreaper: " + err.Error()})
	}
	sandbox, err := confine(ws, tmp, network)
	if err != nil {
		return report(helperStatus{Sandbox: sandbox, Error: err.Error()})
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return report(helperStatus{Sandbox: sandbox, Error: "cannot find sh: " + err.Error()})
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return report(helperStatus{Sandbox: sandbox, Error: err.Error()})
	}
	proc, err := os.StartProcess(sh, []string{"sh", "-c", command}, &os.ProcAttr{
		Dir: ws, Env: os.Environ(), Files: []*os.File{devnull, os.Stdout, os.Stderr},
	})
	devnull.Close()
	if err != nil {
		return report(helperStatus{Sandbox: sandbox, Error: "cannot start sh: " + err.Error()})
	}
	done := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := proc.Wait()
		done <- st
	}()
	s := helperStatus{Sandbox: sandbox}
	var st *os.ProcessState
	select {
	case st = <-done:
	case <-stop:
		s.Cancelled = true
		killDescendants(os.Getpid()) // the shell and everything under it
		st = <-done
	}
	s.Stopped = stopDescendants()
	s.Exit = -1
	if st != nil {
		s.Exit = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.Signal = ws.Signal().String()
		}
	}
	return report(s)
}

// confine applies Landlock to this process (and so to everything it
// starts). It returns the sandbox status line; an error means the kernel
// has Landlock but the rules could not be applied, and the command must
// not run.
func confine(ws, tmp string, network bool) (string, error) {
	v, err := landlockABI()
	if err != nil {
		return "off — " + err.Error(), nil
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(ws, tmp).WithRefer(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing(),
	}
	cfg := landlock.V11.BestEffort()
	if network {
		err = cfg.RestrictPaths(rules...)
		if err == nil {
			err = cfg.RestrictScoped()
		}
	} else {
		err = cfg.Restrict(rules...)
	}
	if err != nil {
		return "", fmt.Errorf("the kernel offers Landlock ABI %d but the sandbox could not be applied (%v), so the command was not run", v, err)
	}
	line := fmt.Sprintf("on — Landlock ABI %d: writes only in the workspace and %s", v, tmp)
	switch {
	case network:
		line += "; network allowed by the policy"
	case v < minNetABI:
		line += fmt.Sprintf("; network NOT confined (TCP rules need Landlock ABI %d)", minNetABI)
	default:
		line += "; outbound TCP refused"
	}
	return line, nil
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
