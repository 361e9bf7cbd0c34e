//go:build linux

package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// confineMain is the helper's second stage. It reads its job from jobFD,
// confines this process — its own PID namespace and /proc, the read-only
// mounts, the limits, capabilities, Landlock, seccomp, all on the one
// thread that then forks — reports the sandbox line on fd 3, and starts
// the job's program. It then waits for it as the init of its PID namespace
// (reaping every orphan), stops what the program left running, and reports
// how it ended. If any part of the sandbox the kernel offers cannot be
// applied, the program is not run.
func confineMain() int {
	runtime.LockOSThread()
	syscall.CloseOnExec(3)
	out := os.NewFile(3, "confine")
	say := func(s helperStatus) {
		if out != nil {
			out.Write(s.encode())
		}
	}
	job, err := readJob()
	if err != nil {
		say(helperStatus{Error: err.Error()})
		return 2
	}
	// "private-mounts=NS": started in namespaces of its own; NS is the
	// helper's mount namespace, which this stage must not be in.
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
		// without the namespaces, and the line will say what stays open.
		say(helperStatus{Error: noMounts.Error(), NoMounts: true})
		return 3
	}
	if err != nil {
		say(helperStatus{Sandbox: line, Error: err.Error()})
		return 2
	}
	say(helperStatus{Sandbox: line})
	say(runAsInit(path, argv, job.Workspace))
	return 0
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
// part of the sandbox that could not be applied, and the program must not
// run.
func confine(job sandboxJob, private bool, parentNS string) (string, error) {
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
	held := limitMechanismsFor(job.Held, private)
	if err := setLimits(job.Limits, held); err != nil {
		return "", fmt.Errorf("the program's limits could not be set (%v), so it was not run", err)
	}
	if err := dropCapabilities(); err != nil {
		return "", fmt.Errorf("the program's capabilities could not be dropped (%v), so it was not run", err)
	}
	if llErr == nil {
		if err := restrictLandlock(job); err != nil {
			return "", fmt.Errorf("the kernel offers Landlock ABI %d but the sandbox could not be applied (%v), so the program was not run", abi, err)
		}
	}
	if scErr == nil {
		if err := loadSeccomp(job.Network); err != nil {
			return "", fmt.Errorf("the kernel offers seccomp but the filter could not be loaded (%v), so the program was not run", err)
		}
	}
	return sandboxLine(reach{abi: abi, landlock: llErr, seccomp: scErr, readOnly: roErr, network: job.Network,
		limits: job.Limits, held: held, quota: job.Quota}), nil
}

// restrictLandlock applies the file rules, and without network the TCP
// rules (none: no connection), and the signal and abstract socket scope.
func restrictLandlock(job sandboxJob) error {
	cfg := landlock.V11.BestEffort()
	rules := landlockRules(job)
	if !job.Network {
		return cfg.Restrict(rules...)
	}
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	return cfg.RestrictScoped()
}

// setLimits sets the rlimits of this process, which the program inherits:
// the size of a file, processor time (SIGXCPU at the limit, SIGKILL five
// seconds of CPU later), no core files, and what no cgroup holds: each
// process's data (RLIMIT_DATA: its heap and private mappings, not the
// address space it only reserves) and, where it binds, RLIMIT_NPROC.
// Lowering a limit needs no privilege, and without CAP_SYS_RESOURCE
// (dropped next) the program cannot raise it again.
func setLimits(l Limits, held limitMechanisms) error {
	cpu := uint64(l.CPU.Seconds())
	set := []rlimit{
		{unix.RLIMIT_FSIZE, "file size", uint64(l.FileSize), uint64(l.FileSize)},
		{unix.RLIMIT_CPU, "CPU time", cpu, cpu + 5},
		{unix.RLIMIT_CORE, "core files", 0, 0},
	}
	if held.memoryCgroup == "" {
		set = append(set, rlimit{unix.RLIMIT_DATA, "data", uint64(l.Memory), uint64(l.Memory)})
	}
	if held.nproc {
		set = append(set, rlimit{unix.RLIMIT_NPROC, "processes", uint64(l.Processes), uint64(l.Processes)})
	}
	for _, r := range set {
		if err := unix.Setrlimit(r.resource, &unix.Rlimit{Cur: r.cur, Max: r.max}); err != nil {
			return fmt.Errorf("the %s limit: %w", r.name, err)
		}
	}
	return nil
}

// rlimit is one resource limit to set.
type rlimit struct {
	resource int
	name     string
	cur, max uint64
}

// runAsInit starts the program (already confined: it inherits everything)
// and waits for it. In a PID namespace of its own this stage is its init:
// every orphan comes to it and is reaped, and once the program ends what
// it left running is killed and counted. Outside one (no namespaces here)
// the helper, the program's subreaper, does that. The termination signals
// are caught and dropped, so the program cannot end its own init (and the
// program, after its fork, gets the default handling of each again).
func runAsInit(path string, argv []string, dir string) helperStatus {
	drop := make(chan os.Signal, 16)
	signal.Notify(drop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for range drop {
		}
	}()
	// The program must not read this stage's memory or environment.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: dir, Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return helperStatus{Error: fmt.Sprintf("cannot start %s: %v", argv[0], err)}
	}
	ws := reap(pid)
	s := helperStatus{Done: true, Exit: ws.ExitStatus()}
	if ws.Signaled() {
		s.Exit, s.Signal = -1, ws.Signal().String()
	}
	if os.Getpid() == 1 {
		s.Stopped = stopNamespace()
	}
	return s
}

// reap waits for the program, reaping whatever else ends meanwhile (as
// init, every orphan of the namespace is this stage's child).
func reap(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return ws // no child left: cannot happen before the program's end
		case got == pid:
			return ws
		}
	}
}

// stopNamespace kills every other process of this PID namespace (its
// /proc is the namespace's own), reaps them all, and returns how many were
// running.
func stopNamespace() int {
	n := 0
	for _, p := range processes() {
		if p.pid != 1 && !p.zombie && syscall.Kill(p.pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	// Anything started since the list was read.
	_ = syscall.Kill(-1, syscall.SIGKILL)
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err != nil && !errors.Is(err, syscall.EINTR) {
			return n
		}
	}
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
	"/proc", // the program's own: its PID namespace's, mounted by readOnlyOutside
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
