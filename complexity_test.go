package main

import (
	"regexp"
	"testing"

	"github.com/fzipp/gocyclo"
)

// TestNoFunctionAboveComplexity15 keeps the code readable as
// docs/architecture.md, "Layers and the dependency rule", says: no
// function outside the tests above cyclomatic complexity 15, measured as
// `gocyclo -over 15 -ignore _test .` measures it, so a merge that raises
// one fails here rather than in a review.
func TestNoFunctionAboveComplexity15(t *testing.T) {
	stats := gocyclo.Analyze([]string{"."}, regexp.MustCompile(`_test\.go$`))
	if len(stats) < 100 {
		t.Fatalf("measured %d functions: is the walk still reading the repository?", len(stats))
	}
	for _, s := range stats.SortAndFilter(-1, 15) {
		t.Errorf("%s: %s has complexity %d (at most 15): split it", s.Pos, s.FuncName, s.Complexity)
	}
}
