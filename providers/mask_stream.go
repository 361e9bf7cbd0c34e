package providers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Exchange returns a copy of x masked everywhere a page or a file could
// show it: credential headers by name (request, response and wire
// headers), credential query parameters and a URL password — the wire
// capture's rules, applied again, so that an exchange read back from a
// forged or older session file is masked too — and every secret the Masker
// knows, in any spelling, in the URL, each header, both bodies, the chunks
// and the error. A streamed response is masked as the whole it reassembles
// into: a key a model wrote across two NDJSON or SSE events ("sk-ab" in one
// chunk's content, "cd…" in the next) is found in the concatenated text of
// each field and masked in both pieces, so that no chunk keeps a part of
// it. Redacted lists what was masked, after what the capture had noted.
func (m *Masker) Exchange(x Exchange) Exchange { return m.ExchangeIn(x, nil) }

// ExchangeIn is Exchange for one exchange of a conversation: its request
// body is masked with conv, which does not search again what it shares
// with the conversation's previous request. conv may be nil.
func (m *Masker) ExchangeIn(x Exchange, conv *Conversation) Exchange {
	var n notes
	for _, s := range x.Redacted {
		n.add(s)
	}
	out := x
	if u, err := url.Parse(x.URL); err == nil {
		out.URL = m.r.url(u, &n)
	}
	out.URL = m.noted(out.URL, "secret value in URL", &n)
	out.RequestHeaders = m.headerMap(x.RequestHeaders, "", &n)
	out.ResponseHeaders = m.headerMap(x.ResponseHeaders, "response ", &n)
	if len(x.WireHeaders) > 0 {
		out.WireHeaders = make([]WireHeader, len(x.WireHeaders))
		for i, h := range x.WireHeaders {
			h.Value = m.headerMap(map[string][]string{h.Name: {h.Value}}, "", &n)[h.Name][0]
			out.WireHeaders[i] = h
		}
	}
	if !m.Empty() {
		body := func(masked, was []byte, where string) []byte {
			if !bytes.Equal(masked, was) {
				n.add("secret value in " + where)
			}
			return masked
		}
		if conv != nil {
			out.RequestBody = body(conv.Mask(x.RequestBody), x.RequestBody, "request body")
		} else {
			out.RequestBody = body(m.stream([][]byte{x.RequestBody})[0], x.RequestBody, "request body")
		}
		out.ResponseBody = body(m.stream([][]byte{x.ResponseBody})[0], x.ResponseBody, "response body")
		if len(x.Chunks) > 0 {
			pieces := make([][]byte, len(x.Chunks))
			for i, c := range x.Chunks {
				pieces[i] = c.Data
			}
			pieces = m.stream(pieces)
			out.Chunks = slices.Clone(x.Chunks)
			for i := range out.Chunks {
				out.Chunks[i].Data = body(pieces[i], x.Chunks[i].Data, "response body")
			}
		}
	}
	out.Err, out.Divergence = m.Mask(x.Err), m.Mask(x.Divergence)
	out.Redacted = n
	return out
}

// noted masks s and notes where when anything was masked.
func (m *Masker) noted(s, where string, n *notes) string {
	if out := m.Mask(s); out != s {
		n.add(where)
		return out
	}
	return s
}

// headerMap masks headers by the capture's rules (credential headers by
// name, literal secrets in the others) and every secret in any spelling.
func (m *Masker) headerMap(h map[string][]string, side string, n *notes) map[string][]string {
	out := m.r.headers(http.Header(h), side, n)
	for name, vs := range out {
		for i := range vs {
			vs[i] = m.noted(vs[i], "secret value in "+side+"header "+strings.ToLower(name), n)
		}
	}
	return out
}

// stream masks a body that arrived in pieces as one: the secrets are found
// in the pieces' concatenation — and in the text each JSON field of its
// events adds up to — and each piece gets its share of the masking, with
// the mark in every piece that held a part.
func (m *Masker) stream(pieces [][]byte) [][]byte {
	body := bytes.Join(pieces, nil)
	if len(body) == 0 {
		return pieces
	}
	spans := m.find(body)
	spans = append(spans, m.eventFieldSpans(body)...)
	if len(spans) == 0 {
		return pieces
	}
	spans = merge(body, spans)
	out := make([][]byte, len(pieces))
	start := 0
	for i, p := range pieces {
		end := start + len(p)
		var b []byte
		pos := start
		for _, s := range spans {
			if s.end <= start || s.start >= end {
				continue
			}
			from, to := max(s.start, start), min(s.end, end)
			b = append(b, body[pos:from]...)
			b = append(b, RedactedMark...)
			pos = to
		}
		out[i] = append(b, body[pos:end]...)
		start = end
	}
	return out
}

