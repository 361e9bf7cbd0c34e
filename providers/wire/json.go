package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Span is a byte range [Start, End) of a body.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is the span's length in bytes.
func (s Span) Len() int { return s.End - s.Start }

// Member is one member of a JSON object: its key, where the member starts
// (the key's opening quote) and where its value lies.
type Member struct {
	Key   string
	Start int
	Value Span
}

// Span is the whole member, key and value.
func (m Member) Span() Span { return Span{m.Start, m.Value.End} }

// SyntaxError says where a body stops being JSON.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("the body is not valid JSON at byte %d: %s", e.Offset, e.What)
}

// Document finds the one JSON value a body holds, with white space allowed
// around it. Only its outline is checked (every string closed, brackets
// balanced); Members and Elements check the levels they walk, and a value
// decoded with encoding/json is checked whole.
func Document(b []byte) (Span, error) {
	start := skipSpace(b, 0)
	end, err := valueEnd(b, start)
	if err != nil {
		return Span{}, err
	}
	if rest := skipSpace(b, end); rest != len(b) {
		return Span{}, &SyntaxError{rest, "more text after the JSON value"}
	}
	return Span{start, end}, nil
}

// Members lists the members of the object at v, in the body's order.
func Members(b []byte, v Span) ([]Member, error) {
	if v.Len() < 2 || b[v.Start] != '{' {
		return nil, &SyntaxError{v.Start, "an object was expected"}
	}
	var out []Member
	i := skipSpace(b, v.Start+1)
	if i < v.End && b[i] == '}' {
		return out, nil
	}
	for {
		m, err := memberAt(b, i, v.End)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		i = skipSpace(b, m.Value.End)
		switch {
		case i < v.End && b[i] == ',':
			i = skipSpace(b, i+1)
		case i == v.End-1 && b[i] == '}':
			return out, nil
		default:
			return nil, &SyntaxError{i, "',' or '}' was expected"}
		}
	}
}

// memberAt reads the member whose key starts at i, in an object ending at
// end.
func memberAt(b []byte, i, end int) (Member, error) {
	if i >= end || b[i] != '"' {
		return Member{}, &SyntaxError{i, "a member's key was expected"}
	}
	keyEnd, err := stringEnd(b, i)
	if err != nil {
		return Member{}, err
	}
	key, err := unquote(b[i:keyEnd])
	if err != nil {
		return Member{}, &SyntaxError{i, "a key that is not a valid string"}
	}
	colon := skipSpace(b, keyEnd)
	if colon >= end || b[colon] != ':' {
		return Member{}, &SyntaxError{colon, "':' was expected after the key " + quoted(key)}
	}
	vs := skipSpace(b, colon+1)
	ve, err := valueEnd(b, vs)
	if err != nil {
		return Member{}, err
	}
	return Member{Key: key, Start: i, Value: Span{vs, ve}}, nil
}

// Elements lists the values of the array at v, in order.
func Elements(b []byte, v Span) ([]Span, error) {
	if v.Len() < 2 || b[v.Start] != '[' {
		return nil, &SyntaxError{v.Start, "an array was expected"}
	}
	var out []Span
	i := skipSpace(b, v.Start+1)
	if i < v.End && b[i] == ']' {
		return out, nil
	}
	for {
		e, err := valueEnd(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, Span{i, e})
		i = skipSpace(b, e)
		switch {
		case i < v.End && b[i] == ',':
			i = skipSpace(b, i+1)
		case i == v.End-1 && b[i] == ']':
			return out, nil
		default:
			return nil, &SyntaxError{i, "',' or ']' was expected"}
		}
	}
}

// Lookup is the member of ms named by the first of keys present (the
// Gemini API accepts both "systemInstruction" and "system_instruction").
func Lookup(ms []Member, keys ...string) (Member, bool) {
	for _, k := range keys {
		for _, m := range ms {
			if m.Key == k {
				return m, true
			}
		}
	}
	return Member{}, false
}

// Kind is the JSON kind of the value at v: '{', '[', '"', 'n' (null), 't'
// or 'f' (a boolean), '0' (a number).
func Kind(b []byte, v Span) byte {
	if v.Len() == 0 {
		return 0
	}
	switch c := b[v.Start]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0'
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

// valueEnd is the end of the JSON value starting at i.
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, &SyntaxError{i, "the body ended where a value was expected"}
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{' || c == '[':
		return nestedEnd(b, i)
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) && isNumberByte(b[j]) {
			j++
		}
		return j, nil
	}
	return i, &SyntaxError{i, fmt.Sprintf("a value was expected, found %q", b[i])}
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

// nestedEnd is the end of the object or array opening at i, with its
// brackets balanced and its strings closed.
func nestedEnd(b []byte, i int) (int, error) {
	var stack [64]byte
	open := stack[:0]
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			e, err := stringEnd(b, j)
			if err != nil {
				return e, err
			}
			j = e - 1
		case '{', '[':
			open = append(open, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if len(open) == 0 || open[len(open)-1] != want {
				return j, &SyntaxError{j, fmt.Sprintf("%q closes nothing that is open", c)}
			}
			open = open[:len(open)-1]
			if len(open) == 0 {
				return j + 1, nil
			}
		}
	}
	return len(b), &SyntaxError{i, "an object or array that is never closed"}
}

