package tools

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// starter is the one goroutine that starts commands, locked to its own
// operating-system thread for the life of the program. The kernel sends a
// child its parent-death signal when the thread that forked it ends, not
// the process; Go ends a thread when a goroutine locked to it returns, so a
// command started from an ordinary goroutine could be killed while
// glassbox runs on. This thread never ends before the process does.
var starter struct {
	once sync.Once
	jobs chan startJob
}

type startJob struct {
	cmd  *exec.Cmd
	done chan error
}

// startOnLastingThread starts cmd from the starter's thread.
func startOnLastingThread(cmd *exec.Cmd) error {
	starter.once.Do(func() {
		starter.jobs = make(chan startJob)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the program
			for j := range starter.jobs {
				j.done <- j.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	starter.jobs <- startJob{cmd: cmd, done: done}
	return <-done
}

// live are the commands running now, in every ExecuteCommand, and the
// stdio servers (StartProgram): glassbox stops them all when it ends,
// whatever ended it (StopAllCommands).
var live struct {
	sync.Mutex
	cmds map[*exec.Cmd]any // each running command and its owner: the tool that runs it, or the Program
}

// startTracked starts cmd and adds it to live in one step, under the lock
// sweepStray holds: a sweep never mistakes a command just starting for a
// stray process.
func startTracked(cmd *exec.Cmd, owner any) error {
	live.Lock()
	defer live.Unlock()
	if err := startOnLastingThread(cmd); err != nil {
		return err
	}
	if live.cmds == nil {
		live.cmds = map[*exec.Cmd]any{}
	}
	live.cmds[cmd] = owner
	return nil
}

func untrack(cmd *exec.Cmd) {
	live.Lock()
	defer live.Unlock()
	delete(live.cmds, cmd)
}

// sweepStray stops glassbox's children that are not running commands
// (sweepOrphans) and returns how many processes it stopped.
func sweepStray() int {
	live.Lock()
	defer live.Unlock()
	return sweepOrphans(liveSet())
}

// liveSet are the process ids of the running commands; live is locked.
func liveSet() map[int]bool {
	pids := map[int]bool{}
	for c := range live.cmds {
		if c.Process != nil {
			pids[c.Process.Pid] = true
		}
	}
	return pids
}

// StopAllCommands stops every command and stdio server still running and
// everything it started, waits (up to a few seconds) until each has ended, then stops
// whatever else was left as glassbox's child. glassbox calls it on every
// way out — a quit, Ctrl-C, SIGTERM, SIGHUP — before it removes its
// temporary folders. It returns how many stray processes it stopped.
func StopAllCommands() int {
	stopCommands(nil)
	return sweepStray()
}

// StopCommands stops the commands this tool is running, with everything
// they started, and waits (up to a few seconds) until each has ended: a
// run calls it before its workspace goes. Other tools' commands go on.
func (t *ExecuteCommand) StopCommands() { stopCommands(t) }

// stopCommands signals the commands of owner (nil: every command and
// server) and waits for them to end.
func stopCommands(owner any) {
	live.Lock()
	var stopping []*exec.Cmd
	for c, o := range live.cmds {
		if c.Process != nil && (owner == nil || o == owner) {
			// The helper stops its command's whole tree on SIGTERM; a plain
			// shell's process group is killed outright.
			_ = c.Process.Signal(syscall.SIGTERM)
			_ = killProcessGroup(c)
			stopping = append(stopping, c)
		}
	}
	live.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for _, c := range stopping {
		for time.Now().Before(deadline) {
			live.Lock()
			_, running := live.cmds[c]
			live.Unlock()
			if !running {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