// eventFieldSpans finds secrets spread over the events of a stream: for
// each JSON event (an NDJSON line, or an SSE "data:" line), the raw text of
// every string field is appended to that field's running text (by its path:
// message.content, candidates.0.content.parts.0.text); a secret found in a
// running text is mapped back to the pieces of the body it came from.
func (m *Masker) eventFieldSpans(body []byte) []span {
	if !bytes.Contains(body, []byte("\n")) {
		return nil
	}
	type piece struct{ bodyStart, textStart, n int }
	type field struct {
		text   []byte
		pieces []piece
	}
	fields := map[string]*field{}
	var order []string
	eachLine(body, func(lineStart, end int) {
		line := body[lineStart:end]
		off := lineStart
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			off += len(line) - len(rest)
			line = rest
		}
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '{' {
			off += len(line) - len(t)
			jsonStrings(t, func(path string, start, end int) {
				f := fields[path]
				if f == nil {
					f = &field{}
					fields[path] = f
					order = append(order, path)
				}
				f.pieces = append(f.pieces, piece{bodyStart: off + start, textStart: len(f.text), n: end - start})
				f.text = append(f.text, t[start:end]...)
			})
		}
	})
	var spans []span
	for _, path := range order {
		f := fields[path]
		if len(f.pieces) < 2 {
			continue // one piece: find saw it whole in the body
		}
		for _, s := range m.find(f.text) {
			for _, p := range f.pieces {
				from, to := max(s.start, p.textStart), min(s.end, p.textStart+p.n)
				if from < to {
					spans = append(spans, span{p.bodyStart + from - p.textStart, p.bodyStart + to - p.textStart})
				}
			}
		}
	}
	return spans
}

// jsonLevel is one open object or array on the way to a value.
type jsonLevel struct {
	object bool
	key    string
	index  int
	want   bool // object: the next string is a key
}

// afterValue moves a level past one value: an object waits for its next
// key, an array counts the element.
func afterValue(l *jsonLevel) {
	if l.object {
		l.want = true
	} else {
		l.index++
	}
}

// jsonStrings calls fn with the path and the raw range (inside the quotes)
// of every string value in the JSON document doc.
func jsonStrings(doc []byte, fn func(path string, start, end int)) {
	d := json.NewDecoder(bytes.NewReader(doc))
	var w jsonWalk
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			return
		}
		after := int(d.InputOffset())
		switch v := tok.(type) {
		case json.Delim:
			w.delim(v)
		case string:
			if w.key(v) {
				continue
			}
			if q := bytes.IndexByte(doc[before:after], '"'); q >= 0 && after-1 > before+q {
				fn(w.path(), before+q+1, after-1)
			}
			w.value()
		default:
			w.value()
		}
	}
}

// jsonWalk is where jsonStrings is in the document: the objects and arrays
// open around it.
type jsonWalk struct{ stack []jsonLevel }

func (w *jsonWalk) top() *jsonLevel {
	if len(w.stack) == 0 {
		return nil
	}
	return &w.stack[len(w.stack)-1]
}

// delim opens an object or an array, or closes the innermost (one value
// of the level around it).
func (w *jsonWalk) delim(v json.Delim) {
	switch v {
	case '{':
		w.stack = append(w.stack, jsonLevel{object: true, want: true})
	case '[':
		w.stack = append(w.stack, jsonLevel{})
	default:
		w.stack = w.stack[:len(w.stack)-1]
		w.value()
	}
}

// key takes s as the innermost object's next key; false when s is a value.
func (w *jsonWalk) key(s string) bool {
	if t := w.top(); t != nil && t.object && t.want {
		t.key, t.want = s, false
		return true
	}
	return false
}

// value moves the innermost level past one value.
func (w *jsonWalk) value() {
	if t := w.top(); t != nil {
		afterValue(t)
	}
}

