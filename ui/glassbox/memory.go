package glassbox

import "runtime/debug"

// MemoryLimit is the glass box's soft memory limit (Go's GOMEMLIMIT): a
// long session allocates a great deal of short-lived memory inside the SDKs
// (every call encodes the whole conversation again), and near this limit the
// collector runs more often instead of letting the heap grow to twice what
// is live. It is a soft limit: a session that really needs more gets more.
const MemoryLimit = 96 << 20

// TuneMemory sets MemoryLimit unless GOMEMLIMIT is set: a person's own
// setting wins. glassbox.Run calls it.
func TuneMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
