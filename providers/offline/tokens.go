package offline

import "unicode"

// TokenPieces cuts text into token-sized pieces the way a BPE tokenizer
// roughly does: a word with its leading space (" weather"), a long word in
// pieces of at most 8 letters, up to 3 punctuation marks together (`{"`,
// `":`, ` "` with the space that leads them), Japanese two kana or kanji at
// a time ("これ", "は日"), each newline on its own. The pieces concatenate
// back to text.
func TokenPieces(text string) []string {
	const maxLetters, maxMarks, maxKana = 8, 3, 2
	var out []string
	var cur []rune
	kind, n := 0, 0 // what cur holds (0 nothing or a lone space, 1 a word, 2 marks, 3 kana or kanji) and how many
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
		cur, kind, n = cur[:0], 0, 0
	}
	for _, c := range text {
		switch {
		case c == '\n':
			flush()
			out = append(out, "\n")
		case c == ' ':
			flush()
			cur = append(cur, c)
		case unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Han):
			// Japanese has no spaces; a tokenizer spends a token on
			// every one or two kana or kanji.
			if kind != 3 && kind != 0 || kind == 3 && n == maxKana {
				flush()
			}
			cur, kind, n = append(cur, c), 3, n+1
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if kind != 1 && kind != 0 || kind == 1 && n == maxLetters {
				flush()
			}
			cur, kind, n = append(cur, c), 1, n+1
		default:
			if kind != 2 && kind != 0 || kind == 2 && n == maxMarks {
				flush()
			}
			cur, kind, n = append(cur, c), 2, n+1
		}
	}
	flush()
	return out
}
