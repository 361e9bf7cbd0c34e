package providers

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// This file is the Masker: the one place that finds a secret value in
// text, whatever spelling a command, a server or a model gave it. It knows
// the values themselves (the API keys, and every withheld variable whose
// name or value looks secret: SecretValues) and matches them three ways:
//
//   - exactly, in each spelling it precomputes: the value, hex, URL
//     escaping, base64 at its three alignments and in both alphabets
//     (redactor.secrets);
//   - in the text's letters and digits alone, on the text as it is and
//     with up to three levels of escapes decoded (JSON's \n, \" and \uXXXX,
//     C's \xHH, URL's %HH): a separator between every character
//     (sed 's/./&-/g'), base64 or base32 wrapped at 76 columns, hex without
//     offsets (xxd -p, od -An -tx1), \u-escaped keys. The value and its hex,
//     base64 (3 alignments, 2 alphabets) and base32 (5 alignments) spellings
//     are matched there;
//   - in hex dumps with offsets (xxd, hexdump -C, hexdump, od -c, od -x,
//     od -t x1): the dump is decoded back to bytes, the key found in them,
//     and every column that shows one of its bytes (the hex and the
//     printable column) masked.
//
// A match is replaced by RedactedMark from its first to its last byte.

// minFuzzyLen is the fewest letters and digits a spelling must keep for
// the letters-and-digits match: shorter ones would match ordinary text.
const minFuzzyLen = 8

// Masker replaces secret values in text with RedactedMark. The engine uses
// it for everything it records that never crossed the wire (tool results,
// model text, error messages); the session file, the cassette and the trace
// pass every line through one. A Masker with no secrets changes nothing and
// costs nothing.
type Masker struct {
	r *redactor
	// exact are the values as they are (the only match for values too
	// short for the letters-and-digits one).
	exact [][]byte
	// fuzzy are the spellings matched in the letters and digits of a text,
	// found in one pass with the help of first (fuzzyFilter).
	fuzzy [][]byte
	first fuzzyFilter
	// raw are the values themselves, matched in decoded hex dumps.
	raw [][]byte
}

// NewMasker returns a Masker for the given secret values.
func NewMasker(secrets ...string) *Masker {
	m := &Masker{r: newRedactor(secrets)}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		// The value as it is: its span covers the marks around its
		// letters and digits too (farewell(name) whole, not its letters).
		if len(s) >= minSecretLen && !slices.ContainsFunc(m.exact, func(b []byte) bool { return string(b) == s }) {
			m.exact = append(m.exact, []byte(s))
		}
		if len(alnum([]byte(s))) < minFuzzyLen {
			continue
		}
		if !slices.ContainsFunc(m.raw, func(b []byte) bool { return string(b) == s }) {
			m.raw = append(m.raw, []byte(s))
		}
		for _, f := range fuzzySpellings(s) {
			if len(f) >= minFuzzyLen && !slices.ContainsFunc(m.fuzzy, func(b []byte) bool { return bytes.Equal(b, f) }) {
				m.fuzzy = append(m.fuzzy, f)
			}
		}
	}
	// Longest first, so a value that contains another is masked whole.
	slices.SortStableFunc(m.exact, func(a, b []byte) int { return len(b) - len(a) })
	m.first = newFuzzyFilter(m.fuzzy)
	return m
}

// fuzzyFilter finds every spelling in one pass over a text, whatever their
// number: a bit per hash of each spelling's first eight bytes says where
// one may start, and only there are the spellings compared.
type fuzzyFilter struct {
	bits   []uint64            // 1<<16 bits
	starts map[uint64][][]byte // first eight bytes → the spellings that begin so
}

