package cell

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line breaking for the panes. Words (runs of narrow characters, such as
// hello.py or --provider) are never split unless one is wider than the
// line; a wide (CJK) character may end a line anywhere, except that the
// Japanese line-breaking rules (kinsoku) hold: closing punctuation such as
// 。、」 never starts a line and an opening bracket such as 「 never ends
// one. Spaces inside a line are kept as they are (indented JSON stays
// indented); a space where the line breaks is dropped.

// noStart are characters that must not begin a line.
const noStart = "。、，．・：；？！）」』】〕〉》”’ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥々〜゛゜"

// noEnd are characters that must not end a line.
const noEnd = "「『（【〔〈《“‘"

// asciiNoStart are ASCII characters that must not begin a line either: after
// a wide character ("保存)") they are a word of their own, and would
// otherwise be free to wrap alone.
const asciiNoStart = ")]},.:;!?"

// Wrap breaks one paragraph (no newlines) into lines of at most w cells.
func Wrap(para string, w int) []string {
	toks := wrapTokens(para)
	var out []string
	var line strings.Builder
	lw := 0
	flush := func() {
		out = append(out, strings.TrimRight(line.String(), " "))
		line.Reset()
		lw = 0
	}
	for _, t := range toks {
		tw := Width(t)
		space := strings.TrimLeft(t, " ") == ""
		switch {
		case lw+tw <= w:
			if space && lw == 0 && len(out) > 0 {
				continue // a wrapped line does not start with the space it broke at
			}
			line.WriteString(t)
			lw += tw
		case space:
			if lw > 0 {
				flush()
			}
		case tw <= w:
			flush()
			line.WriteString(t)
			lw = tw
		default: // wider than a line: cut it by cells
			plain := strings.IndexByte(t, 0x1b) < 0
			for t != "" {
				room := w - lw
				if room <= 0 {
					flush()
					room = w
				}
				head := Truncate(within(t, room, plain), room, "")
				if head == "" { // a wide rune on a 1-cell line
					_, n := utf8.DecodeRuneInString(t)
					head = t[:n]
				}
				line.WriteString(head)
				lw += Width(head)
				t = t[len(head):]
			}
		}
	}
	if lw > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// within is as much of t as a line of room cells can need: a prefix of a
// plain word (no escape sequence), so cutting a huge word by lines reads
// each byte a few times, not once per line. A character takes at least one
// byte per cell; the slack keeps combining marks with their letter.
func within(t string, room int, plain bool) string {
	n := 8*room + 64
	if !plain || n >= len(t) {
		return t
	}
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n]
}

// wrapTokens splits a paragraph into the pieces a line may break between:
// runs of spaces, narrow words, and single wide characters, with kinsoku
// characters glued to their neighbour.
func wrapTokens(s string) []string {
	var tk tokens
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ':
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			tk.toks = append(tk.toks, s[i:j])
			tk.glueNext = false
			i = j
		case wide(r) || kinsoku(r):
			tk.add(s[i : i+n])
			i += n
		default:
			j := i + wordEnd(s[i:])
			tk.add(s[i:j])
			i = j
		}
	}
	return tk.toks
}

// tokens collects wrapTokens' pieces.
type tokens struct {
	toks     []string
	glueNext bool // the last token must not end a line
}

// add appends a word, glued to the last token where kinsoku says so.
func (tk *tokens) add(t string) {
	r, _ := utf8.DecodeRuneInString(t)
	n := len(tk.toks)
	switch {
	case n > 0 && tk.glueNext:
		tk.toks[n-1] += t
	case n > 0 && (strings.ContainsRune(noStart, r) || strings.ContainsRune(asciiNoStart, r)) && strings.TrimLeft(tk.toks[n-1], " ") != "":
		tk.toks[n-1] += t
	default:
		tk.toks = append(tk.toks, t)
	}
	last, _ := utf8.DecodeLastRuneInString(tk.toks[len(tk.toks)-1])
	tk.glueNext = strings.ContainsRune(noEnd, last)
}

// wordEnd is the length of the narrow word s starts with: up to a space,
// a wide character or a kinsoku character.
func wordEnd(s string) int {
	j := 0
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r == ' ' || wide(r) || kinsoku(r) {
			break
		}
		j += n
	}
	return j
}

// kinsoku reports whether r is a non-ASCII character with a line-breaking
// rule. ASCII punctuation stays inside its word: ../etc, farewell(name).
func kinsoku(r rune) bool {
	return r > unicode.MaxASCII && (strings.ContainsRune(noStart, r) || strings.ContainsRune(noEnd, r))
}

// wide reports whether r takes two cells (CJK and the like).
func wide(r rune) bool {
	return r >= 0x1100 && Width(string(r)) == 2 || unicode.Is(unicode.Han, r)
}
