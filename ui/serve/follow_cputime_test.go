//go:build unix

package serve

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user plus system: the
// fan-out benchmark reports it next to wall time, which a machine shared
// with others inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