func prefix8(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func hash16(w uint64) uint32 { return uint32((w * 0x9E3779B97F4A7C15) >> 48) }

func newFuzzyFilter(spellings [][]byte) fuzzyFilter {
	f := fuzzyFilter{bits: make([]uint64, 1<<16/64), starts: map[uint64][][]byte{}}
	for _, s := range spellings {
		w := prefix8(s)
		h := hash16(w)
		f.bits[h/64] |= 1 << (h % 64)
		f.starts[w] = append(f.starts[w], s)
	}
	return f
}

// each calls fn with the start and length of every spelling found in p.
func (f *fuzzyFilter) each(p []byte, fn func(start, n int)) {
	for i := 0; i+8 <= len(p); i++ {
		w := prefix8(p[i:])
		h := hash16(w)
		if f.bits[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, s := range f.starts[w] {
			if len(p)-i >= len(s) && string(p[i:i+len(s)]) == string(s) {
				fn(i, len(s))
			}
		}
	}
}

// Empty reports whether the Masker knows no secret.
func (m *Masker) Empty() bool { return m == nil || len(m.r.secrets) == 0 }

// fuzzySpellings are the letters and digits of s's spellings: s itself,
// hex in both cases, base64 at each alignment in both alphabets, and base32
// at each of its five alignments.
func fuzzySpellings(s string) [][]byte {
	b := []byte(s)
	out := [][]byte{alnum(b), []byte(hex.EncodeToString(b)), []byte(strings.ToUpper(hex.EncodeToString(b)))}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for lead := range 3 {
			e := enc.EncodeToString(append(make([]byte, lead), b...))
			skip := []int{0, 2, 3}[lead]
			if (lead+len(b))%3 != 0 {
				e = e[:len(e)-1]
			}
			out = append(out, alnum([]byte(e[skip:])))
		}
	}
	for lead := range 5 {
		e := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(append(make([]byte, lead), b...))
		skip := (lead*8 + 4) / 5 // characters holding a bit of the bytes before
		if (lead+len(b))*8%5 != 0 {
			e = e[:len(e)-1] // the last one also holds bits of the byte after
		}
		out = append(out, []byte(e[skip:]))
	}
	return out
}

func alnum(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if isAlnum(c) {
			out = append(out, c)
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Mask returns s with every secret value replaced by RedactedMark.
func (m *Masker) Mask(s string) string {
	if m.Empty() {
		return s
	}
	out := m.MaskBytes([]byte(s))
	return string(out)
}

// MaskBytes returns b with every secret replaced by RedactedMark; b itself
// when there is none (b is never modified).
func (m *Masker) MaskBytes(b []byte) []byte {
	if m.Empty() || len(b) == 0 {
		return b
	}
	spans := m.find(b)
	if len(spans) == 0 {
		return b
	}
	return replaceSpans(b, spans)
}

// Holds reports whether b holds a secret in any spelling the Masker knows.
func (m *Masker) Holds(b []byte) bool { return !m.Empty() && len(m.find(b)) > 0 }

// MaskJSON masks a JSON document and keeps it valid JSON: when a match ran
// across the document's structure (a key spread over two strings), every
// string in it is masked on its own instead.
func (m *Masker) MaskJSON(b []byte) []byte {
	if m.Empty() || len(b) == 0 {
		return b
	}
	spans := m.find(b)
	if len(spans) == 0 {
		return b
	}
	out := replaceSpans(b, spans)
	if json.Valid(out) {
		return out
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return out // it was not JSON to begin with
	}
	enc, err := json.Marshal(m.maskValue(v))
	if err != nil {
		return out
	}
	return enc
}

func (m *Masker) maskValue(v any) any {
	switch x := v.(type) {
	case string:
		return m.Mask(x)
	case []any:
		for i := range x {
			x[i] = m.maskValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[m.Mask(k)] = m.maskValue(e)
		}
		return out
	}
	return v
}

// span is a range of the input to replace, [start, end).
type span struct{ start, end int }

// maxEscapeLevels is how deep escaping is undone: a tool's output in JSON
// (1), inside a request body kept as a JSON string (2), a model's JSON-mode
// reply inside a response body kept so (3).
const maxEscapeLevels = 3

// find returns the ranges of b that hold a secret, sorted and merged.
func (m *Masker) find(b []byte) []span {
	var spans []span
	for _, s := range m.exact {
		for off := 0; ; {
			i := bytes.Index(b[off:], s)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(s)})
			off += i + len(s)
		}
	}
	if len(m.fuzzy) > 0 {
		v := &view{text: b, identity: true}
		for level := 0; ; level++ {
			spans = append(spans, m.fuzzyMatches(v)...)
			if bytes.Contains(v.text, []byte("0000000")) { // every dump's first offset
				spans = append(spans, m.dumpMatches(v)...)
			}
			if level == maxEscapeLevels || !bytes.ContainsAny(v.text, `\%`) {
				v.free()
				break
			}
			next := unescape(v)
			v.free()
			v = next
		}
	}
	return merge(b, spans)
}

// view is a text derived from the input — the input itself, or the input
// with one more level of escapes decoded — each byte remembering the range
// of the input it stands for.
type view struct {
	text       []byte
	start, end []int32
	identity   bool // the input itself: byte i stands for [i, i+1)
	proj       []byte
	at         []int32
}

var viewPool = sync.Pool{New: func() any { return &view{} }}

func (v *view) free() {
	if !v.identity && cap(v.text) <= 4<<20 {
		viewPool.Put(v)
	}
}

func (v *view) s(i int) int {
	if v.identity {
		return i
	}
	return int(v.start[i])
}

func (v *view) e(i int) int {
	if v.identity {
		return i + 1
	}
	return int(v.end[i])
}

// add appends c, standing for src's bytes from to to (exclusive).
func (v *view) add(c byte, src *view, from, to int) {
	v.text = append(v.text, c)
	v.start = append(v.start, int32(src.s(from)))
	v.end = append(v.end, int32(src.e(to-1)))
}

// cEscapes are the one-letter escapes of JSON and C, and what they stand for.
var cEscapes = [256]byte{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', '"': '"', '/': '/', '\'': '\'', '\\': '\\'}

// unescape decodes one level of escapes in src: JSON's (\n, \", \\,
// \uXXXX), C's \xHH and URL's %HH.
func unescape(src *view) *view {
	v := viewPool.Get().(*view)
	v.text, v.start, v.end, v.identity = v.text[:0], v.start[:0], v.end[:0], false
	b := src.text
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b):
			switch e := b[i+1]; {
			case e == 'u' && i+6 <= len(b) && isHex(b[i+2:i+6]):
				r := unhex(b[i+2 : i+6])
				if r >= 0x80 {
					r = '?'
				}
				v.add(byte(r), src, i, i+6)
				i += 6
			case e == 'x' && i+4 <= len(b) && isHex(b[i+2:i+4]):
				v.add(byte(unhex(b[i+2:i+4])), src, i, i+4)
				i += 4
			case cEscapes[e] != 0:
				v.add(cEscapes[e], src, i, i+2)
				i += 2
			default:
				v.add(c, src, i, i+1)
				i++
			}
		case c == '%' && i+3 <= len(b) && isHex(b[i+1:i+3]):
			v.add(byte(unhex(b[i+1:i+3])), src, i, i+3)
			i += 3
		default:
			v.add(c, src, i, i+1)
			i++
		}
	}
	return v
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func unhex(b []byte) int {
	n := 0
	for _, c := range b {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= int(c - '0')
		case c >= 'a' && c <= 'f':
			n |= int(c-'a') + 10
		default:
			n |= int(c-'A') + 10
		}
	}
	return n
}

