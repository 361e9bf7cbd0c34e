package cell

import "testing"

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
