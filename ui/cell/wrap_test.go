package cell

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// An ASCII closing bracket or stop right after a wide character is glued to
// it, as 」 and 。 are: a Japanese sentence that ends in "(…保存)" never
// leaves the ")" alone at the start of a line.
func TestWrapKeepsASCIICloserWithWideCharacter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want []string
	}{
		{"(セッションと一緒に保存)", 23, []string{"(セッションと一緒に保", "存)"}},
		{"ファイルです.", 12, []string{"ファイルで", "す."}},
		{"see (a) and (b)", 8, []string{"see (a)", "and (b)"}},
	} {
		got := Wrap(tc.in, tc.w)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		for _, ln := range got {
			if ansi.StringWidth(ln) > tc.w {
				t.Errorf("line %q is wider than %d", ln, tc.w)
			}
		}
	}
}

// A word far wider than a line is cut by lines the same way, whatever its
// characters: narrow, wide, with combining marks.
func TestWrapHugeWord(t *testing.T) {
	for _, word := range []string{
		strings.Repeat("A", 5000),
		strings.Repeat("日本", 2000),
		strings.Repeat("e\u0301", 3000),
		strings.Repeat("aé日", 1500),
	} {
		for _, w := range []int{1, 2, 7, 36, 80} {
			got := Wrap(word, w)
			if strings.Join(got, "") != word {
				t.Fatalf("w=%d: the lines do not make the word again", w)
			}
			for i, ln := range got[:len(got)-1] {
				if lw := Width(ln); (lw > w && utf8.RuneCountInString(ln) > 1) || lw < w-1 {
					t.Fatalf("w=%d: line %d is %d cells wide", w, i, lw)
				}
			}
		}
	}
}

// BenchmarkWrapHugeWord: a 200,000-character word (a model's answer with
// no space in it) cut into 36-cell lines. Cutting it read the rest of the
// word once per line (about 20 s here); it now reads a line's worth.
func BenchmarkWrapHugeWord(b *testing.B) {
	word := strings.Repeat("A", 200000)
	b.ReportAllocs()
	for b.Loop() {
		Wrap(word, 36)
	}
}
