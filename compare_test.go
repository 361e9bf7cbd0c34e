package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// compareKey maps a --compare dialect name to the single-run tests' name.
var compareKey = map[string]string{"gemini": "gemini", "llama": "llama-json", "llama:native": "llama-native", "openai": "openai"}

// TestLessonsHeadlessCompare runs every lesson in compare mode, for both
// pairs the workshop uses, and checks that each run takes exactly the
// transitions it takes alone, that every record names its run, and that
// each run ends with a summary record.
func TestLessonsHeadlessCompare(t *testing.T) {
	isolate(t)
	// llama:native,openai: the same Llama behind two APIs.
	for _, pair := range [][2]string{{"gemini", "llama"}, {"llama", "llama:native"}, {"llama:native", "openai"}} {
		for _, tc := range lessonCases() {
			name := strings.Join(pair[:], ",") + "/" + tc.lesson
			if tc.stdin != "" {
				name += "/" + strings.TrimSpace(strings.ReplaceAll(tc.stdin, "\n", ","))
			}
			t.Run(name, func(t *testing.T) {
				// Lockstep: both runs ask at the same step, the first run first.
				var stdin strings.Builder
				for _, line := range strings.SplitAfter(tc.stdin, "\n") {
					stdin.WriteString(line + line)
				}
				args := slices.Concat([]string{"--offline", "--lesson", tc.lesson, "--compare=" + pair[0] + "," + pair[1]}, tc.extra)
				code, lines, stderr := runJSON(t, stdin.String(), args...)
				if code != tc.code {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
				}
				byRun := map[string][]traceLine{}
				var summaries []traceLine
				for _, l := range lines {
					if l.Summary != nil {
						summaries = append(summaries, l)
						continue
					}
					if len(summaries) > 0 {
						t.Fatalf("a transition after the summaries: %+v", l)
					}
					byRun[l.Run] = append(byRun[l.Run], l)
				}
				for _, run := range pair {
					w := tc.want(compareKey[run])
					if got := edges(byRun[run]); !slices.Equal(got, flat(w.edges)) {
						t.Errorf("%s edges\n got %v\nwant %v", run, got, flat(w.edges))
					}
				}
				if len(byRun) != 2 {
					t.Errorf("records name the runs %v", slices.Collect(maps.Keys(byRun)))
				}
				if len(summaries) != 2 || summaries[0].Run != pair[0] || summaries[1].Run != pair[1] {
					t.Fatalf("summaries %+v", summaries)
				}
				for _, s := range summaries {
					if s.Summary.Backend != "offline" || s.Summary.Transitions != len(byRun[s.Run]) {
						t.Errorf("summary %+v for %d transitions", s.Summary, len(byRun[s.Run]))
					}
				}
			})
		}
	}
}

// The exit code is the worse of the two runs: 1 over 3 over 0.
func TestCompareExitCodeIsTheWorse(t *testing.T) {
	isolate(t)
	// outage fails the provider on both; the iteration limit halts both.
	if code, _, _ := runJSON(t, "", "--offline", "--compare", "--lesson", "outage"); code != exitProvider {
		t.Fatalf("outage: exit %d", code)
	}
	if code, _, _ := runJSON(t, "", "--offline", "--compare", "--lesson", "iteration-limit", "--max-iterations", "2"); code != exitHalted {
		t.Fatalf("iteration limit: exit %d", code)
	}
}

