package headless

import (
	"runtime/debug"
	"testing"
)

func TestTuneGCLeavesAPersonsGOGCAlone(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	TuneGC(func(string) string { return "50" })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set, the target became %d", got)
	}
	TuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Fatalf("without GOGC, the target is %d, want %d", got, GCPercent)
	}
}
