package headless

import "runtime/debug"

// GCPercent is the garbage collector's target for a headless run: a batch
// job that runs until the loop is idle, where memory is cheaper than time.
// Every model call re-encodes the whole conversation several times inside
// the SDKs, so a long run allocates a great deal of short-lived memory; at
// Go's default (100) the collector ran about once per call. At 400 a
// 1,000-iteration offline run takes about 13 % less time (BenchmarkLongRun,
// docs/sessions.md).
const GCPercent = 400

// MemoryLimit is a headless run's soft memory limit (Go's GOMEMLIMIT). At
// GCPercent the heap may grow to five times what was live at the last
// collection, and what is live then includes the call in flight — the
// genai SDK holds the whole conversation re-encoded as maps, about 6 MB at
// the 1,000th call — so a 1,000-iteration run peaked at 121–134 MB
// resident (issue 29). Near this limit the collector runs more often
// instead: the same run peaks at 105–108 MB (31186ab: 108–110 MB) for
// about the same CPU time (7.3–7.9 s against 7.1–7.7 s).
// It is a soft limit: a run whose live heap needs more gets more, with the
// collector working harder (from about 5,000 iterations).
const MemoryLimit = 80 << 20

// TuneGC sets GCPercent unless GOGC is set and MemoryLimit unless
// GOMEMLIMIT is set: a person's own setting wins.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
