package glassbox

import (
	"math"
	"runtime/debug"
	"testing"
)

// The glass box sets its soft memory limit, unless the person set GOMEMLIMIT.
func TestTuneMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))

	debug.SetMemoryLimit(math.MaxInt64)
	TuneMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("without GOMEMLIMIT the limit is %d, want %d", got, MemoryLimit)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	TuneMemory(func(name string) string {
		if name == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set the limit was changed to %d", got)
	}
}
