package offline

import "unicode"

// TokenPieces cuts text into token-sized pieces the way a BPE tokenizer
// roughly does: a word with its leading space (" weather"), a long word in
// pieces of at most 8 letters, up to 3 punctuation marks together (`{"`,
// `":`, ` "` with the space that leads them), Japanese two kana or kanji at
// a time ("これ", "は日"), each newline on its own. The pieces concatenate
// back to text.
func TokenPieces(text string) []string {
	var out []string
	var cur []rune
	kind, n := pieceNone, 0 // what cur holds, and how many
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
		cur, kind, n = cur[:0], pieceNone, 0
	}
	for _, c := range text {
		switch c {
		case '\n':
			flush()
			out = append(out, "\n")
		case ' ':
			flush()
			cur = append(cur, c)
		default:
			k := pieceKindOf(c)
			if kind != k && kind != pieceNone || kind == k && n == k.most() {
				flush()
			}
			cur, kind, n = append(cur, c), k, n+1
		}
	}
	flush()
	return out
}

// pieceKind is what a piece of TokenPieces holds.
type pieceKind int

const (
	pieceNone  pieceKind = iota // nothing yet, or a lone space
	pieceWord                   // letters and digits
	pieceMarks                  // punctuation and symbols
	pieceKana                   // kana or kanji
)

// pieceKindOf is the kind of piece c belongs in (not a space or a newline).
func pieceKindOf(c rune) pieceKind {
	switch {
	case unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Han):
		return pieceKana
	case unicode.IsLetter(c) || unicode.IsDigit(c):
		return pieceWord
	}
	return pieceMarks
}

// most is how many runes a piece of kind k holds at most: 8 letters, 3
// marks, 2 kana or kanji (Japanese has no spaces; a tokenizer spends a
// token on every one or two).
func (k pieceKind) most() int {
	switch k {
	case pieceWord:
		return 8
	case pieceMarks:
		return 3
	}
	return 2
}
