package headless

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestColumns(t *testing.T) {
	left := "[LLM] #3 a long line that must wrap inside its own column and never spill into the other"
	right := "[LLM] #3 short"
	out := columns(left, right, 60)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("the long left text did not wrap:\n%s", out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(strings.TrimRight(l, " ")); w > 60 {
			t.Fatalf("line %q is %d wide", l, w)
		}
		if ansi.StringWidth(l[:strings.Index(l, "│")]) != 29 {
			t.Fatalf("the gutter is not at column 29: %q", l)
		}
	}
	if !strings.Contains(lines[0], "│ [LLM] #3 short") {
		t.Fatalf("the right text is not beside the left: %q", lines[0])
	}
}

func TestOutcomeOrder(t *testing.T) {
	// Exit codes follow 1 > 3 > 0: a provider failure is worse than a halt.
	if !(Answered < Halted && Halted < ProviderFailed) {
		t.Fatal("outcomes are not ordered best to worst")
	}
}
