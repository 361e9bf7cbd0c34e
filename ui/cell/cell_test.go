package cell

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		tail string
		want string
	}{
		{"abc", 5, "", "abc  "},
		{"abcdef", 4, "", "abcd"},
		{"abcdef", 4, "…", "abc…"},
		{"日本語", 5, "", "日本 "},
		{"\x1b[1mbold\x1b[0m", 6, "", "\x1b[1mbold\x1b[0m  "},
		{"x", 0, "", ""},
	} {
		if got := Fit(tc.s, tc.w, tc.tail); got != tc.want {
			t.Errorf("Fit(%q, %d, %q) = %q, want %q", tc.s, tc.w, tc.tail, got, tc.want)
		}
	}
}

// Every character the short path knows has the width x/ansi gives it, and
// stands alone as a grapheme beside any other it knows: so a line of them
// measures as the sum of their widths.
func TestKnownRunesMeasureAsAnsiDoes(t *testing.T) {
	neighbours := []string{"a", "─", "日", "ｱ", "…"}
	n := 0
	for r := rune(0x80); r <= 0x10ffff; r++ {
		w := runeWidth(r)
		if w == 0 {
			continue
		}
		n++
		s := string(r)
		if got := ansi.StringWidth(s); got != w {
			t.Errorf("%U: width %d here, %d in x/ansi", r, w, got)
		}
		for _, x := range neighbours {
			for _, pair := range []string{s + x, x + s} {
				if got, want := ansi.StringWidth(pair), w+ansi.StringWidth(x); got != want {
					t.Errorf("%q: width %d in x/ansi, %d here", pair, got, want)
				}
			}
			if c, _ := ansi.FirstGraphemeCluster(s+x, ansi.GraphemeWidth); c != s {
				t.Errorf("%U joins %q into one grapheme", r, x)
			}
			if c, _ := ansi.FirstGraphemeCluster(x+s, ansi.GraphemeWidth); c != x {
				t.Errorf("%q joins %U into one grapheme", x, r)
			}
		}
	}
	if n < 20000 {
		t.Errorf("only %d characters known", n)
	}
}

// The short path and x/ansi give the same bytes for every width, cut and
// tail, on lines of known characters and styles, and on lines with
// anything else (which take x/ansi's path).
func TestShortPathIsAnsi(t *testing.T) {
	pieces := []string{
		"a", "Z", " ", "~", "{", "─", "│", "╭", "…", "·", "→", "▶", "●", "日本", "語", "。", "ｶ", "Ａ", "é",
		"\x1b[1m", "\x1b[38;5;141m", "\x1b[48;2;1;2;3m", "\x1b[0m", "\x1b[m", "\x1b[?25l",
		// Not on the short path:
		"\t", "e\u0301", "👍", "\u2764\ufe0f", "\x1b]8;;http://x\x1b\\", "\x1b(B", "\x00", "\uff9e", "\xff", "\x1b[", "\u200d",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		plain := n%2 == 0 // half the lines hold only what the short path knows
		for k := rng.IntN(24); k >= 0; k-- {
			p := pieces[rng.IntN(len(pieces))]
			if plain {
				p = pieces[rng.IntN(25)]
			}
			b.WriteString(p)
		}
		s := b.String()
		sw := ansi.StringWidth(s)
		if got := Width(s); got != sw {
			t.Fatalf("Width(%q) = %d, x/ansi %d", s, got, sw)
		}
		for w := -1; w <= sw+2; w++ {
			for _, tail := range []string{"", "…", "..", "\x1b[0m…"} {
				if got, want := Truncate(s, w, tail), ansi.Truncate(s, w, tail); got != want {
					t.Fatalf("Truncate(%q, %d, %q) = %q, x/ansi %q", s, w, tail, got, want)
				}
			}
			if w >= 0 {
				want := ansi.Truncate(s, w, "…")
				if ww := ansi.StringWidth(want); ww < w {
					want += strings.Repeat(" ", w-ww)
				}
				if got := Fit(s, w, "…"); w > 0 && got != want {
					t.Fatalf("Fit(%q, %d) = %q, want %q", s, w, got, want)
				}
			}
			for left := -1; left <= w; left++ {
				if got, want := Cut(s, left, w), ansi.Cut(s, left, w); got != want {
					t.Fatalf("Cut(%q, %d, %d) = %q, x/ansi %q", s, left, w, got, want)
				}
			}
		}
	}
}
