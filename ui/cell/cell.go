// Package cell measures terminal text in cells: the one place that cuts or
// pads a line to an exact width, for every pane, dialog, strip and diagram
// of the glass box.
package cell

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit truncates or pads s to exactly w cells. A cut line ends in tail
// ("…", or "" for a hard cut) within the w cells. Escape sequences (styles)
// take no cells.
func Fit(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, tail)
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}