// fuzzyMatches finds the spellings in the letters and digits of v.
func (m *Masker) fuzzyMatches(v *view) []span {
	p := viewPool.Get().(*view) // only its projection buffers are used
	defer viewPool.Put(p)
	proj, at := p.proj[:0], p.at[:0]
	for i, c := range v.text {
		if isAlnum(c) {
			proj = append(proj, c)
			at = append(at, int32(i))
		}
	}
	p.proj, p.at = proj, at
	var spans []span
	m.first.each(proj, func(i, n int) {
		spans = append(spans, span{v.s(int(at[i])), v.e(int(at[i+n-1]))})
	})
	return spans
}

// merge sorts spans and joins those that overlap or touch, or that only
// blanks on one line separate (the columns of a dump).
func merge(b []byte, spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(x, y span) int { return x.start - y.start })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start <= last.end || onlyBlanks(b[last.end:s.start]) {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

func onlyBlanks(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func replaceSpans(b []byte, spans []span) []byte {
	out := make([]byte, 0, len(b))
	prev := 0
	for _, s := range spans {
		out = append(out, b[prev:s.start]...)
		out = append(out, RedactedMark...)
		prev = s.end
	}
	return append(out, b[prev:]...)
}

// dumpByte is one byte a dump shows, and where in the view it shows it:
// its column (hex digits or a character), and its place in the printable
// column when the dump has one (-1 otherwise).
type dumpByte struct {
	b           byte
	col, colEnd int
	print       int
}

// dumpMatches decodes the hex dumps in v (xxd, hexdump -C, hexdump, od -c,
// od -x, od -t x1) back to bytes and masks the columns that show a secret.
func (m *Masker) dumpMatches(v *view) []span {
	var shown []dumpByte
	text := v.text
	eachLine(text, func(lineStart, lineEnd int) {
		line := parseDumpLine(text, lineStart, lineEnd)
		if line == nil {
			// The first line of a dump inside a JSON string does not
			// start a line: it starts at its offset of zeros.
			if z := bytes.Index(text[lineStart:lineEnd], []byte("0000000")); z > 0 {
				line = parseDumpLine(text, lineStart+z, lineEnd)
			}
		}
		shown = append(shown, line...)
	})
	if len(shown) == 0 {
		return nil
	}
	flat := make([]byte, len(shown))
	for i, d := range shown {
		flat[i] = d.b
	}
	var spans []span
	for _, s := range m.raw {
		for off := 0; ; {
			i := bytes.Index(flat[off:], s)
			if i < 0 {
				break
			}
			for _, d := range shown[off+i : off+i+len(s)] {
				spans = append(spans, span{v.s(d.col), v.e(d.colEnd - 1)})
				if d.print >= 0 {
					spans = append(spans, span{v.s(d.print), v.e(d.print)})
				}
			}
			off += i + len(s)
		}
	}
	return spans
}

// parseDumpLine reads one line of a hex dump, t[start:end]: an offset (6
// to 8 hex digits, xxd's followed by a colon), then the bytes.
func parseDumpLine(t []byte, start, end int) []dumpByte {
	i := start
	for i < end && i-start < 8 && isHex(t[i:i+1]) {
		i++
	}
	if n := i - start; n < 6 || i >= end {
		return nil
	}
	colon := t[i] == ':'
	if colon {
		i++
	}
	if i >= end || t[i] != ' ' {
		return nil
	}
	if bar := bytes.IndexByte(t[i:end], '|'); bar >= 0 {
		return hexColumns(t, i, i+bar, i+bar+1, false) // hexdump -C: |printable|
	}
	if colon {
		out := hexColumns(t, i, end, -1, false) // xxd: the printable column is the line's tail
		if len(out) > 0 && end-len(out) >= out[len(out)-1].colEnd {
			for k := range out {
				out[k].print = end - len(out) + k
			}
		}
		return out
	}
	if out := odChars(t, i, end); out != nil {
		return out
	}
	return hexColumns(t, i, end, -1, true) // od -x, od -t x1, hexdump
}

// hexColumns reads groups of hex digits from from to to. Pairs are bytes in
// order; with words set (od -x, hexdump), a group of four digits is a
// little-endian 16-bit word. print, when >= 0, is where hexdump -C's
// printable column starts. Without either, two blanks end the hex (xxd).
func hexColumns(t []byte, from, to, print int, words bool) []dumpByte {
	var out []dumpByte
	for i := from; i < to; {
		if t[i] == ' ' {
			if print < 0 && !words && i+1 < to && t[i+1] == ' ' && len(out) > 0 {
				break // xxd: two blanks end the hex
			}
			i++
			continue
		}
		j := hexRun(t, i, to)
		if j < 0 {
			break // not a dump column
		}
		out = appendGroup(out, t, i, j, words)
		i = j
	}
	if print >= 0 {
		printColumn(out, t, print)
	}
	return out
}

// hexRun is the end of the group of hex digits starting at i (before to),
// or -1 when it is no dump column: empty, an odd count of digits, or
// followed by something other than a blank.
func hexRun(t []byte, i, to int) int {
	j := i
	for j < to && isHex(t[j:j+1]) {
		j++
	}
	if j == i || j < to && t[j] != ' ' || (j-i)%2 != 0 {
		return -1
	}
	return j
}

// appendGroup appends the bytes of the hex group t[i:j]: pairs in order, or
// with words a four-digit group as a little-endian 16-bit word.
func appendGroup(out []dumpByte, t []byte, i, j int, words bool) []dumpByte {
	if words && j-i == 4 {
		return append(out,
			dumpByte{b: byte(unhex(t[i+2 : i+4])), col: i + 2, colEnd: i + 4, print: -1},
			dumpByte{b: byte(unhex(t[i : i+2])), col: i, colEnd: i + 2, print: -1})
	}
	for k := i; k < j; k += 2 {
		out = append(out, dumpByte{b: byte(unhex(t[k : k+2])), col: k, colEnd: k + 2, print: -1})
	}
	return out
}

// printColumn gives each byte its place in hexdump -C's printable column,
// which starts at print and ends at its bar.
func printColumn(out []dumpByte, t []byte, print int) {
	for k := range out {
		if p := print + k; p < len(t) && t[p] != '|' && t[p] != '\n' {
			out[k].print = p
		}
	}
}

// odEscapes are od -c's escapes and the bytes they stand for.
var odEscapes = map[byte]byte{'0': 0, 'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}

// odChars reads od -c's columns, four characters each: one byte shown as
// itself, as a C escape (\n, \0) or as three octal digits.
func odChars(t []byte, from, to int) []dumpByte {
	if (to-from)%4 != 0 || to == from {
		return nil
	}
	var out []dumpByte
	for i := from; i < to; i += 4 {
		f := t[i : i+4]
		k := 0
		for k < 3 && f[k] == ' ' {
			k++
		}
		b, ok := odByte(f[k:])
		if !ok {
			return nil
		}
		out = append(out, dumpByte{b: b, col: i + k, colEnd: i + 4, print: -1})
	}
	return out
}

// odByte is the byte one od -c column shows (its blanks trimmed); false
// when it is no od -c column.
func odByte(tok []byte) (byte, bool) {
	switch {
	case len(tok) == 1:
		return tok[0], true
	case len(tok) == 2 && tok[0] == '\\':
		c, ok := odEscapes[tok[1]]
		return c, ok
	case len(tok) == 2 && tok[0] == '*' && tok[1] == '*':
		return 0x80, true // the rest of a multibyte character
	case len(tok) == 3 && isOctal(tok[0], '3') && isOctal(tok[1], '7') && isOctal(tok[2], '7'):
		return (tok[0]-'0')<<6 | (tok[1]-'0')<<3 | (tok[2] - '0'), true
	}
	return 0, false
}

// isOctal says c is an octal digit no greater than top.
func isOctal(c, top byte) bool { return c >= '0' && c <= top }

// eachLine calls fn with the start and end (before its newline) of each
// line of b.
func eachLine(b []byte, fn func(start, end int)) {
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		fn(start, end)
		start = end + 1
	}
}
