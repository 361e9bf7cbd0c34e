package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
)

// SandboxArg is the hidden subcommand that turns glassbox into the sandbox
// helper: `glassbox __sandbox-exec`, its job (a sandboxJob in JSON) read
// from descriptor jobFD — never from its arguments, which every process
// may read in /proc/PID/cmdline. execute_command starts every command
// through it, and StartProgram every stdio MCP server. The helper stays
// unconfined: it becomes the program's subreaper, makes its cgroups,
// starts the confining stage (confineArg) and, when the program ends or
// glassbox goes, stops everything it left behind.
const SandboxArg = "__sandbox-exec"

// confineArg is the helper's second stage: `glassbox __sandbox-confine`,
// its job again on jobFD, confines itself (its own PID namespace and
// /proc, mounts, limits, capabilities, Landlock, seccomp), then starts the
// job's program (`sh -c COMMAND` for a command) and waits for it as the
// init of its namespace. It runs in the same Landlock domain as the
// program and nothing else does, so the program cannot signal or trace
// the helper that watches it.
const confineArg = "__sandbox-confine"

// jobFD is the descriptor the helper and its stage read their job from
// (a pipe; 3 is the status pipe).
const jobFD = 4

// maxJob caps a job read from jobFD.
const maxJob = 16 << 20

// sandboxJob is what the helper runs and how it is confined, read from
// jobFD by SandboxArg and by confineArg. A command and a stdio server
// differ only in Shell or Argv and in Reads; the helper passes its own
// standard input, output and error on to the program, so a server's
// JSON-RPC pipe goes through it untouched (a command's input is
// /dev/null).
type sandboxJob struct {
	// Workspace is the working folder, readable and writable.
	Workspace string `json:"workspace"`
	// Temp is the program's own temporary folder (TMPDIR, HOME inside),
	// readable and writable.
	Temp string `json:"temp"`
	// Network lets the program connect out (the policy's network = true).
	Network bool `json:"network,omitempty"`
	// Conceal are files inside the folders it may read that it must find
	// empty (the .env glassbox read).
	Conceal []string `json:"conceal,omitempty"`
	// Reads are files and folders outside the workspace and the system's
	// folders it may read and run, never write: a stdio server's own
	// script and the folder that holds it (ServerReads).
	Reads []string `json:"reads,omitempty"`
	// Shell is a command line run as `sh -c Shell` (execute_command).
	Shell string `json:"shell,omitempty"`
	// Argv is a program and its arguments, run without a shell (a stdio
	// server); Argv[0] is looked up in PATH unless it holds a slash.
	Argv []string `json:"argv,omitempty"`
	// Self runs this very program (the file opened at start) with Argv as
	// its arguments: the MCP server bundled in glassbox.
	Self bool `json:"self,omitempty"`
	// Mounts tells the confining stage which mounts it got: privateMountsArg
	// and the helper's namespace, or "shared-mounts". The helper sets it.
	Mounts string `json:"mounts,omitempty"`
	// Limits are the program's (CommandLimits, ServerLimits).
	Limits Limits `json:"limits"`
	// Quota caps the workspace while the program runs (serve's learners).
	Quota Quota `json:"quota,omitzero"`
	// Held says which limits the helper's cgroups hold. The helper sets it.
	Held heldLimits `json:"held,omitzero"`
}

// heldLimits name the cgroups holding a program's processes and memory
// ("cgroup v1 pids.max"), "" for a limit no cgroup holds.
type heldLimits struct {
	Pids   string `json:"pids,omitempty"`
	Memory string `json:"memory,omitempty"`
}

func (j sandboxJob) encode() []byte {
	b, _ := json.Marshal(j) // strings, numbers and bools: cannot fail
	return b
}

// sendJob hands job to a child on a pipe: it returns the read end, for the
// child's jobFD, and writes the job on the other from a goroutine (a job
// can be larger than a pipe holds), closing it after. The caller closes
// the read end once the child has started (or failed to).
func sendJob(job sandboxJob) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		w.Write(job.encode()) // a child that never reads makes this fail, and end
		w.Close()
	}()
	return r, nil
}

// readJob reads the job of the helper or its stage from jobFD (and closes
// it: the program must not hold it).
func readJob() (sandboxJob, error) {
	var j sandboxJob
	f := os.NewFile(jobFD, "job")
	if f == nil {
		return j, errors.New("the sandbox was started without its job")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJob))
	if err != nil {
		return j, fmt.Errorf("the sandbox's job could not be read: %v", err)
	}
	return decodeJob(b)
}

