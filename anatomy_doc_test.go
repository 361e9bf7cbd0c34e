package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/anatomy.md's figures (en and ja) are the tour's, as glassbox run
// --json reports them on every dialect today: this test computes the rows
// and fails, printing them, when the page says otherwise.
func TestAnatomyDocFigures(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	isolate(t)
	var rows []string
	for _, d := range dialects {
		code, out, errb := invoke(t, "", append([]string{"run", "--json", "--offline", "--lesson", "tour"}, d.args...)...)
		if code != exitOK {
			t.Fatalf("%s: %d %s", d.name, code, errb)
		}
		call := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var rec struct {
				LLM *struct {
					Anatomy *struct {
						Bytes int
						Kinds []struct {
							Kind          string
							Bytes, Tokens int
						}
						Estimated struct{ N int }
						Reported  struct{ N int }
						Since     *struct{ Kept, Appended struct{ Bytes int } } `json:"since_previous"`
					}
				}
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.LLM == nil || rec.LLM.Anatomy == nil {
				continue
			}
			a := rec.LLM.Anatomy
			call++
			tools := "–"
			for _, k := range a.Kinds {
				if k.Kind == "tool" {
					tools = fmt.Sprintf("%s · %s", num(k.Bytes), num(k.Tokens))
				}
			}
			kept, appended := "–", "–"
			if a.Since != nil {
				kept, appended = num(a.Since.Kept.Bytes), num(a.Since.Appended.Bytes)
			}
			name := strings.NewReplacer("llama-json", "llama", "llama-native", "llama:native").Replace(d.name)
			rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s | %s |", name, call, num(a.Bytes), num(a.Estimated.N), num(a.Reported.N), tools, kept, appended))
		}
	}
	want := strings.Join(rows, "\n")
	for _, page := range []string{"docs/anatomy.md", "docs/ja/anatomy.md"} {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(b), "<!-- tour figures: checked by TestAnatomyDocFigures -->\n")
		block, _, ok2 := strings.Cut(rest, "\n<!-- end of tour figures -->")
		if !ok || !ok2 {
			t.Fatalf("%s has no tour figures block", page)
		}
		lines := strings.Split(block, "\n")
		if len(lines) < 2 || strings.Join(lines[2:], "\n") != want {
			t.Errorf("%s: the tour's figures are now (below the table's two header lines):\n%s", page, want)
		}
	}
}

// num writes n with thousands separators, as the anatomy command does.
func num(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
