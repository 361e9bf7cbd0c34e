//go:build linux

package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
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
// under the kernel's sandbox and what this kernel leaves open: "on — …",
// "on (open: …) — …" or "off — reason". It describes a policy without
// network; a run's line (ExecuteCommand.LastSandbox, which the welcome
// note, the status bar and the headless header show) follows its policy,
// and each command's (Result.Sandbox, in the trace) says what it had.
func SandboxStatus() string { return sandboxStatus(false) }

// sandboxStatus is SandboxStatus for commands run with or without the
// policy's network = true.
func sandboxStatus(network bool) string {
	if !helperReady.Load() {
		if why, ok := helperMissing.Load().(string); ok {
			return "off — the sandbox helper could not be prepared: " + why
		}
		return "off — this program does not start the sandbox helper (glassbox's main calls tools.RunSandboxHelper first)"
	}
	abi, llErr := landlockABI()
	_, roErr := privateMountsAttr()
	return sandboxLine(reach{abi: abi, landlock: llErr, seccomp: seccompAvailable(), readOnly: roErr, network: network})
}

// reach is what confines a command: the Landlock ABI (or why there is
// none), seccomp, the read-only view of everything outside its folders,
// and whether the policy grants network.
type reach struct {
	abi                         int
	landlock, seccomp, readOnly error
	network                     bool
}

// sandboxLine is the one wording of the sandbox's reach: what commands may
// read and write, which socket routes out are closed, and — in the head,
// so the status bar shows it — which stay open on this kernel and why.
func sandboxLine(r reach) string {
	abi, llErr, scErr, network := r.abi, r.landlock, r.seccomp, r.network
	if llErr != nil {
		line := "off — " + llErr.Error()
		if scErr == nil {
			line += "; the seccomp filter still refuses Unix, raw and (without network) UDP sockets, device nodes and setuid files"
		}
		return line
	}
	var closed, open, why []string
	if scErr == nil {
		closed = append(closed, "Unix", "raw")
		if !network {
			closed = append(closed, "UDP")
		}
	} else {
		open = append(open, "Unix sockets", "raw sockets", "UDP", "setuid files")
		why = append(why, scErr.Error())
	}
	switch {
	case network:
		open = append(open, "TCP")
		if scErr == nil {
			open = append(open, "UDP")
		}
		why = append(why, "network allowed by the policy")
	case abi < minNetABI:
		open = append(open, "TCP")
		why = append(why, fmt.Sprintf("TCP rules need Landlock ABI %d", minNetABI))
	default:
		closed = append(closed, "TCP")
	}
	if r.readOnly != nil {
		open = append(open, "chmod, chown and touch outside")
		why = append(why, "Landlock does not govern file modes, owners and times, and "+r.readOnly.Error())
	}
	if abi < minScopeABI {
		open = append(open, "signals to your other processes")
		why = append(why, fmt.Sprintf("scoping needs Landlock ABI %d", minScopeABI))
	}
	head := "on"
	if len(open) > 0 {
		head = "on (open: " + strings.Join(open, ", ") + ")"
	}
	tool := fmt.Sprintf("Landlock ABI %d", abi)
	if scErr == nil {
		tool += " + seccomp"
	}
	if r.readOnly == nil {
		tool += " + read-only mounts"
	}
	line := fmt.Sprintf("%s — %s: commands read only the workspace, their temporary folder and the system's program folders and change only the first two; no device nodes, FIFOs", head, tool)
	if scErr == nil {
		line += " or setuid files"
	}
	if len(closed) > 0 {
		line += "; sockets closed: " + strings.Join(closed, ", ")
	}
	if len(open) > 0 {
		line += "; left open: " + strings.Join(open, ", ") + " (" + strings.Join(why, "; ") + ")"
	} else {
		line += "; nothing left open"
	}
	return line
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
// descriptor opened at start, with SandboxArg. The helper gets SIGTERM if
// glassbox dies, however it dies (kill -9 included), and then stops
// everything the program started.
func helperCommand(ctx context.Context, job sandboxJob) (*exec.Cmd, error) {
	path, err := selfPath()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, SandboxArg, job.encode())
	cmd.Args[0] = "glassbox"
	cmd.Dir = job.Workspace
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return cmd, nil
}