// decodeJob reads a job.
func decodeJob(b []byte) (sandboxJob, error) {
	var j sandboxJob
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("the sandbox's job is not JSON: %v", err)
	}
	if (j.Shell == "") == (len(j.Argv) == 0) || j.Workspace == "" || j.Temp == "" {
		return j, errors.New("the sandbox's job needs a workspace, a temporary folder and either a command line or a program")
	}
	return j, nil
}

// helperReady says this program dispatches SandboxArg (RunSandboxHelper
// was called at the top of main, or of a test's TestMain).
var helperReady atomic.Bool

// RunSandboxHelper must be the first thing main (and the TestMain of any
// test that runs commands) does. When the program was started as the
// helper it confines itself, runs the command and exits, never returning;
// otherwise it records that this program can serve as the helper and
// returns.
func RunSandboxHelper() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case SandboxArg:
			os.Exit(sandboxHelperMain())
		case confineArg:
			os.Exit(confineMain())
		}
	}
	// The helper is this very program, opened now: a command that later
	// replaces the file glassbox was started from (a workspace holding the
	// binary) cannot swap the helper.
	if err := openSelf(); err != nil {
		helperMissing.Store(err.Error())
		return
	}
	helperReady.Store(true)
}

// helperMissing says why the helper could not be prepared, when it could
// not.
var helperMissing atomic.Value // string

// helperStatus is what the helper reports on its status pipe (fd 3): one
// JSON object as soon as the program runs confined (Started) or could not
// be, and one when it is over.
type helperStatus struct {
	// Started says the confining stage has confined itself and become the
	// program (the first report).
	Started bool `json:"started,omitempty"`
	// Sandbox is "on: …" or "off — reason", as SandboxStatus says it.
	Sandbox string `json:"sandbox"`
	// Exit is the shell's exit code; -1 when a signal ended it.
	Exit   int    `json:"exit"`
	Signal string `json:"signal,omitempty"`
	// Stopped counts the processes the command left behind (background
	// jobs, setsid daemons) that were killed when the shell ended.
	Stopped int `json:"stopped"`
	// Limit names the limit that stopped the program or refused it
	// something (a process, memory, the workspace quota), when one did.
	Limit string `json:"limit,omitempty"`
	// Done, from the confining stage, says the program ended and Exit,
	// Signal and Stopped are its (the stage's last report).
	Done bool `json:"done,omitempty"`
	// Cancelled says glassbox asked the helper to stop (timeout, Ctrl-C,
	// a signal) before the shell ended.
	Cancelled bool `json:"cancelled,omitempty"`
	// NoMounts, from the confining stage, says it could not make the file
	// system outside the workspace read-only in its own namespace and ran
	// nothing: the helper starts it again without one.
	NoMounts bool `json:"no_mounts,omitempty"`
	// Error is set when the helper could not run the command at all (the
	// sandbox could not be applied: glassbox never runs a command less
	// confined than it says).
	Error string `json:"error,omitempty"`
}

func (s helperStatus) encode() []byte {
	b, _ := json.Marshal(s) // plain fields: cannot fail
	return append(b, '\n')
}

// readHelperReports reads the helper's reports from r until it closes: each
// is handed to each as it comes (a stdio server waits for the first), and
// the last is returned. ok is false when none could be read (the helper
// died before it could say anything).
func readHelperReports(r io.Reader, each func(helperStatus)) (last helperStatus, ok bool) {
	dec := json.NewDecoder(io.LimitReader(r, 64<<10))
	for {
		var next helperStatus
		if err := dec.Decode(&next); err != nil {
			return last, ok
		}
		last, ok = next, true
		if each != nil {
			each(next)
		}
	}
}

// stoppedNote says what happened to the processes a command left running.
func stoppedNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (1 process it left running was stopped)"
	}
	return fmt.Sprintf(" (%d processes it left running were stopped)", n)
}

// SandboxBrief is a sandbox line ("on — …") as a glass box's welcome shows
// it: what confines the commands (the head, up to the first ":"), then
// every limit in force and the workspace's quota; what stays open is in
// the head already. A line that is not "on" is returned whole.
func SandboxBrief(line string) string {
	if !strings.HasPrefix(line, "on") {
		return line
	}
	head, _, _ := strings.Cut(line, ":")
	i := strings.Index(line, "; limits: ")
	if i < 0 {
		return head
	}
	limits := line[i+2:]
	for _, end := range []string{"; nothing left open", "; left open: "} {
		if j := strings.Index(limits, end); j >= 0 {
			limits = limits[:j]
		}
	}
	return head + "; " + limits
}
