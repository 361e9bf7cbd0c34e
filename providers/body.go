package providers

import (
	"bytes"
	"io"
)

// ReadBody reads r to the end into a buffer sized from the start when the
// length is known (a request's ContentLength; 0 or -1 when it is not).
// io.ReadAll grows by doubling, which for the large request bodies of a
// long conversation allocated twice the body on every read.
func ReadBody(r io.Reader, length int64) ([]byte, error) {
	const maxHint = 64 << 20
	if length <= 0 || length > maxHint {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(length) + bytes.MinRead)
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}
