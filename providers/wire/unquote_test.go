package wire

import (
	"encoding/json"
	"testing"
)

// unquote reads every string as encoding/json does.
func TestUnquote(t *testing.T) {
	for _, q := range []string{`""`, `"plain"`, `"a\nb\tc\"d\\e\/f\bg\fh\ri"`, `"\u00e9\u65e5\u672c"`, `"\ud83d\ude00 smile"`,
		`"lone \ud83d here"`, `"lone \ude00 low"`, `"\u0041\u0000"`, `"end\\"`, `"日本語 \"quoted\""`} {
		got, err := unquote([]byte(q))
		var want string
		if jerr := json.Unmarshal([]byte(q), &want); jerr != nil {
			t.Fatalf("%s: %v", q, jerr)
		}
		if err != nil || got != want {
			t.Errorf("%s: got %q (%v), want %q", q, got, err, want)
		}
	}
	for _, q := range []string{`"\x"`, `"\u12"`, `"\u12g4"`} {
		if _, err := unquote([]byte(q)); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}
