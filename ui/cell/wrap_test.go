package cell

import (
	"slices"
	"testing"

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
