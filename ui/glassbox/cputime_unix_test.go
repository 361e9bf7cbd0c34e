//go:build unix

package glassbox

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user plus system. The
// benchmarks report it next to wall time, which a busy machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
