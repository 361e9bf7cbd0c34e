package offline

import (
	"bytes"
	"encoding/json"
	"sync"
)

// TurnCache remembers the last request of one dialect. Every request
// repeats the whole conversation — Gemini's contents, the messages of
// Ollama and of the chat completions API — and adds its newest turns, so
// reading all of it again on every call made a long session quadratic.
// When a request starts with the bytes of the last one up to the end of
// its turns, only what follows is decoded: those bytes were read when they
// first came, and what they were read into (S) is kept. The one look at
// the whole request is that comparison, which allocates nothing.
//
// S is what a dialect folds its turns into; fork gives a copy that can be
// continued without changing what was handed out before. The zero value
// is ready; it is safe for concurrent use.
type TurnCache[S Forker[S]] struct {
	mu    sync.Mutex
	last  []byte // the last request, up to the end of its last turn
	start int    // where its first turn begins
	n     int    // how many turns it has
	state S      // what they were read into
}

// Forker is a dialect's reading of a conversation's turns.
type Forker[S any] interface{ Fork() S }

// TurnsRead is a request read against the last one.
type TurnsRead[S any] struct {
	// Doc is what to decode: the whole request, or, when it continues the
	// last one, the request with the turns already read left out.
	Doc []byte
	// State and n are what those turns were read into, and how many they
	// are; the zero S and 0 when doc is the whole request.
	State S
	N     int
	// start and at are where the request's turns begin and where those of
	// doc begin (at is 0 when doc is the whole request).
	start, at int
}

// Read compares body with the last request.
func (c *TurnCache[S]) Read(body Body) TurnsRead[S] {
	c.mu.Lock()
	last, start, n, state := c.last, c.start, c.n, c.state
	c.mu.Unlock()
	if n == 0 || body.Size() <= len(last) || !body.hasPrefix(last) {
		return TurnsRead[S]{Doc: body.all()}
	}
	at := len(last)
	switch body.at(at) {
	case ',':
		at++ // more turns follow
	case ']': // none: the same conversation sent again
	default:
		return TurnsRead[S]{Doc: body.all()}
	}
	rest := body.from(at)
	doc := make([]byte, 0, start+len(rest))
	doc = append(append(doc, body.head(start)...), rest...)
	return TurnsRead[S]{Doc: doc, State: state.Fork(), N: n, start: start, at: at}
}

// Whole reads body whole, whatever the last request was: for a request
// whose turns are read another way than the last one's.
func (c *TurnCache[S]) Whole(body Body) TurnsRead[S] { return TurnsRead[S]{Doc: body.all()} }

// Remember keeps body up to the end of its turns, and what they were read
// into. turns are the ones decoded from r.doc; key names the list they
// are in ("contents", "messages"). A request laid out otherwise than the
// SDKs write it (white space between turns, the list not where key says)
// is not kept: the next one is read whole.
func (c *TurnCache[S]) Remember(body Body, key string, r TurnsRead[S], turns []json.RawMessage, state S) {
	start, at := r.start, r.at
	if r.N == 0 {
		// r.doc is the whole body, read already.
		i := bytes.Index(r.Doc, []byte(`"`+key+`":[`))
		if i < 0 {
			return
		}
		start = i + len(key) + 4
		at = start
	}
	end := at
	for i, raw := range turns {
		if i > 0 {
			if end >= body.Size() || body.at(end) != ',' {
				return
			}
			end++
		}
		if end+len(raw) > body.Size() || !bytes.Equal(body.b[end:end+len(raw)], raw) {
			return
		}
		end += len(raw)
	}
	if r.N+len(turns) == 0 || end >= body.Size() || body.at(end) != ']' {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Nothing changes a request's body once read, and read hands out a
	// fork of the state: keep both as they are.
	c.last, c.start, c.n, c.state = body.upTo(end), start, r.N+len(turns), state
}
