package headless

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestTuneGCLeavesAPersonsGOGCAlone(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)
	TuneGC(func(string) string { return "50" })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set, the target became %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Fatalf("with GOMEMLIMIT set, the limit became %d", got)
	}
	TuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Fatalf("without GOGC, the target is %d, want %d", got, GCPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != MemoryLimit {
		t.Fatalf("without GOMEMLIMIT, the limit is %d, want %d", got, MemoryLimit)
	}
}
