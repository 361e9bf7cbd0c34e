//go:build unix

package tools

import (
	"errors"
	"os/exec"
	"syscall"
)

// startInOwnGroup makes the command the leader of a new session, and so of
// a new process group: everything it starts (a pipeline, a background job,
// a child's child) belongs to that group and can be stopped together, and
// it has no controlling terminal — /dev/tty does not reach the terminal
// glassbox runs in.
func startInOwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// killProcessGroup sends SIGKILL to the command's whole process group. A
// negative pid means "the group with this id", and the leader's pid is the
// group id. A group that has already gone is not an error.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
