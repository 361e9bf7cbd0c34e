// Package budget bounds what a streaming file reader reads of one piece of
// its file (a HAR entry, an OTLP line): the readers of providers/har and
// providers/spans decode one piece at a time from a Reader whose budget
// they Reset before each, so a piece larger than the bound fails with
// ErrOver instead of growing the heap.
package budget

import (
	"errors"
	"io"
)

// ErrOver: the piece being read is larger than the budget.
var ErrOver = errors.New("over budget")

// Reader reads R, at most the budget Reset last set.
type Reader struct {
	R    io.Reader
	left int64
}

// Reset sets the budget to n bytes.
func (b *Reader) Reset(n int64) { b.left = n }

func (b *Reader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, ErrOver
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.R.Read(p)
	b.left -= int64(n)
	return n, err
}
