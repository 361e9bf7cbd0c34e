package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Span is a byte range [Start, End) of a body.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is the span's length in bytes.
func (s Span) Len() int { return s.End - s.Start }

// SyntaxError says where a body stops being JSON.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("the body is not valid JSON at byte %d: %s", e.Offset, e.What)
}

// maxDepth bounds how deep a body may nest, as encoding/json's does.
const maxDepth = 10000

// Doc is a JSON body read once, in one pass, into a tape of its values:
// every value keeps its place in the body, and walking down into one never
// reads its bytes again, so a 1 MB request is cut in a few milliseconds.
type Doc struct {
	b     []byte
	nodes []node
}

// node is one value of the tape. Positions are int32: a body over 2 GiB is
// refused.
type node struct {
	start, end  int32
	key, keyEnd int32 // the member's key (its quotes included); -1 in an array or at the top
	first, next int32 // first child, next sibling; -1 for none
	kind        byte  // see Value.Kind
	keyEscapes  bool  // the key has a backslash escape
}

// Parse reads a whole body that must be one JSON value, with white space
// around it allowed. The grammar is checked as it goes (every string
// closed, every comma and colon in place); the escapes inside strings are
// checked when a string is read.
func Parse(b []byte) (*Doc, error) {
	if len(b) > math.MaxInt32 {
		return nil, &SyntaxError{0, "the body is over 2 GiB"}
	}
	d := &Doc{b: b, nodes: make([]node, 0, 16+len(b)/48)}
	start := skipSpace(b, 0)
	_, end, err := d.parse(start, 0)
	if err != nil {
		return nil, err
	}
	if rest := skipSpace(b, end); rest != len(b) {
		return nil, &SyntaxError{rest, "more text after the JSON value"}
	}
	return d, nil
}

// Root is the body's value.
func (d *Doc) Root() Value { return Value{d, 0} }

// parse reads the value at i onto the tape and returns its node and end.
func (d *Doc) parse(i, depth int) (int32, int, error) {
	if depth > maxDepth {
		return 0, i, &SyntaxError{i, "nested too deep"}
	}
	if i >= len(d.b) {
		return 0, i, &SyntaxError{i, "the body ended where a value was expected"}
	}
	idx := int32(len(d.nodes))
	d.nodes = append(d.nodes, node{start: int32(i), key: -1, keyEnd: -1, first: -1, next: -1})
	var end int
	var err error
	kind := d.b[i]
	switch {
	case kind == '{':
		end, err = d.object(idx, i, depth)
	case kind == '[':
		end, err = d.array(idx, i, depth)
	case kind == '"':
		end, err = stringEnd(d.b, i)
	case kind == 't':
		end, err = literalEnd(d.b, i, "true")
	case kind == 'f':
		end, err = literalEnd(d.b, i, "false")
	case kind == 'n':
		end, err = literalEnd(d.b, i, "null")
	case kind == '-' || (kind >= '0' && kind <= '9'):
		kind, end = '0', numberEnd(d.b, i)
	default:
		return 0, i, &SyntaxError{i, fmt.Sprintf("a value was expected, found %q", d.b[i])}
	}
	if err != nil {
		return 0, end, err
	}
	d.nodes[idx].end, d.nodes[idx].kind = int32(end), kind
	return idx, end, nil
}

// object reads the members of the object opening at i.
func (d *Doc) object(idx int32, i, depth int) (int, error) {
	b := d.b
	j := skipSpace(b, i+1)
	if j < len(b) && b[j] == '}' {
		return j + 1, nil
	}
	prev := int32(-1)
	for {
		if j >= len(b) || b[j] != '"' {
			return j, &SyntaxError{j, "a member's key was expected"}
		}
		keyEnd, err := stringEnd(b, j)
		if err != nil {
			return keyEnd, err
		}
		colon := skipSpace(b, keyEnd)
		if colon >= len(b) || b[colon] != ':' {
			return colon, &SyntaxError{colon, "':' was expected after a key"}
		}
		child, end, err := d.parse(skipSpace(b, colon+1), depth+1)
		if err != nil {
			return end, err
		}
		n := &d.nodes[child]
		n.key, n.keyEnd = int32(j), int32(keyEnd)
		n.keyEscapes = bytes.IndexByte(b[j:keyEnd], '\\') >= 0
		d.link(idx, prev, child)
		prev = child
		j = skipSpace(b, end)
		switch {
		case j < len(b) && b[j] == ',':
			j = skipSpace(b, j+1)
		case j < len(b) && b[j] == '}':
			return j + 1, nil
		default:
			return j, &SyntaxError{j, "',' or '}' was expected"}
		}
	}
}

