package shell

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/tools"
)

// Shown is a part of a command line as a decision's reason shows it:
// on one line, at most 120 bytes, with control and bidirectional characters
// written as escapes.
func Shown(s string) string {
	s = strings.TrimSpace(unmarked(s))
	cut := false
	if len(s) > 120 {
		n := 120
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	var b strings.Builder
	for _, r := range tools.EscapeBidi(s) {
		if unicode.IsControl(r) {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		} else {
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}
