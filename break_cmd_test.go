package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBreakFlag: --break is read before anything opens; a mistake is a
// usage error (exit 2) that names the wrong part and lists what is allowed,
// in the reader's language; glassbox run refuses the flag rather than
// ignore it.
func TestBreakFlag(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
		not  string
	}{
		{"a misspelt condition", []string{"--offline", "--break", "tool=write_file,verdit=DENY"},
			[]string{`--break "tool=write_file,verdit=DENY", condition 2: unknown condition "verdit"`, "state=, edge=, tool=|tool~=, verdict=, dialect=", "path=|path~="}, "needs a terminal"},
		{"the second of two", []string{"--break", "tool=write_file", "--break", "state=CHECKING"},
			[]string{`there is no state "CHECKING"`, "CHECKING_POLICY"}, "needs a terminal"},
		{"a dialect glassbox does not speak", []string{"--break", "dialect=claude"},
			[]string{`there is no dialect "claude"`, "gemini", "ollama"}, ""},
		{"a size", []string{"--break", "bytes>forty"}, []string{`"forty" is not a size`, "40k"}, ""},
		{"in Japanese", []string{"--lang", "ja", "--break", "stat=HALTED"},
			[]string{`--break "stat=HALTED" の 1 番目の条件: "stat=HALTED" の "stat" という条件はありません`}, "unknown condition"},
		{"glassbox run takes none", []string{"run", "--offline", "--break", "tool=write_file", "list the files"},
			[]string{"--break tool=write_file: glassbox run runs the loop to the end without stopping", "glassbox --break tool=write_file"}, "THINK"},
		{"glassbox run, in Japanese", []string{"run", "--lang", "ja", "--break", "tool=x", "hi"},
			[]string{"--break tool=x:"}, "without stopping"},
		// A good expression gets as far as the terminal check.
		{"a good one", []string{"--offline", "--break", "tool~=write_*, verdict=deny", "--break", "tokens>8k"},
			[]string{"needs a terminal"}, "--break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUsage, out.String(), errb.String())
			}
			got := out.String() + errb.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("output has %q:\n%s", tc.not, got)
			}
		})
	}
}
