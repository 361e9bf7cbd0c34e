package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
)

// Each request sends the whole conversation again, so stored as they are a
// long session's request bodies would grow with the square of its length.
// The session keeps a request body as the part that is new since the
// previous request, plus a reference to that request (where it is and how
// many bytes they share); every keyframeEvery requests one is kept whole,
// so reading one back never follows a long chain.
const (
	keyframeEvery  = 32
	minSharedBytes = 512
)

// storedExchange is an exchange as the session file keeps it.
type storedExchange struct {
	providers.Exchange
	// BodyFrom, when set, says RequestBody holds only what follows the
	// first Prefix bytes of another request's body.
	BodyFrom *bodyRef `json:"request_body_from,omitempty"`
}

type bodyRef struct {
	At     session.Span `json:"at"`     // the step's exchanges record
	Index  int          `json:"index"`  // which exchange in it
	Prefix int          `json:"prefix"` // how many bytes are shared
}

// exchangeWriter remembers the last request body written, to store the
// next one as a difference.
type exchangeWriter struct {
	last  []byte
	at    session.Span
	index int
	chain int
}

// write stores exchanges and returns where they are.
func (x *exchangeWriter) write(w *session.Writer, exchanges []providers.Exchange) (*session.Span, error) {
	stored := make([]storedExchange, len(exchanges))
	for i, ex := range exchanges {
		stored[i].Exchange = ex
		body := ex.RequestBody
		if x.last != nil && x.chain < keyframeEvery {
			if n := sharedPrefix(x.last, body); n >= minSharedBytes {
				stored[i].RequestBody = body[n:]
				stored[i].BodyFrom = &bodyRef{At: x.at, Index: x.index, Prefix: n}
			}
		}
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	span, err := w.WriteExchanges(data)
	if err != nil {
		x.last = nil
		return nil, err
	}
	for i := len(exchanges) - 1; i >= 0; i-- {
		if len(exchanges[i].RequestBody) > 0 {
			if stored[i].BodyFrom != nil {
				x.chain++
			} else {
				x.chain = 0
			}
			x.last, x.at, x.index = exchanges[i].RequestBody, *span, i
			break
		}
	}
	return span, nil
}

func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	// Compare in blocks first: bodies share most of their bytes.
	i := 0
	for i+4096 <= n && bytes.Equal(a[i:i+4096], b[i:i+4096]) {
		i += 4096
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// ExchangeReader reads steps' raw HTTP exchanges back from beside a session
// file, whole. It remembers the last few it read, so reading steps in order
// (or around one step) follows each stored difference once, and a screen can
// keep only the payloads near the step it shows. Not safe for concurrent use.
type ExchangeReader struct {
	path  string
	cache map[int64][]providers.Exchange // by span offset
	order []int64                        // oldest first
	limit int
	bytes int // of the bodies cached
}

// readerCacheBytes bounds what an ExchangeReader remembers: late in a long
// session one request is megabytes, and the chain of differences that
// rebuilds it passes through up to keyframeEvery of them.
const readerCacheBytes = 8 << 20

// NewExchangeReader reads the exchanges of the session at path, keeping up
// to limit steps' exchanges (at least keyframeEvery+1).
func NewExchangeReader(path string, limit int) *ExchangeReader {
	return &ExchangeReader{path: path, cache: map[int64][]providers.Exchange{}, limit: max(limit, keyframeEvery+1)}
}

// Load returns the exchanges of one step (nil when it made none). They may
// be shared with later Loads: read them, do not change them.
func (r *ExchangeReader) Load(st session.Record) ([]providers.Exchange, error) {
	if st.Exchanges == nil {
		return nil, nil
	}
	x, err := r.read(*st.Exchanges)
	if err != nil {
		return nil, fmt.Errorf("the exchanges of step %d: %w", st.Seq, err)
	}
	return x, nil
}

// LoadAt returns the exchanges stored at span (a Transition's ExchangesAt).
func (r *ExchangeReader) LoadAt(span session.Span) ([]providers.Exchange, error) {
	return r.read(span)
}

func (r *ExchangeReader) read(span session.Span) ([]providers.Exchange, error) {
	if x, ok := r.cache[span.Offset]; ok {
		return x, nil
	}
	stored, err := r.decode(span)
	if err != nil {
		return nil, err
	}
	out := make([]providers.Exchange, len(stored))
	for i, s := range stored {
		out[i] = s.Exchange
		if s.BodyFrom != nil {
			if out[i].RequestBody, err = r.rebuild(s.BodyFrom, s.RequestBody); err != nil {
				return nil, err
			}
		}
	}
	r.remember(span.Offset, out)
	return out, nil
}

// decode reads the exchanges stored at span as the file keeps them.
func (r *ExchangeReader) decode(span session.Span) ([]storedExchange, error) {
	data, err := session.ReadExchanges(r.path, span)
	if err != nil {
		return nil, err
	}
	var stored []storedExchange
	if err := json.Unmarshal(data, &stored); err != nil {
		return nil, fmt.Errorf("%w: the exchanges at %d: %v", session.ErrCorrupt, span.Offset, err)
	}
	return stored, nil
}

// rebuild puts a request body back together: tail follows the first
// ref.Prefix bytes of the body ref points to, which may itself be a
// difference, back to one kept whole (or one the reader remembers). The
// chain is applied in one buffer, so a megabyte body that took thirty
// differences to write costs one megabyte to read, not thirty.
func (r *ExchangeReader) rebuild(ref *bodyRef, tail []byte) ([]byte, error) {
	type link struct {
		prefix int
		tail   []byte
	}
	links := []link{{ref.Prefix, tail}}
	var base []byte
	for at, index := ref.At, ref.Index; ; {
		if len(links) > keyframeEvery+1 {
			return nil, fmt.Errorf("%w: a request body refers back too far", session.ErrCorrupt)
		}
		if x, ok := r.cache[at.Offset]; ok {
			if index < 0 || index >= len(x) {
				return nil, fmt.Errorf("%w: a request body refers to bytes that are not there", session.ErrCorrupt)
			}
			base = x[index].RequestBody
			break
		}
		stored, err := r.decode(at)
		if err != nil {
			return nil, err
		}
		if index < 0 || index >= len(stored) {
			return nil, fmt.Errorf("%w: a request body refers to bytes that are not there", session.ErrCorrupt)
		}
		s := stored[index]
		if s.BodyFrom == nil {
			base = s.RequestBody
			break
		}
		links = append(links, link{s.BodyFrom.Prefix, s.RequestBody})
		at, index = s.BodyFrom.At, s.BodyFrom.Index
	}
	// Oldest first: each difference keeps a prefix of the body before it.
	n, most := len(base), len(base)
	for k := len(links) - 1; k >= 0; k-- {
		if links[k].prefix < 0 || links[k].prefix > n {
			return nil, fmt.Errorf("%w: a request body refers to bytes that are not there", session.ErrCorrupt)
		}
		n = links[k].prefix + len(links[k].tail)
		most = max(most, n)
	}
	body := append(make([]byte, 0, most), base...)
	for k := len(links) - 1; k >= 0; k-- {
		body = append(body[:links[k].prefix], links[k].tail...)
	}
	return body, nil
}

func (r *ExchangeReader) remember(off int64, x []providers.Exchange) {
	r.cache[off] = x
	r.order = append(r.order, off)
	r.bytes += bodyBytes(x)
	for len(r.order) > 1 && (len(r.order) > r.limit || r.bytes > readerCacheBytes) {
		r.bytes -= bodyBytes(r.cache[r.order[0]])
		delete(r.cache, r.order[0])
		r.order = r.order[1:]
	}
}

func bodyBytes(x []providers.Exchange) int {
	n := 0
	for _, e := range x {
		n += e.BodyBytes()
	}
	return n
}
