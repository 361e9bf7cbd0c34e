//go:build !linux

package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
)

// SandboxStatus says in one line whether execute_command's commands run
// under the kernel's sandbox: never here.
func SandboxStatus() string {
	return "off — the sandbox uses Linux's Landlock; on " + runtime.GOOS + " commands run with glassbox's own rights"
}

func sandboxStatus(network bool, q Quota) string { return SandboxStatus() }

// BecomeSubreaper does nothing here: subreapers are a Linux feature.
func BecomeSubreaper() error { return nil }

func helperCommand(ctx context.Context, job sandboxJob, status *os.File) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New("no sandbox helper on " + runtime.GOOS)
}

func sandboxHelperMain() int { return 2 }

func sweepOrphans(live map[int]bool) int { return 0 }

func confineMain() int { return 2 }

// openSelf has nothing to open here: there is no helper to execute.
func openSelf() error { return nil }

func selfPath() (string, error) { return "", errors.New("no program file opened on " + runtime.GOOS) }

// systemReadPaths are empty here: nothing confines what a program reads.
var systemReadPaths []string

// RemoveStaleCgroups has nothing to remove here: glassbox makes cgroups on
// Linux only.
func RemoveStaleCgroups() int { return 0 }
