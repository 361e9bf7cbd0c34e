package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	numbered := func(from, to int, change map[int]string) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if s, ok := change[i]; ok {
				if s != "" {
					b.WriteString(s + "\n")
				}
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{name: "new file", old: "", new: "a\nb\n",
			want: "--- old\n+++ new\n@@ -0,0 +1,2 @@\n+a\n+b"},
		{name: "file emptied", old: "a\nb\n", new: "",
			want: "--- old\n+++ new\n@@ -1,2 +0,0 @@\n-a\n-b"},
		{name: "no change", old: "a\nb\n", new: "a\nb\n",
			want: "--- old\n+++ new"},
		{name: "one changed line keeps three lines of context",
			old: numbered(1, 10, nil), new: numbered(1, 10, map[int]string{5: "five"}),
			want: "--- old\n+++ new\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8"},
		{name: "added line in the middle",
			old: "a\nb\nc\n", new: "a\nb\nnew\nc\n",
			want: "--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n b\n+new\n c"},
		{name: "removed line at the start",
			old: "x\na\nb\n", new: "a\nb\n",
			want: "--- old\n+++ new\n@@ -1,3 +1,2 @@\n-x\n a\n b"},
		{name: "distant changes make two hunks",
			old: numbered(1, 20, nil), new: numbered(1, 20, map[int]string{2: "two", 19: ""}),
			want: "--- old\n+++ new\n" +
				"@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n" +
				"@@ -16,5 +16,4 @@\n line 16\n line 17\n line 18\n-line 19\n line 20"},
		{name: "near changes share a hunk",
			old: numbered(1, 12, nil), new: numbered(1, 12, map[int]string{3: "three", 8: "eight"}),
			want: "--- old\n+++ new\n@@ -1,11 +1,11 @@\n line 1\n line 2\n-line 3\n+three\n line 4\n line 5\n line 6\n line 7\n-line 8\n+eight\n line 9\n line 10\n line 11"},
		{name: "only the final newline differs", old: "a\n", new: "a",
			want: "--- old\n+++ new\n(only the newline at the end of the file changes)"},
		{name: "missing final newline counts as the same lines",
			old: "a\nb", new: "a\nb\nc",
			want: "--- old\n+++ new\n@@ -1,2 +1,3 @@\n a\n b\n+c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff("old", "new", tt.old, tt.new, 1000); got != tt.want {
				t.Errorf("unifiedDiff =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffLinesReconstructs checks the edit script's defining property: the
// kept and removed lines give the old text, the kept and added the new one.
func TestDiffLinesReconstructs(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
	}{
		{name: "interleaved", a: []string{"a", "b", "c", "d", "e"}, b: []string{"b", "x", "d", "e", "f"}},
		{name: "reversed", a: []string{"1", "2", "3", "4"}, b: []string{"4", "3", "2", "1"}},
		{name: "repeated lines", a: []string{"x", "x", "y", "x"}, b: []string{"x", "y", "x", "x", "y"}},
		{name: "both empty"},
		{name: "all new", b: []string{"p", "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops := diffLines(tt.a, tt.b)
			var gotA, gotB []string
			kept := 0
			for _, op := range ops {
				if op.kind != '+' {
					gotA = append(gotA, op.text)
				}
				if op.kind != '-' {
					gotB = append(gotB, op.text)
				}
				if op.kind == ' ' {
					kept++
				}
			}
			if strings.Join(gotA, "\n") != strings.Join(tt.a, "\n") || strings.Join(gotB, "\n") != strings.Join(tt.b, "\n") {
				t.Errorf("edit script %v does not rebuild a=%v and b=%v", ops, tt.a, tt.b)
			}
			if want := lcsLength(tt.a, tt.b); kept != want {
				t.Errorf("kept %d lines, want the longest common subsequence, %d", kept, want)
			}
		})
	}
}

// lcsLength is a plain recursive LCS, for checking diffLines on tiny inputs.
func lcsLength(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if a[0] == b[0] {
		return 1 + lcsLength(a[1:], b[1:])
	}
	return max(lcsLength(a[1:], b), lcsLength(a, b[1:]))
}

func TestDiffLinesHugeInputFallsBack(t *testing.T) {
	// 3000 × 3000 differing lines exceed maxLCSCells: the middle is shown as
	// replaced, still correctly.
	a := make([]string, 3000)
	b := make([]string, 3000)
	for i := range a {
		a[i] = fmt.Sprintf("old %d", i)
		b[i] = fmt.Sprintf("new %d", i)
	}
	ops := diffLines(a, b)
	if len(ops) != 6000 || ops[0].kind != '-' || ops[5999].kind != '+' {
		t.Errorf("got %d ops starting %q, want 3000 removals then 3000 additions", len(ops), ops[0].kind)
	}
}

func TestUnifiedDiffCap(t *testing.T) {
	got := unifiedDiff("old", "new", "", strings.Repeat("x\n", 50), 10)
	lines := strings.Split(got, "\n")
	if len(lines) != 11 {
		t.Fatalf("got %d lines, want 10 plus a note", len(lines))
	}
	// 2 header lines + 1 hunk header + 50 additions = 53; 10 shown.
	if want := "[... 43 more diff lines not shown ...]"; lines[10] != want {
		t.Errorf("last line = %q, want %q", lines[10], want)
	}
}
