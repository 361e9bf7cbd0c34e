package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/breakpoint"
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

// TestBreakpointsDocs: docs/breakpoints.md (en and ja) shows what glassbox
// says: the mistake under "Mistakes" is the message, word for word, and
// every expression the page offers as an example reads.
func TestBreakpointsDocs(t *testing.T) {
	pages := map[string]string{}
	for _, page := range []string{"docs/breakpoints.md", "docs/ja/breakpoints.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		pages[page] = string(b)
	}
	isolate(t)
	for page, text := range pages {
		t.Run(page, func(t *testing.T) {
			lines := strings.Split(text, "\n")
			shown := 0
			for i, ln := range lines {
				cmd, ok := strings.CutPrefix(ln, "$ glassbox ")
				if !ok {
					continue
				}
				shown++
				args := regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(cmd, -1)
				for j := range args {
					args[j] = strings.Trim(args[j], `"`)
				}
				var out, errb bytes.Buffer
				if code := realMain(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitUsage {
					t.Errorf("%s: exit %d", ln, code)
				}
				if got := strings.TrimSpace(errb.String()); got != lines[i+1] {
					t.Errorf("%s says\n%s\nglassbox says\n%s", page, lines[i+1], got)
				}
			}
			if shown == 0 {
				t.Error("no $ glassbox line found")
			}
			examples := 0
			inTable := false
			for _, ln := range lines {
				switch {
				case strings.HasPrefix(ln, "| expression |"), strings.HasPrefix(ln, "| 式 |"):
					inTable = true
				case inTable && strings.HasPrefix(ln, "| `"):
					expr := strings.Trim(strings.SplitN(ln, "|", 3)[1], " `")
					if _, err := breakpoint.Parse(expr); err != nil {
						t.Errorf("the example %q: %v", expr, err)
					}
					examples++
				case inTable && !strings.HasPrefix(ln, "|"):
					inTable = false
				}
			}
			if examples < 8 {
				t.Errorf("%d examples read, want the table's 8", examples)
			}
		})
	}
}