// unquote decodes a JSON string, fast when it has no escapes.
func unquote(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// String decodes the JSON string at v ("" for anything else).
func String(b []byte, v Span) string {
	if Kind(b, v) != '"' {
		return ""
	}
	s, _ := unquote(b[v.Start:v.End])
	return s
}

func quoted(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// Object is a JSON object of a body, read member by member: the codecs
// walk bodies with it rather than through structs, so that every value
// keeps its place in the body and both spellings of a key (camelCase and
// snake_case, as the Gemini API accepts) are read.
type Object struct {
	b  []byte
	at Span
	ms []Member
}

// ObjectAt reads the object at v.
func ObjectAt(b []byte, v Span) (Object, error) {
	ms, err := Members(b, v)
	if err != nil {
		return Object{}, err
	}
	return Object{b: b, at: v, ms: ms}, nil
}

// Span is where the object lies in the body.
func (o Object) Span() Span { return o.at }

// Members are the object's members in the body's order.
func (o Object) Members() []Member { return o.ms }

// Get is the value of the first of keys present (null counts as absent).
func (o Object) Get(keys ...string) (Span, bool) {
	m, ok := Lookup(o.ms, keys...)
	if !ok || Kind(o.b, m.Value) == 'n' {
		return Span{}, false
	}
	return m.Value, true
}

// Has says one of keys is present and not null.
func (o Object) Has(keys ...string) bool {
	_, ok := o.Get(keys...)
	return ok
}

// String is the string value of the first of keys ("" when absent or not
// a string).
func (o Object) String(keys ...string) string {
	v, ok := o.Get(keys...)
	if !ok {
		return ""
	}
	return String(o.b, v)
}

// Bool is the boolean value of the first of keys (false when absent).
func (o Object) Bool(keys ...string) bool {
	v, ok := o.Get(keys...)
	return ok && Kind(o.b, v) == 't'
}

// Int is the integer value of the first of keys (0 when absent or not a
// whole number).
func (o Object) Int(keys ...string) int {
	v, ok := o.Get(keys...)
	if !ok || Kind(o.b, v) != '0' {
		return 0
	}
	var n int
	if json.Unmarshal(o.b[v.Start:v.End], &n) != nil {
		return 0
	}
	return n
}

// Raw is a copy of the value of the first of keys, as written (nil when
// absent).
func (o Object) Raw(keys ...string) json.RawMessage {
	v, ok := o.Get(keys...)
	if !ok {
		return nil
	}
	return Raw(o.b, v)
}

// Object reads the object value of the first of keys.
func (o Object) Object(keys ...string) (Object, bool) {
	v, ok := o.Get(keys...)
	if !ok || Kind(o.b, v) != '{' {
		return Object{}, false
	}
	obj, err := ObjectAt(o.b, v)
	return obj, err == nil
}

// Array is the elements of the array value of the first of keys; a single
// object stands for an array of one (the Gemini API takes "contents" and
// "parts" either way).
func (o Object) Array(keys ...string) ([]Span, error) {
	v, ok := o.Get(keys...)
	if !ok {
		return nil, nil
	}
	switch Kind(o.b, v) {
	case '[':
		return Elements(o.b, v)
	case '{':
		return []Span{v}, nil
	}
	return nil, &SyntaxError{v.Start, "an array was expected"}
}

// Objects reads each element of the array value of the first of keys as
// an object; an element that is not one is an error.
func (o Object) Objects(keys ...string) ([]Object, error) {
	spans, err := o.Array(keys...)
	if err != nil {
		return nil, err
	}
	out := make([]Object, 0, len(spans))
	for _, s := range spans {
		obj, err := ObjectAt(o.b, s)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}

// Raw is a copy of the value at v, as written.
func Raw(b []byte, v Span) json.RawMessage {
	return json.RawMessage(bytes.Clone(b[v.Start:v.End]))
}

// ReadObject reads a whole document that must be an object.
func ReadObject(b []byte) (Object, error) {
	v, err := Document(b)
	if err != nil {
		return Object{}, err
	}
	if Kind(b, v) != '{' {
		return Object{}, &SyntaxError{v.Start, "the body is not a JSON object"}
	}
	return ObjectAt(b, v)
}

// JSON is a copy of the object as written.
func (o Object) JSON() json.RawMessage { return Raw(o.b, o.at) }

// KindOf is the JSON kind (see Kind) of the first of keys present; 0 when
// none is.
func (o Object) KindOf(keys ...string) byte {
	v, ok := o.Get(keys...)
	if !ok {
		return 0
	}
	return Kind(o.b, v)
}
