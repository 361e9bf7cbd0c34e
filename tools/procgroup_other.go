//go:build !unix

package tools

import "os/exec"

// startInOwnGroup does nothing here: process groups are a Unix idea.
func startInOwnGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the command's own process; without Unix process
// groups its children are not reached.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
