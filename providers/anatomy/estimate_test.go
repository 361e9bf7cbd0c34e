package anatomy

import "testing"

// The estimate's rule, on strings whose count is plain: a quarter token
// per ASCII character (rounded up over the part), one per other; the JSON
// around the strings counts nothing.
func TestEstimateRule(t *testing.T) {
	for _, tc := range []struct {
		part string
		want int
	}{
		{`"abcd"`, 1}, {`"abcdefgh"`, 2}, {`"abcde"`, 2}, {`"日本語"`, 3}, {`"a\nb\u00e9\u65e5"`, 1 + 2},
		{`{"key": "value"}`, 2}, {`{"n": 12345, "b": true}`, 1}, {`"\"\\"`, 1}, {``, 0}, {`[1, 2, 3]`, 0},
	} {
		if got := estimate([]byte(tc.part)); got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.part, got, tc.want)
		}
	}
}
