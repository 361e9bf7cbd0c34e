package tools

import (
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// live are the commands running now, in every ExecuteCommand: glassbox
// stops them all when it ends, whatever ended it (StopAllCommands).
var live struct {
	sync.Mutex
	cmds map[*exec.Cmd]bool
	wg   sync.WaitGroup
}

// startTracked starts cmd and adds it to live in one step, under the lock
// sweepStray holds: a sweep never mistakes a command just starting for a
// stray process.
func startTracked(cmd *exec.Cmd) error {
	live.Lock()
	defer live.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if live.cmds == nil {
		live.cmds = map[*exec.Cmd]bool{}
	}
	live.cmds[cmd] = true
	live.wg.Add(1)
	return nil
}

func untrack(cmd *exec.Cmd) {
	live.Lock()
	defer live.Unlock()
	if live.cmds[cmd] {
		delete(live.cmds, cmd)
		live.wg.Done()
	}
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

// StopAllCommands stops every command still running and everything it
// started, waits (up to a few seconds) until each has ended, then stops
// whatever else was left as glassbox's child. glassbox calls it on every
// way out — a quit, Ctrl-C, SIGTERM, SIGHUP — before it removes its
// temporary folders. It returns how many stray processes it stopped.
func StopAllCommands() int {
	live.Lock()
	for c := range live.cmds {
		if c.Process != nil {
			// The helper stops its command's whole tree on SIGTERM; a plain
			// shell's process group is killed outright.
			_ = c.Process.Signal(syscall.SIGTERM)
			_ = killProcessGroup(c)
		}
	}
	live.Unlock()
	done := make(chan struct{})
	go func() { live.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return sweepStray()
}
