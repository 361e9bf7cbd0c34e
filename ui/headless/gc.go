package headless

import "runtime/debug"

// GCPercent is the garbage collector's target for a headless run: a batch
// job that runs until the loop is idle, where memory is cheaper than time.
// Every model call re-encodes the whole conversation several times inside
// the SDKs, so a long run allocates a great deal of short-lived memory; at
// Go's default (100) the collector ran about once per call. At 400 a
// 1,000-iteration offline run takes about 13 % less time and peaks at about
// 90 MB instead of 50 MB (BenchmarkLongRun, docs/sessions.md).
const GCPercent = 400

// TuneGC sets GCPercent unless GOGC is set: a person's own setting wins.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