// sandboxHelperMain is the helper. Unconfined itself, it becomes the
// subreaper of everything the program starts, starts the confining stage
// (which becomes the program under Landlock and seccomp), and when the
// program ends — or glassbox asks, or glassbox dies — kills every process
// it left behind, wherever it went (a new session, a new process group).
// Its reports go to fd 3: one when the program runs confined (or could
// not), one when it is over; glassbox reads them.
func sandboxHelperMain(args []string) int {
	// The confining stage's parent-death signal fires when the thread
	// that started it ends, not the process: start it from a thread that
	// lives as long as the helper.
	runtime.LockOSThread()
	// The status pipe is the helper's alone: the program must not hold it
	// (a background job would keep glassbox waiting for the report).
	syscall.CloseOnExec(3)
	status := os.NewFile(3, "status")
	say := func(s helperStatus) {
		if status != nil {
			status.Write(s.encode())
		}
	}
	report := func(s helperStatus) int {
		say(s)
		if status != nil {
			status.Close()
		}
		return 0
	}
	job, err := decodeJob(args)
	if err != nil {
		return report(helperStatus{Error: err.Error()})
	}
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return report(helperStatus{Error: "cannot become the program's subreaper: " + err.Error()})
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// The confining stage gets a mount namespace of its own where one can
	// be made, and is told so. If it cannot use it (a kernel or policy that
	// refuses the mounts), it says so before running anything, and runs
	// again in this namespace, its line saying what stays open.
	sys, roErr := privateMountsAttr()
	var (
		stage confiningStage
		conf  helperStatus
	)
	for attempt := 1; ; attempt++ {
		if roErr == nil {
			job.Mounts = privateMountsFor()
			stage, err = startConfiningStage(sys, job)
		}
		if roErr != nil || err != nil {
			job.Mounts = "shared-mounts"
			stage, err = startConfiningStage(&syscall.SysProcAttr{}, job)
		}
		if err != nil {
			return report(helperStatus{Error: "cannot start the sandbox: " + err.Error()})
		}
		// The stage reports before it becomes the program, or fails.
		conf = <-stage.confined
		if roErr != nil || attempt > 1 || !conf.NoMounts {
			break
		}
		// A stage that could not use its namespace ends at once.
		<-stage.done
		roErr = errors.New(conf.Error)
	}
	say(helperStatus{Started: conf.Error == "", Sandbox: conf.Sandbox, Error: conf.Error})
	var s helperStatus
	var st *os.ProcessState
	select {
	case st = <-stage.done:
	case <-stop:
		s.Cancelled = true
		killDescendants(os.Getpid()) // the program and everything under it
		st = <-stage.done
	}
	s.Sandbox = conf.Sandbox
	s.Stopped = stopDescendants()
	if s.Cancelled && os.Getppid() != parent && filepath.IsAbs(job.Temp) && strings.HasPrefix(filepath.Base(job.Temp), commandTempPrefix) {
		// glassbox is gone: nobody else will remove the program's folder.
		os.RemoveAll(job.Temp)
	}
	if conf.Error != "" {
		s.Error = conf.Error
		return report(s)
	}
	s.Exit = -1
	if st != nil {
		s.Exit = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.Signal = ws.Signal().String()
		}
	}
	return report(s)
}

// confiningStage is a started confining stage: its end, and its report.
type confiningStage struct {
	done     chan *os.ProcessState
	confined chan helperStatus
}