// path is the keys and indexes down to the innermost level, dotted.
func (w *jsonWalk) path() string {
	parts := make([]string, 0, len(w.stack))
	for _, l := range w.stack {
		if l.object {
			parts = append(parts, l.key)
		} else {
			parts = append(parts, strconv.Itoa(l.index))
		}
	}
	return strings.Join(parts, ".")
}

// conversationMargin is how far before the first changed byte a request
// body is searched again: more than the longest spelling of a secret can
// take (a key in a hex dump inside nested JSON), so that one that starts in
// the shared part and ends in the new one is still found whole.
const conversationMargin = 16 << 10

// Conversation masks the request bodies of one conversation. Each body is
// the previous one and a few more messages, so the part it shares with the
// previous body is not searched again: the secrets found there before are
// masked where they were, and the search starts a margin before the first
// byte that differs. A long run's masking stays linear in what is new.
type Conversation struct {
	m     *Masker
	prev  []byte // the previous body, as sent
	spans []span // the secrets found in it
}

// Conversation starts the masking of one conversation's request bodies.
func (m *Masker) Conversation() *Conversation { return &Conversation{m: m} }

// Mask returns body with every secret masked.
func (c *Conversation) Mask(body []byte) []byte {
	if c == nil || c.m.Empty() || len(body) == 0 {
		return body
	}
	shared := 0
	for n := min(len(c.prev), len(body)); shared < n && c.prev[shared] == body[shared]; {
		// Compare in large steps, then byte by byte where they differ.
		step := min(4096, n-shared)
		if string(c.prev[shared:shared+step]) == string(body[shared:shared+step]) {
			shared += step
			continue
		}
		for shared < n && c.prev[shared] == body[shared] {
			shared++
		}
		break
	}
	from := max(0, shared-conversationMargin)
	var spans []span
	for _, s := range c.spans {
		if s.end <= from {
			spans = append(spans, s)
		}
	}
	for _, s := range c.m.find(body[from:]) {
		spans = append(spans, span{s.start + from, s.end + from})
	}
	spans = merge(body, spans)
	c.prev, c.spans = append(c.prev[:0], body...), spans
	if len(spans) == 0 {
		return body
	}
	return replaceSpans(body, spans)
}

// Live masks a response body shown while it arrives (the payload pane's
// live view). A piece is shown once what follows it can no longer turn it
// into part of a secret: the last liveHold bytes are held back, and the
// search runs over the bytes since a margin before what was shown, so a
// key split across chunks — or across the events of a stream — is found
// whole. The full masking of the finished exchange (Exchange) replaces the
// live view when the step ends, held-back bytes included. A Masker with no
// secrets holds nothing back.
type Live struct {
	m       *Masker
	body    []byte
	emitted int
}

// liveHold is how many bytes a live view holds back; liveMargin how far
// before them the search for a secret starts again.
const (
	liveHold   = 512
	liveMargin = 4 << 10
)

// Live starts the live view of one response body.
func (m *Masker) Live() *Live { return &Live{m: m} }

// Feed takes the next piece of the body and returns what may be shown now,
// masked (possibly nothing).
func (l *Live) Feed(p []byte) []byte {
	if l.m.Empty() {
		return p
	}
	l.body = append(l.body, p...)
	safe := len(l.body) - liveHold
	if safe <= l.emitted {
		return nil
	}
	from := max(0, l.emitted-liveMargin)
	window := l.body[from:]
	var spans []span
	for _, s := range append(l.m.find(window), l.m.eventFieldSpans(window)...) {
		s = span{s.start + from, s.end + from}
		if s.start < safe && s.end > safe {
			safe = s.start // a secret reaching into the held-back bytes waits whole
		}
		spans = append(spans, s)
	}
	if safe <= l.emitted {
		return nil
	}
	out := make([]byte, 0, safe-l.emitted)
	pos := l.emitted
	for _, s := range merge(l.body, spans) {
		from, to := max(s.start, l.emitted), min(s.end, safe)
		if from >= to || from < pos {
			continue
		}
		out = append(append(out, l.body[pos:from]...), RedactedMark...)
		pos = to
	}
	out = append(out, l.body[pos:safe]...)
	l.emitted = safe
	return out
}
