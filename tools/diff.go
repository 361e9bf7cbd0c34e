package tools

import (
	"fmt"
	"strings"
)

// This file holds a small line diff for write_file's preview. It is the
// textbook method: drop the lines both versions share at the start and the
// end, find the longest common subsequence (LCS) of what is left, and call
// every line outside the LCS removed ("-") or added ("+"). The result is
// printed in the familiar unified format, with three lines of context
// around each change.

const (
	// diffContext is how many unchanged lines surround each change.
	diffContext = 3
	// maxLCSCells bounds the LCS table (old lines × new lines in the part
	// that differs). Beyond it the whole middle is shown as replaced, which
	// is correct, only less tidy.
	maxLCSCells = 4_000_000
)

// diffOp is one line of an edit script.
type diffOp struct {
	kind byte // ' ' kept, '-' removed, '+' added
	text string
}

// splitLines splits text into lines without their "\n". Empty text has no
// lines; a final newline does not start an extra empty line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// diffLines returns the edit script that turns a into b.
func diffLines(a, b []string) []diffOp {
	// Common prefix and suffix: most edits touch a few lines in the middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, line := range a[:pre] {
		ops = append(ops, diffOp{' ', line})
	}
	ops = append(ops, diffMiddle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, line := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', line})
	}
	return ops
}

// diffMiddle diffs the part of a and b that differs, using an LCS table
// (past maxLCSCells, all of a removed and all of b added).
func diffMiddle(a, b []string) []diffOp {
	if len(a)*len(b) > maxLCSCells {
		ops := make([]diffOp, 0, len(a)+len(b))
		for _, line := range a {
			ops = append(ops, diffOp{'-', line})
		}
		for _, line := range b {
			ops = append(ops, diffOp{'+', line})
		}
		return ops
	}
	return walkLCS(a, b, lcsTable(a, b))
}

// lcsTable is the table whose [i][j] is the length of the longest common
// subsequence of a[i:] and b[j:].
func lcsTable(a, b []string) [][]int {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	return lcs
}

// walkLCS walks the table from the start, preferring removals before
// additions so a changed line reads as "-old" then "+new".
func walkLCS(a, b []string, lcs [][]int) []diffOp {
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// unifiedDiff renders the change from oldText to newText in unified format,
// at most maxLines lines long (a note says how many were left out). oldName
// is "/dev/null" for a file that does not exist yet.
func unifiedDiff(oldName, newName, oldText, newText string, maxLines int) string {
	ops := diffLines(splitLines(oldText), splitLines(newText))
	lines := []string{"--- " + oldName, "+++ " + newName}
	hs := hunks(ops)
	for _, h := range hs {
		lines = append(lines, h...)
	}
	if len(hs) == 0 && oldText != newText {
		// splitLines ignores the final newline, so this is the only
		// difference left.
		lines = append(lines, "(only the newline at the end of the file changes)")
	}
	if len(lines) > maxLines {
		left := len(lines) - maxLines
		lines = append(lines[:maxLines], fmt.Sprintf("[... %d more diff lines not shown ...]", left))
	}
	return strings.Join(lines, "\n")
}

// hunks groups an edit script into unified-diff hunks: each change with up
// to diffContext kept lines around it, nearby changes merged, and an
// "@@ -old +new @@" header giving line numbers.
func hunks(ops []diffOp) [][]string {
	var out [][]string
	for start := 0; start < len(ops); {
		// Find the next change.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		// Extend the hunk while the next change is within 2×context lines.
		last := first
		for k := first; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				last = k
			} else if k-last > 2*diffContext {
				break
			}
		}
		from := max(first-diffContext, start)
		to := min(last+diffContext+1, len(ops))

		// Line numbers: count old and new lines before the hunk.
		oldLine, newLine := 1, 1
		for _, op := range ops[:from] {
			if op.kind != '+' {
				oldLine++
			}
			if op.kind != '-' {
				newLine++
			}
		}
		oldCount, newCount := 0, 0
		body := []string{""} // the header goes here
		for _, op := range ops[from:to] {
			if op.kind != '+' {
				oldCount++
			}
			if op.kind != '-' {
				newCount++
			}
			body = append(body, string(op.kind)+op.text)
		}
		body[0] = fmt.Sprintf("@@ -%s +%s @@", hunkRange(oldLine, oldCount), hunkRange(newLine, newCount))
		out = append(out, body)
		start = to
	}
	return out
}

// hunkRange formats one side of a hunk header. By convention an empty side
// names the line before it: "-0,0" for a new file.
func hunkRange(line, count int) string {
	if count == 0 {
		line--
	}
	return fmt.Sprintf("%d,%d", line, count)
}
