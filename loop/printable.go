package loop

import (
	"strings"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/tools"
)

// Printable makes text from a model, a file, a command or a server safe to
// show on a terminal, and shows what is really there: control characters
// other than newline and tab (C0 and DEL as \x1b, C1 as \u009b), bytes that
// are not UTF-8 (\xff) and the bidirectional controls that could reorder a
// line on screen (U+202A–U+202E, U+2066–U+2069, as \u202e) are written as
// visible escapes, so nothing can retitle the window, write the clipboard,
// clear the screen or disguise a line. It is the one terminal sanitiser of
// glassbox: the trace, the headless front end and every pane of the glass
// box use it. Clean text is returned as it is, without copying.
func Printable(s string) string {
	if printable(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		case r >= 0x80 && r <= 0x9f, tools.IsBidiControl(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// printable reports whether s needs no escaping: the fast path, a byte scan
// for ASCII text.
func printable(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if ascii {
		return true
	}
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f || tools.IsBidiControl(r) {
			return false
		}
	}
	return true
}
