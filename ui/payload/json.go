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
	switch c := s.b[s.pos]; c {
	case '{', '[':
		s.pos++
		return tokOpen, s.b[start:s.pos]
	case '}', ']':
		s.pos++
		return tokClose, s.b[start:s.pos]
	case ',':
		s.pos++
		return tokComma, s.b[start:s.pos]
	case ':':
		s.pos++
		return tokColon, s.b[start:s.pos]
	case '"':
		s.pos++
		for s.pos < len(s.b) {
			switch s.b[s.pos] {
			case '\\':
				s.pos += 2
				continue
			case '"':
				s.pos++
				return tokString, s.b[start:s.pos]
			}
			s.pos++
		}
		s.pos = len(s.b)
		return tokString, s.b[start:]
	case 't', 'f', 'n':
		for s.pos < len(s.b) && s.b[s.pos] >= 'a' && s.b[s.pos] <= 'z' {
			s.pos++
		}
		if c == 'n' {
			return tokNull, s.b[start:s.pos]
		}
		return tokBool, s.b[start:s.pos]
	default:
		for s.pos < len(s.b) && strings.IndexByte("+-.0123456789eE", s.b[s.pos]) >= 0 {
			s.pos++
		}
		if s.pos == start { // not JSON after all
			s.pos = len(s.b)
			return tokEnd, ""
		}
		return tokNumber, s.b[start:s.pos]
	}
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
	s := scanner{b: b}
	var stack []byte // the open containers: '{' or '['
	expectKey := false
	depth := 0
	newLine := func() {
		if pretty {
			in := indent + 2*depth
			d.newLine(in, in+2)
		}
	}
	if len(b) > 4096 { // a big body: size the document once, not by doubling
		tokens, breaks := countTokens(b)
		d.spans = slices.Grow(d.spans, tokens)
		d.lines = slices.Grow(d.lines, breaks)
	}
	if pretty {
		newLine()
	}
	for {
		kind, tok := s.next()
		switch kind {
		case tokEnd:
			return
		case tokOpen:
			d.put(inkPunct, tok)
			if c := s.peek(); c == '}' || c == ']' { // empty: {} or []
				_, closing := s.next()
				d.put(inkPunct, closing)
				continue
			}
			stack = append(stack, tok[0])
			expectKey = tok[0] == '{'
			depth++
			newLine()
		case tokClose:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			depth = max(0, depth-1)
			newLine()
			d.put(inkPunct, tok)
		case tokComma:
			d.put(inkPunct, ",")
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			newLine()
		case tokColon:
			if pretty {
				d.put(inkPunct, ": ")
			} else {
				d.put(inkPunct, ":")
			}
			expectKey = false
		case tokString:
			if expectKey {
				d.put(inkKey, tok)
			} else {
				d.put(inkString, tok)
			}
		case tokNumber:
			d.put(inkNumber, tok)
		case tokBool:
			d.put(inkBool, tok)
		case tokNull:
			d.put(inkNull, tok)
		}
	}
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