// startConfiningStage starts this program as the confining stage for job,
// with sys (its namespaces; job.Mounts tells the stage which it got). The
// stage gets the helper's standard input, output and error. It dies with
// the helper (SIGKILL), and starts from the helper's locked thread.
func startConfiningStage(sys *syscall.SysProcAttr, job sandboxJob) (confiningStage, error) {
	confR, confW, err := os.Pipe()
	if err != nil {
		return confiningStage{}, err
	}
	sys.Pdeathsig = syscall.SIGKILL
	proc, err := os.StartProcess("/proc/self/exe", []string{"glassbox", confineArg, job.encode()}, &os.ProcAttr{
		Dir: job.Workspace, Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, confW}, Sys: sys,
	})
	confW.Close()
	if err != nil {
		confR.Close()
		return confiningStage{}, err
	}
	stage := confiningStage{done: make(chan *os.ProcessState, 1), confined: make(chan helperStatus, 1)}
	go func() {
		stage.confined <- readConfineReport(confR)
		confR.Close()
	}()
	go func() {
		st, _ := proc.Wait()
		stage.done <- st
	}()
	return stage, nil
}

// readConfineReport reads what the confining stage wrote before it became
// the program (or failed to): JSON objects, the last word winning.
func readConfineReport(r io.Reader) helperStatus {
	var s helperStatus
	readHelperReports(r, func(next helperStatus) {
		if next.Sandbox != "" {
			s.Sandbox = next.Sandbox
		}
		if next.Error != "" {
			s.Error = next.Error
		}
		s.NoMounts = s.NoMounts || next.NoMounts
	})
	if s.Sandbox == "" && s.Error == "" {
		s.Error = "the sandbox ended before it could say whether it was applied"
	}
	return s
}

// confineMain is the helper's second stage: it confines this process —
// capabilities, Landlock, seccomp, all on the one thread that then execs —
// reports the sandbox line on fd 3 and becomes the job's program. If any
// part of the sandbox the kernel offers cannot be applied, the program is
// not run.
func confineMain(args []string) int {
	runtime.LockOSThread()
	syscall.CloseOnExec(3)
	out := os.NewFile(3, "confine")
	say := func(s helperStatus) {
		if out != nil {
			out.Write(s.encode())
		}
	}
	job, err := decodeJob(args)
	if err != nil {
		say(helperStatus{Error: err.Error()})
		return 2
	}
	// "private-mounts=NS": started in a namespace of its own; NS is the
	// helper's, which this stage must not be in.
	parentNS, private := strings.CutPrefix(job.Mounts, privateMountsArg+"=")
	path, argv, err := jobProgram(job)
	if err != nil {
		say(helperStatus{Error: err.Error()})
		return 2
	}
	line, err := confine(job, private, parentNS)
	var noMounts *mountsError
	if errors.As(err, &noMounts) {
		// Nothing has been confined yet: the helper runs the stage again
		// without the namespace, and the line will say what stays open.
		say(helperStatus{Error: noMounts.Error(), NoMounts: true})
		return 3
	}
	if err != nil {
		say(helperStatus{Sandbox: line, Error: err.Error()})
		return 2
	}
	say(helperStatus{Sandbox: line})
	err = syscall.Exec(path, argv, os.Environ())
	say(helperStatus{Sandbox: line, Error: fmt.Sprintf("cannot start %s: %v", argv[0], err)})
	return 2
}

// jobProgram is the file the confining stage executes and its argument
// list: sh -c for a command line; the program named, looked up in the
// job's PATH, for a stdio server; this program itself for Self.
func jobProgram(job sandboxJob) (string, []string, error) {
	switch {
	case job.Shell != "":
		sh, err := exec.LookPath("sh")
		if err != nil {
			return "", nil, fmt.Errorf("cannot find sh: %v", err)
		}
		return sh, []string{"sh", "-c", job.Shell}, nil
	case job.Self:
		return "/proc/self/exe", append([]string{"glassbox"}, job.Argv...), nil
	}
	path, err := exec.LookPath(job.Argv[0])
	if err != nil {
		return "", nil, notFound(job.Argv[0], err)
	}
	return path, job.Argv, nil
}