func TestCompareFlag(t *testing.T) {
	isolate(t)
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"run", "--offline", "--compare=gemini", "hi"}, exitUsage, "name two dialects"},
		{[]string{"run", "--offline", "--compare=gemini,claude", "hi"}, exitUsage, `"claude" is not a dialect`},
		{[]string{"run", "--offline", "--compare=llama,llama", "hi"}, exitUsage, "two different dialects"},
		{[]string{"run", "--offline", "--compare", "--model", "x", "hi"}, exitUsage, "--model x names one model, but --compare=gemini,llama runs two providers (gemini and llama): give each run its own, e.g. --compare=gemini@MODEL,llama@MODEL"},
		{[]string{"run", "--offline", "--compare", "list the files"}, exitOK, "[llama] [ACT]"},
		{[]string{"run", "--offline", "--compare=llama,llama:native", "list the files"}, exitOK, "[llama:native] llama llama3.1:8b (native mode)"},
		// Issue 18: with a space the list became the request, silently.
		{[]string{"run", "--offline", "--compare", "gemini,llama:native"}, exitUsage, `--compare gemini,llama:native: write --compare=gemini,llama:native (with "=")`},
		{[]string{"--offline", "--compare", "gemini,llama:native"}, exitUsage, `write --compare=gemini,llama:native`},
		// A typo names the dialect and the choices, not "invalid boolean value" and the usage.
		{[]string{"run", "--offline", "--compare=gemini,lama", "hi"}, exitUsage, `--compare=gemini,lama: "lama" is not a dialect; pick two of gemini, llama, llama:native`},
		{[]string{"run", "--offline", "--compare=llama@", "hi"}, exitUsage, `names no model after @`},
		// A model per run, said before the run starts; ollama is llama.
		// (The offline Ollama has only llama3.1:8b: its 404 proves the model was asked for.)
		{[]string{"run", "--offline", "--compare=ollama@tutor:1b,llama:native", "list the files"}, exitProvider, "compare: llama runs tutor:1b (given with @); llama:native runs llama3.1:8b (its default)"},
		{[]string{"run", "--offline", "--compare=llama@tutor:1b,llama:native", "list the files"}, exitProvider, "[llama] llama tutor:1b"},
		// --model applies to both sides of one provider.
		{[]string{"run", "--offline", "--compare=llama,llama:native", "--model", "llama3.1:8b", "list the files"}, exitOK, "compare: llama runs llama3.1:8b (--model); llama:native runs llama3.1:8b (--model)"},
		{[]string{"run", "--offline", "--compare=gemini@gemini-2.5-pro,llama", "--model", "llama3.1:8b", "list the files"}, exitOK, "compare: gemini runs gemini-2.5-pro (given with @); llama runs llama3.1:8b (--model)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.out) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.code, tc.out, out.String(), errb.String())
			}
		})
	}
}

// Each compare run works on its own copy of --workspace: a write by one run
// is not seen by the other, and the folder itself is left as it was.
func TestCompareRunsOnCopiesOfTheWorkspace(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, lines, stderr := runJSON(t, "y\ny\n", "--offline", "--compare", "--workspace", ws, "--lesson", "write-file")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(strings.Join(edges(lines), " "), "user_approval"); n != 2 {
		t.Fatalf("%d approvals, want one per run", n)
	}
	entries, _ := os.ReadDir(ws)
	if len(entries) != 1 {
		t.Fatalf("the kept workspace changed: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "original" {
		t.Fatalf("a.txt = %q", b)
	}
}

// --record in compare mode writes one cassette per run, and --replay plays
// both back to the same transitions.
func TestCompareRecordReplay(t *testing.T) {
	isolate(t)
	cassette := filepath.Join(t.TempDir(), "class.cassette")
	code, recorded, stderr := runJSON(t, "", "--offline", "--compare", "--record", cassette, "--lesson", "tour")
	if code != exitOK {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"class.gemini.cassette", "class.llama.cassette"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(cassette), f)); err != nil {
			t.Fatalf("no %s: %v", f, err)
		}
	}
	code, replayed, stderr := runJSON(t, "", "--compare", "--replay", cassette, "--lesson", "tour")
	if code != exitOK {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	if !slices.Equal(edges(replayed), edges(recorded)) {
		t.Fatalf("replay %v\nrecorded %v", edges(replayed), edges(recorded))
	}
	for _, l := range replayed {
		if l.LLM != nil && l.LLM.Backend != "replay" {
			t.Fatalf("a replayed call says backend %s", l.LLM.Backend)
		}
	}
}
