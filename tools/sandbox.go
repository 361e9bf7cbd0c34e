package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
)

// SandboxArg is the hidden subcommand that turns glassbox into the sandbox
// helper: `glassbox __sandbox-exec WORKSPACE TMPDIR net|nonet COMMAND`.
// execute_command starts every command through it. The helper stays
// unconfined: it becomes the command's subreaper, starts the confining
// stage (confineArg) and, when the shell ends or glassbox goes, stops
// everything the command left behind.
const SandboxArg = "__sandbox-exec"

// confineArg is the helper's second stage: `glassbox __sandbox-confine
// WORKSPACE TMPDIR net|nonet COMMAND` confines itself (capabilities,
// Landlock, seccomp), then replaces itself with `sh -c COMMAND`. It runs in
// the same Landlock domain as the command and nothing else does, so the
// command cannot signal or trace the helper that watches it.
const confineArg = "__sandbox-confine"

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
			os.Exit(sandboxHelperMain(os.Args[2:]))
		case confineArg:
			os.Exit(confineMain(os.Args[2:]))
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

// helperStatus is what the helper reports on its status pipe (fd 3) when
// the command is over: one JSON object.
type helperStatus struct {
	// Sandbox is "on: …" or "off — reason", as SandboxStatus says it.
	Sandbox string `json:"sandbox"`
	// Exit is the shell's exit code; -1 when a signal ended it.
	Exit   int    `json:"exit"`
	Signal string `json:"signal,omitempty"`
	// Stopped counts the processes the command left behind (background
	// jobs, setsid daemons) that the helper killed when the shell ended.
	Stopped int `json:"stopped"`
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