// array reads the elements of the array opening at i.
func (d *Doc) array(idx int32, i, depth int) (int, error) {
	b := d.b
	j := skipSpace(b, i+1)
	if j < len(b) && b[j] == ']' {
		return j + 1, nil
	}
	prev := int32(-1)
	for {
		child, end, err := d.parse(j, depth+1)
		if err != nil {
			return end, err
		}
		d.link(idx, prev, child)
		prev = child
		j = skipSpace(b, end)
		switch {
		case j < len(b) && b[j] == ',':
			j = skipSpace(b, j+1)
		case j < len(b) && b[j] == ']':
			return j + 1, nil
		default:
			return j, &SyntaxError{j, "',' or ']' was expected"}
		}
	}
}

func (d *Doc) link(parent, prev, child int32) {
	if prev < 0 {
		d.nodes[parent].first = child
	} else {
		d.nodes[prev].next = child
	}
}

// Value is one value of a parsed body. The zero Value is absent: every
// method returns nothing for it.
type Value struct {
	d *Doc
	i int32
}

// Member is one member of an object: its key, where the member starts (the
// key's opening quote) and its value.
type Member struct {
	Key   string
	Start int
	Value Value
}

// Span is the whole member, key and value.
func (m Member) Span() Span { return Span{m.Start, m.Value.Span().End} }

func (v Value) n() *node { return &v.d.nodes[v.i] }

// Valid says the value is present.
func (v Value) Valid() bool { return v.d != nil }

// Span is where the value lies in the body.
func (v Value) Span() Span {
	if v.d == nil {
		return Span{}
	}
	n := v.n()
	return Span{int(n.start), int(n.end)}
}

// Kind is the JSON kind of the value: '{', '[', '"', 'n' (null), 't' or
// 'f' (a boolean), '0' (a number); 0 when absent.
func (v Value) Kind() byte {
	if v.d == nil {
		return 0
	}
	return v.n().kind
}

// children are the members of an object or the elements of an array.
func (v Value) children(yield func(Value) bool) {
	if v.d == nil {
		return
	}
	for c := v.n().first; c >= 0; c = v.d.nodes[c].next {
		if !yield(Value{v.d, c}) {
			return
		}
	}
}

// Members lists the members of an object, in the body's order.
func (v Value) Members() []Member {
	if v.Kind() != '{' {
		return nil
	}
	var out []Member
	for c := range v.children {
		n := c.n()
		key, _ := unquote(v.d.b[n.key:n.keyEnd])
		out = append(out, Member{Key: key, Start: int(n.key), Value: c})
	}
	return out
}

// Elems lists the elements of an array; a single object stands for an
// array of one (the Gemini API takes "contents" and "parts" either way).
func (v Value) Elems() []Value {
	switch v.Kind() {
	case '{':
		return []Value{v}
	case '[':
	default:
		return nil
	}
	var out []Value
	for c := range v.children {
		out = append(out, c)
	}
	return out
}

// keyIs says the member c is named k.
func (v Value) keyIs(c Value, k string) bool {
	n := c.n()
	if n.key < 0 {
		return false
	}
	raw := v.d.b[n.key+1 : n.keyEnd-1]
	if !n.keyEscapes {
		return string(raw) == k
	}
	s, err := unquote(v.d.b[n.key:n.keyEnd])
	return err == nil && s == k
}

// Get is the member named by the first of keys present (null counts as
// absent): the API accepts both "systemInstruction" and
// "system_instruction", for one.
func (v Value) Get(keys ...string) (Value, bool) {
	if v.Kind() != '{' {
		return Value{}, false
	}
	for _, k := range keys {
		for c := range v.children {
			if v.keyIs(c, k) && c.Kind() != 'n' {
				return c, true
			}
		}
	}
	return Value{}, false
}

// Has says one of keys is present and not null.
func (v Value) Has(keys ...string) bool {
	_, ok := v.Get(keys...)
	return ok
}

// Str is the value of a string ("" for anything else).
func (v Value) Str() string {
	if v.Kind() != '"' {
		return ""
	}
	n := v.n()
	q := v.d.b[n.start:n.end]
	s, err := unquote(q)
	if err != nil {
		_ = json.Unmarshal(q, &s) // what encoding/json makes of it, or ""
	}
	return s
}

// String is the string value of the first of keys ("" when absent or not
// a string).
func (v Value) String(keys ...string) string {
	c, _ := v.Get(keys...)
	return c.Str()
}

// Bool is the boolean value of the first of keys (false when absent).
func (v Value) Bool(keys ...string) bool {
	c, _ := v.Get(keys...)
	return c.Kind() == 't'
}

// Int is the integer value of the first of keys (0 when absent or not a
// whole number).
func (v Value) Int(keys ...string) int {
	c, ok := v.Get(keys...)
	if !ok || c.Kind() != '0' {
		return 0
	}
	var n int
	if json.Unmarshal(c.Bytes(), &n) != nil {
		return 0
	}
	return n
}

// Bytes are the value as written, shared with the body.
func (v Value) Bytes() []byte {
	if v.d == nil {
		return nil
	}
	s := v.Span()
	return v.d.b[s.Start:s.End]
}