// confine applies the sandbox to this process (and so to everything it
// starts). It returns the sandbox line; an error means the kernel offers a
// part of the sandbox that could not be applied, and the command must not
// run.
func confine(job sandboxJob, private bool, parentNS string) (string, error) {
	network := job.Network
	abi, llErr := landlockABI()
	scErr := seccompAvailable()
	roErr := errNoPrivateMounts
	if private {
		// First, while this process may still mount.
		if err := readOnlyOutside(job, parentNS); err != nil {
			return "", &mountsError{err}
		}
		roErr = nil
	}
	if err := dropCapabilities(); err != nil {
		return "", fmt.Errorf("the command's capabilities could not be dropped (%v), so it was not run", err)
	}
	if llErr == nil {
		cfg := landlock.V11.BestEffort()
		rules := landlockRules(job)
		var err error
		if network {
			err = cfg.RestrictPaths(rules...)
			if err == nil {
				err = cfg.RestrictScoped()
			}
		} else {
			err = cfg.Restrict(rules...)
		}
		if err != nil {
			return "", fmt.Errorf("the kernel offers Landlock ABI %d but the sandbox could not be applied (%v), so the command was not run", abi, err)
		}
	}
	if scErr == nil {
		if err := loadSeccomp(network); err != nil {
			return "", fmt.Errorf("the kernel offers seccomp but the filter could not be loaded (%v), so the command was not run", err)
		}
	}
	return sandboxLine(reach{abi: abi, landlock: llErr, seccomp: scErr, readOnly: roErr, network: network}), nil
}

// workspaceRights are what a command may do in the workspace and its
// temporary folder: everything but making device nodes and FIFOs (a
// character device made there could reach /dev/kmsg, a block device the
// disk).
const workspaceRights = llsyscall.AccessFSExecute | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadFile |
	llsyscall.AccessFSReadDir | llsyscall.AccessFSRemoveDir | llsyscall.AccessFSRemoveFile |
	llsyscall.AccessFSMakeDir | llsyscall.AccessFSMakeReg | llsyscall.AccessFSMakeSock |
	llsyscall.AccessFSMakeSym | llsyscall.AccessFSRefer | llsyscall.AccessFSTruncate

// systemReadPaths are what a command may read (and run) outside its own
// folders: the system's programs and libraries, and of /etc only what a
// shell, Python, git and the C library's name lookups read — never
// /etc/shadow, /etc/ssh or private keys. The home folder, glassbox's state
// and the .env glassbox read are not among them.
var systemReadPaths = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/hosts", "/etc/resolv.conf", "/etc/gai.conf",
	"/etc/services", "/etc/protocols", "/etc/networks",
	"/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale",
	"/etc/alternatives", "/etc/mime.types", "/etc/magic", "/etc/magic.mime", "/etc/os-release", "/etc/debian_version",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates", "/etc/pki/tls/certs", "/etc/pki/ca-trust",
	"/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13", "/etc/perl", "/etc/terminfo", "/etc/inputrc",
	"/etc/gitconfig", "/etc/vim", "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/manpath.config",
	"/sys/devices/system/cpu",
	"/proc",
}

// landlockRules are the sandbox's file rules for job: the system's folders,
// the job's own reads (and, for Self, this program's file) to read and run,
// the workspace and the temporary folder for everything but device nodes.
func landlockRules(job sandboxJob) []landlock.Rule {
	var dirs, files []string
	reads := slices.Concat(systemReadPaths, job.Reads)
	if job.Self {
		// The running image, whatever became of its path: opened through
		// the magic link, the rule names the file it points to.
		reads = append(reads, "/proc/self/exe")
	}
	for _, p := range reads {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue // not on this system
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return []landlock.Rule{
		landlock.RODirs(dirs...).IgnoreIfMissing(),
		landlock.ROFiles(files...).IgnoreIfMissing(),
		landlock.ROFiles("/dev/urandom", "/dev/random").IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
		landlock.PathAccess(workspaceRights, job.Workspace, job.Temp),
	}
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
