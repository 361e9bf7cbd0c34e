package glassbox

import (
	"strings"

	"github.com/glassbox-dev/glassbox/ui/cell"
)

// resultGist is a tool result in at most two lines of width w: its lines
// joined (a list_files result shows its names, not only the first), cut
// with … when there is more.
func resultGist(content string, w int) []string {
	var parts []string
	for _, ln := range strings.Split(sanitize(content), "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			parts = append(parts, ln)
		}
	}
	lines := wrapLines("⇒ "+strings.Join(parts, " · "), max(w-2, 1))
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = cell.Truncate(lines[1], max(w-3, 1), "") + "…"
	}
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return lines
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isAre agrees a verb with a count: "1 step is", "2 steps are". A
// Japanese format drops it (and plural's "s") with %.0s.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// wrapStyled wraps s to w cells and paints each line.
func wrapStyled(st interface{ Render(...string) string }, s string, w int) []string {
	lines := wrapLines(s, w)
	for i := range lines {
		lines[i] = st.Render(lines[i])
	}
	return lines
}
