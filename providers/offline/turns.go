package offline

import (
	"bytes"
	"encoding/json"
	"sync"
)

// turnCache remembers the last request of one dialect. Every request
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
type turnCache[S forker[S]] struct {
	mu    sync.Mutex
	last  []byte // the last request, up to the end of its last turn
	start int    // where its first turn begins
	n     int    // how many turns it has
	state S      // what they were read into
}

// forker is a dialect's reading of a conversation's turns.
type forker[S any] interface{ fork() S }

// turnsRead is a request read against the last one.
type turnsRead[S any] struct {
	// doc is what to decode: the whole request, or, when it continues the
	// last one, the request with the turns already read left out.
	doc []byte
	// state and n are what those turns were read into, and how many they
	// are; the zero S and 0 when doc is the whole request.
	state S
	n     int
	// start and at are where the request's turns begin and where those of
	// doc begin (at is 0 when doc is the whole request).
	start, at int
}

// read compares body with the last request.
func (c *turnCache[S]) read(body requestBody) turnsRead[S] {
	c.mu.Lock()
	last, start, n, state := c.last, c.start, c.n, c.state
	c.mu.Unlock()
	if n == 0 || body.size() <= len(last) || !body.hasPrefix(last) {
		return turnsRead[S]{doc: body.all()}
	}
	at := len(last)
	switch body.at(at) {
	case ',':
		at++ // more turns follow
	case ']': // none: the same conversation sent again
	default:
		return turnsRead[S]{doc: body.all()}
	}
	rest := body.from(at)
	doc := make([]byte, 0, start+len(rest))
	doc = append(append(doc, body.head(start)...), rest...)
	return turnsRead[S]{doc: doc, state: state.fork(), n: n, start: start, at: at}
}

// remember keeps body up to the end of its turns, and what they were read
// into. turns are the ones decoded from r.doc; key names the list they
// are in ("contents", "messages"). A request laid out otherwise than the
// SDKs write it (white space between turns, the list not where key says)
// is not kept: the next one is read whole.
func (c *turnCache[S]) remember(body requestBody, key string, r turnsRead[S], turns []json.RawMessage, state S) {
	start, at := r.start, r.at
	if r.n == 0 {
		// r.doc is the whole body, read already.
		i := bytes.Index(r.doc, []byte(`"`+key+`":[`))
		if i < 0 {
			return
		}
		start = i + len(key) + 4
		at = start
	}
	end := at
	for i, raw := range turns {
		if i > 0 {
			if end >= body.size() || body.at(end) != ',' {
				return
			}
			end++
		}
		if end+len(raw) > body.size() || !bytes.Equal(body.b[end:end+len(raw)], raw) {
			return
		}
		end += len(raw)
	}
	if r.n+len(turns) == 0 || end >= body.size() || body.at(end) != ']' {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Nothing changes a request's body once read, and read hands out a
	// fork of the state: keep both as they are.
	c.last, c.start, c.n, c.state = body.upTo(end), start, r.n+len(turns), state
}
