package offline

import (
	"bytes"
	"sync/atomic"
)

// Body is a model call's request as the simulation holds it. Every
// request repeats the whole conversation, so reading all of it on every
// call makes a long run quadratic — decoding it did, and so did a regular
// expression searched over it (issue 29). The bytes are therefore kept
// behind methods that count what is read of them; the tests hold the
// count to what each request adds (TestEmulatorWorkPerCallDoesNotGrow).
// Comparing with the last request (hasPrefix) and keeping a part of it
// (upTo) are not reading: they neither decode nor search, and allocate
// nothing.
type Body struct {
	b    []byte
	read *atomic.Int64 // the server's count; nil counts nothing
}

// count adds n bytes to what was read.
func (r Body) count(n int) {
	if r.read != nil {
		r.read.Add(int64(n))
	}
}

// all is the whole body, read: for a request that continues none before it.
func (r Body) all() []byte {
	r.count(len(r.b))
	return r.b
}

// from is the body from offset i on, read.
func (r Body) from(i int) []byte {
	r.count(len(r.b) - i)
	return r.b[i:]
}

// head is the body up to offset i, read.
func (r Body) head(i int) []byte {
	r.count(i)
	return r.b[:i]
}

// Size is the body's length.
func (r Body) Size() int { return len(r.b) }

// at is the byte at offset i.
func (r Body) at(i int) byte { return r.b[i] }

// Blank reports whether the body holds nothing but white space, reading
// no further than its first byte that is not.
func (r Body) Blank() bool {
	for _, c := range r.b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// hasPrefix reports whether the body starts with p.
func (r Body) hasPrefix(p []byte) bool { return bytes.HasPrefix(r.b, p) }

// upTo is the body up to offset i, kept to compare the next request with.
func (r Body) upTo(i int) []byte { return r.b[:i:i] }
