package glassbox

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A dialog drawn over Japanese text keeps every line the screen's width,
// whichever cell its edges fall on: a wide character cut in half at either
// edge becomes a space, never a missing cell that shifts the rest of the
// line.
func TestOverlayKeepsLineWidthOverWideCharacters(t *testing.T) {
	const width = 21
	for x := 0; x < 6; x++ {
		for w := 3; w < 8; w++ {
			screen := []string{strings.Repeat("日本", 5) + "x", strings.Repeat("語", 10) + "y"}
			overlay(screen, block{rect{x: x, y: 0, w: w, h: 2}, []string{"box", "box"}})
			for i, ln := range screen {
				if got := ansi.StringWidth(ln); got != width {
					t.Errorf("box at x=%d w=%d: line %d is %d cells wide, want %d: %q", x, w, i, got, width, ln)
				}
				if !strings.HasSuffix(ln, []string{"x", "y"}[i]) {
					t.Errorf("box at x=%d w=%d: line %d lost its end: %q", x, w, i, ln)
				}
			}
		}
	}
}
