//go:build !unix

package glassbox

import "time"

// cpuTime is unavailable here; the benchmarks then report 0.
func cpuTime() time.Duration { return 0 }
