package payload

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The JSON printer re-indents the body's own tokens instead of decoding it
// into maps: the learner sees the keys in the order they went over the wire,
// every number exactly as written, every escape as sent.

// tokenKind is the kind of one JSON token.
type tokenKind uint8

const (
	tokEnd   tokenKind = iota // no more input
	tokOpen                   // { or [
	tokClose                  // } or ]
	tokComma
	tokColon
	tokString
	tokNumber
	tokBool
	tokNull
)

// scanner splits valid JSON into tokens. It assumes json.Valid has accepted
// the input; on anything else it stops (tokEnd) rather than misbehave.
type scanner struct {
	b   string
	pos int
}

// next returns the next token and its bytes.
func (s *scanner) next() (tokenKind, string) {
	s.skipSpace()
	if s.pos >= len(s.b) {
		return tokEnd, ""
	}
	start := s.pos
	c := s.b[s.pos]
	if k, ok := punctuation(c); ok {
		s.pos++
		return k, s.b[start:s.pos]
	}
	switch c {
	case '"':
		return tokString, s.str(start)
	case 't', 'f', 'n':
		for s.pos < len(s.b) && s.b[s.pos] >= 'a' && s.b[s.pos] <= 'z' {
			s.pos++
		}
		if c == 'n' {
			return tokNull, s.b[start:s.pos]
		}
		return tokBool, s.b[start:s.pos]
	}
	for s.pos < len(s.b) && strings.IndexByte("+-.0123456789eE", s.b[s.pos]) >= 0 {
		s.pos++
	}
	if s.pos == start { // not JSON after all
		s.pos = len(s.b)
		return tokEnd, ""
	}
	return tokNumber, s.b[start:s.pos]
}

// punctuation is the token of a one-byte token, if c is one.
func punctuation(c byte) (tokenKind, bool) {
	switch c {
	case '{', '[':
		return tokOpen, true
	case '}', ']':
		return tokClose, true
	case ',':
		return tokComma, true
	case ':':
		return tokColon, true
	}
	return tokEnd, false
}

// str scans the string starting at start (its opening quote), escapes
// included; an unterminated string runs to the end.
func (s *scanner) str(start int) string {
	s.pos++
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			return s.b[start:s.pos]
		}
		s.pos++
	}
	s.pos = len(s.b)
	return s.b[start:]
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it (0 at the end).
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.b) {
		return 0
	}
	return s.b[s.pos]
}

// writeJSON writes the valid JSON value b into the document. Pretty puts
// one member per line, indented by two spaces per level from indent; compact
// writes it on the current line with no spaces, as most wires send it.
func (d *document) writeJSON(b string, pretty bool, indent int) {
	w := jsonWriter{d: d, s: scanner{b: b}, pretty: pretty, indent: indent}
	if len(b) > 4096 { // a big body: size the document once, not by doubling
		tokens, breaks := countTokens(b)
		d.spans = slices.Grow(d.spans, tokens)
		d.lines = slices.Grow(d.lines, breaks)
	}
	w.newLine()
	for {
		kind, tok := w.s.next()
		if kind == tokEnd {
			return
		}
		w.token(kind, tok)
	}
}

// jsonWriter is writeJSON's state: the open containers ('{' or '['), whether
// a string now is a key, the depth.
type jsonWriter struct {
	d         *document
	s         scanner
	stack     []byte
	expectKey bool
	depth     int
	pretty    bool
	indent    int
}

func (w *jsonWriter) newLine() {
	if w.pretty {
		in := w.indent + 2*w.depth
		w.d.newLine(in, in+2)
	}
}

// token writes one token.
func (w *jsonWriter) token(kind tokenKind, tok string) {
	d := w.d
	switch kind {
	case tokOpen:
		d.put(inkPunct, tok)
		if c := w.s.peek(); c == '}' || c == ']' { // empty: {} or []
			_, closing := w.s.next()
			d.put(inkPunct, closing)
			return
		}
		w.stack = append(w.stack, tok[0])
		w.expectKey = tok[0] == '{'
		w.depth++
		w.newLine()
	case tokClose:
		if len(w.stack) > 0 {
			w.stack = w.stack[:len(w.stack)-1]
		}
		w.depth = max(0, w.depth-1)
		w.newLine()
		d.put(inkPunct, tok)
	case tokComma:
		d.put(inkPunct, ",")
		w.expectKey = len(w.stack) > 0 && w.stack[len(w.stack)-1] == '{'
		w.newLine()
	case tokColon:
		colon := ":"
		if w.pretty {
			colon = ": "
		}
		d.put(inkPunct, colon)
		w.expectKey = false
	default:
		d.put(w.ink(kind), tok)
	}
}

// ink is how a value token is painted.
func (w *jsonWriter) ink(kind tokenKind) ink {
	switch kind {
	case tokString:
		if w.expectKey {
			return inkKey
		}
		return inkString
	case tokNumber:
		return inkNumber
	case tokBool:
		return inkBool
	}
	return inkNull
}

// countTokens counts the tokens of b and the line breaks pretty-printing
// would make (an upper bound).
func countTokens(b string) (tokens, breaks int) {
	s := scanner{b: b}
	for {
		kind, _ := s.next()
		switch kind {
		case tokEnd:
			return tokens, breaks + 1
		case tokOpen, tokClose, tokComma:
			breaks++
		}
		tokens++
	}
}

// isJSON reports whether b is one valid JSON object or array (a bare
// string or number is shown as text).
func isJSON(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid(t)
}
