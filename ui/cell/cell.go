// Package cell measures terminal text in cells: the one place that cuts or
// pads a line to an exact width, for every pane, dialog, strip and diagram
// of the glass box.
//
// Measuring is most of what composing a frame costs, so the common lines
// (ASCII, box drawing, punctuation, arrows, Japanese, styled with CSI
// sequences) take a short path that adds up known widths; anything else
// goes through x/ansi, which segments graphemes. Both give the same
// result, byte for byte: the short path only takes text whose every
// character stands alone as a grapheme of a width x/ansi agrees with
// (cell_test.go checks each one).
package cell

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Fit truncates or pads s to exactly w cells. A cut line ends in tail
// ("…", or "" for a hard cut) within the w cells. Escape sequences (styles)
// take no cells.
func Fit(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	sw := Width(s)
	if sw > w {
		s = Truncate(s, w, tail)
		sw = Width(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// Width is the cells s takes on screen: ansi.StringWidth(s).
func Width(s string) int {
	if w, ok := plainWidth(s); ok {
		return w
	}
	return ansi.StringWidth(s)
}

// Truncate cuts s to at most w cells, ending in tail when it cuts:
// ansi.Truncate(s, w, tail). Escape sequences are all kept.
func Truncate(s string, w int, tail string) string {
	sw, ok := plainWidth(s)
	tw, tailOK := plainWidth(tail)
	if !ok || !tailOK {
		return ansi.Truncate(s, w, tail)
	}
	if sw <= w {
		return s
	}
	w -= tw
	if w < 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s) + len(tail))
	cur, cutting := 0, false
	for i := 0; i < len(s); {
		n, cw := next(s[i:])
		switch {
		case cw == 0: // an escape sequence: kept, styles stay balanced
			b.WriteString(s[i : i+n])
		case cutting:
		case cur+cw > w:
			cutting = true
			b.WriteString(tail)
		default:
			b.WriteString(s[i : i+n])
		}
		cur += cw
		i += n
	}
	return b.String()
}

// Cut is the cells [left, right) of s, with the escape sequences before
// them: ansi.Cut(s, left, right). A wide character across left is kept.
func Cut(s string, left, right int) string {
	if _, ok := plainWidth(s); !ok {
		return ansi.Cut(s, left, right)
	}
	if right <= left {
		return ""
	}
	s = Truncate(s, right, "")
	if left <= 0 {
		return s
	}
	var b strings.Builder
	cur := 0
	for i := 0; i < len(s); {
		n, cw := next(s[i:])
		cur += cw
		switch {
		case cur > left:
			b.WriteString(s[i:])
			return b.String()
		case cw == 0:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plainWidth is the width of s when every piece of it is one the short
// path knows (printable ASCII, a character of known width, a CSI escape
// sequence); ok is false otherwise.
func plainWidth(s string) (w int, ok bool) {
	for i := 0; i < len(s); {
		n, cw := next(s[i:])
		if n == 0 {
			return 0, false
		}
		w += cw
		i += n
	}
	return w, true
}

// next is the first piece of s: its length in bytes and its width in
// cells (0 for an escape sequence); n is 0 when the piece is not one the
// short path knows.
func next(s string) (n, w int) {
	c := s[0]
	switch {
	case c >= 0x20 && c < 0x7f:
		return 1, 1
	case c == 0x1b:
		return csiLen(s), 0
	case c >= 0x80:
		r, size := utf8.DecodeRuneInString(s)
		if w := runeWidth(r); w > 0 {
			return size, w
		}
	}
	return 0, 0
}

// csiLen is the length of the CSI escape sequence s starts with (ESC [,
// parameter bytes, intermediate bytes, a final byte), or 0.
func csiLen(s string) int {
	if len(s) < 3 || s[1] != '[' {
		return 0
	}
	i := 2
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		return i + 1
	}
	return 0
}

// runeWidth is r's width when r is a character the short path knows: one
// that is a grapheme on its own next to any other it knows (no combining
// mark, joiner or variation selector) and whose width x/ansi gives as
// here. 0: not one of them.
func runeWidth(r rune) int {
	for _, k := range knownRunes {
		if r >= k.lo && r <= k.hi {
			return k.w
		}
	}
	return 0
}

// knownRunes are the characters of runeWidth, box drawing first (every
// frame is full of it). A table, never written to.
var knownRunes = [...]struct {
	lo, hi rune
	w      int
}{
	{0x2500, 0x25fc, 1}, {0x25ff, 0x25ff, 1}, // box drawing, blocks, shapes (not ◽◾)
	{0x2010, 0x2027, 1}, {0x2030, 0x205e, 1}, // dashes, quotes, bullets, …, ‰ ※ ‼
	{0x2190, 0x21ff, 1},              // arrows
	{0xa0, 0xac, 1}, {0xae, 0xff, 1}, // Latin-1, not the soft hyphen
	{0x3041, 0x3096, 2}, {0x309b, 0x30ff, 2}, // kana, not the combining sound marks
	{0x4e00, 0x9fff, 2},                      // CJK ideographs
	{0x3000, 0x3029, 2}, {0x3030, 0x303e, 2}, // CJK punctuation, not the tone marks
	{0xff01, 0xff60, 2},                      // full-width forms
	{0xff61, 0xff9d, 1}, {0xffa0, 0xffdc, 1}, // half-width forms, not the sound marks
}