// JSON is a copy of the value as written (nil when absent).
func (v Value) JSON() json.RawMessage {
	if v.d == nil {
		return nil
	}
	return json.RawMessage(bytes.Clone(v.Bytes()))
}

// Raw is a copy of the value of the first of keys, as written (nil when
// absent).
func (v Value) Raw(keys ...string) json.RawMessage {
	c, _ := v.Get(keys...)
	return c.JSON()
}

// Object is the object value of the first of keys.
func (v Value) Object(keys ...string) (Value, bool) {
	c, ok := v.Get(keys...)
	if !ok || c.Kind() != '{' {
		return Value{}, false
	}
	return c, true
}

// Array is the elements of the array value of the first of keys (a single
// object counts as an array of one); a value of another kind is an error.
func (v Value) Array(keys ...string) ([]Value, error) {
	c, ok := v.Get(keys...)
	if !ok {
		return nil, nil
	}
	if k := c.Kind(); k != '[' && k != '{' {
		return nil, &SyntaxError{c.Span().Start, "an array was expected"}
	}
	return c.Elems(), nil
}

// Objects is Array whose every element must be an object.
func (v Value) Objects(keys ...string) ([]Value, error) {
	elems, err := v.Array(keys...)
	for _, e := range elems {
		if e.Kind() != '{' {
			return nil, &SyntaxError{e.Span().Start, "an object was expected"}
		}
	}
	return elems, err
}

// ReadObject parses a body that must be a JSON object.
func ReadObject(b []byte) (Value, error) {
	d, err := Parse(b)
	if err != nil {
		return Value{}, err
	}
	if d.Root().Kind() != '{' {
		return Value{}, &SyntaxError{d.Root().Span().Start, "the body is not a JSON object"}
	}
	return d.Root(), nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func numberEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && isNumberByte(b[j]) {
		j++
	}
	return j
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

func literalEnd(b []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return i, &SyntaxError{i, "a value was expected"}
	}
	return i + len(lit), nil
}

// stringEnd is the end of the string whose opening quote is at i: the
// next quote not escaped (preceded by an even number of backslashes).
func stringEnd(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), &SyntaxError{i, "a string that is never closed"}
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// unquote decodes a JSON string (quotes included), fast when it has no
// escapes. Invalid UTF-8 and lone surrogates become U+FFFD, as
// encoding/json makes them.
func unquote(q []byte) (string, error) {
	q = q[1 : len(q)-1]
	i := bytes.IndexByte(q, '\\')
	if i < 0 {
		return string(q), nil
	}
	out := make([]byte, 0, len(q))
	for i >= 0 {
		out = append(out, q[:i]...)
		n, err := unescapeAt(q[i:], &out)
		if err != nil {
			return "", err
		}
		q = q[i+n:]
		i = bytes.IndexByte(q, '\\')
	}
	return string(append(out, q...)), nil
}

// unescapeAt decodes the escape at the start of q onto out and returns
// its length.
func unescapeAt(q []byte, out *[]byte) (int, error) {
	if len(q) < 2 {
		return 0, errBadEscape
	}
	switch c := q[1]; c {
	case '"', '\\', '/':
		*out = append(*out, c)
	case 'b':
		*out = append(*out, '\b')
	case 'f':
		*out = append(*out, '\f')
	case 'n':
		*out = append(*out, '\n')
	case 'r':
		*out = append(*out, '\r')
	case 't':
		*out = append(*out, '\t')
	case 'u':
		r, n, err := unicodeEscape(q)
		if err != nil {
			return 0, err
		}
		*out = utf8.AppendRune(*out, r)
		return n, nil
	default:
		return 0, errBadEscape
	}
	return 2, nil
}

var errBadEscape = errors.New("an invalid escape in a string")

// unicodeEscape reads \uXXXX, with the low half of a surrogate pair after
// it when it is the high half.
func unicodeEscape(q []byte) (rune, int, error) {
	r, ok := hex4(q)
	if !ok {
		return 0, 0, errBadEscape
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(q[6:]); ok && len(q) >= 12 && q[6] == '\\' {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12, nil
			}
		}
		return utf8.RuneError, 6, nil
	}
	return r, 6, nil
}

// hex4 reads the four hex digits of \uXXXX at the start of q.
func hex4(q []byte) (rune, bool) {
	if len(q) < 6 || q[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range q[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Is says the value is the string want (without reading it into a new
// string: a role compared on every message of a long request).
func (v Value) Is(want string) bool {
	if v.Kind() != '"' {
		return false
	}
	raw := v.Bytes()
	raw = raw[1 : len(raw)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == want
	}
	return v.Str() == want
}

// Role is which of roles the member "role" is, without reading it into a
// new string; "" when it is none of them.
func (v Value) Role(roles ...string) string {
	r, ok := v.Get("role")
	if !ok {
		return ""
	}
	for _, want := range roles {
		if r.Is(want) {
			return want
		}
	}
	return r.Str()
}
