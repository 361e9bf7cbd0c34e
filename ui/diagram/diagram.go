// Package diagram draws the agent's state machine (docs/architecture.md, "The state machine") in box-drawing
// characters: all ten states, the arcs of loop.Table between them, the
// current state lit, the edge just taken labelled, breakpoints marked, and a
// one-line account of what is happening now.
//
// There are two layouts. The full one (picture.go) is a hand-drawn map of
// the whole machine for panes of at least FullWidth×FullHeight cells; the
// compact one (compact.go) lists the states for anything smaller, laid out
// by the pane's size alone, so every state keeps its cell from step to step
// and from run to run; it marks the state the last edge left (○) as well as
// the current one. Both end with the same footer: the last transition and
// Explain of the current state.
package diagram

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// View is everything the diagram shows. The zero value is a valid view of an
// idle engine (Current defaults to WAITING_FOR_EVENT).
type View struct {
	Current  loop.State // the state the engine is in now
	LastFrom loop.State // where the last transition came from ("" if none yet)
	LastEdge loop.Edge  // the edge of the last transition ("" if none yet)
	// Breakpoints are the states and edges the breakpoints in force name
	// (loop/breakpoint's Watch.Marks): ● before a state's name, or before
	// an edge's label in the full drawing, where one stops every time; ◐
	// where it stops only when its other conditions hold as well.
	Breakpoints breakpoint.Marks
	Selected    loop.State // the state under the cursor for `b` ("" for none)
	Lang        lang.Lang  // the language of the footer (the zero value is English)
	// Source is the source of the event the last new_event took ("ui",
	// "mcp_bus", …) and From who sent it, when the source says (the MCP
	// bus's client): the footer names where the new event came from.
	Source, From string
	// Outside: the steps are another agent's, seen from outside (a tap):
	// the footer says what happens in each state as far as that shows.
	Outside bool
}

// The markers drawn in the two cells before a state's name. They carry the
// meaning on their own, so the diagram still works without colour.
const (
	markBreakpoint = '●' // a breakpoint is set on this state (or edge)
	markIf         = '◐' // a breakpoint names it, with more conditions
	markCurrent    = '▶' // the engine is in this state
	markSelected   = '›' // the cursor is on this state (for `b`)
	markFrom       = '○' // compact layout: the edge just taken left this state
)

// Render draws v in exactly width×height cells: every line is padded to
// width cells and there are exactly height lines (none for a zero or negative
// size).
func Render(th theme.Theme, v View, width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if v.Current == "" {
		v.Current = loop.WaitingForEvent
	}
	var lines []string
	if width >= FullWidth && height >= FullHeight {
		lines = renderFull(th, v, width, height)
	} else {
		lines = renderCompact(th, v, width, height)
	}
	return fit(lines, width, height)
}

// Order returns the states in the order arrow keys move the selection: the
// cycle's reading order, down the spine of the drawing (the Think → Act →
// Observe loop), then the two ways out.
func Order() []loop.State {
	return []loop.State{
		loop.WaitingForEvent,
		loop.AssemblingContext,
		loop.AwaitingLLMResponse,
		loop.CheckingPolicy,
		loop.AwaitingUserConfirmation,
		loop.ExecutingTool,
		loop.RecordingResult,
		loop.RecordingError,
		loop.DeliveringOutput,
		loop.Halted,
	}
}

// fit makes lines exactly width×height: long lines are cut, short ones
// padded with spaces, missing lines added blank, extra lines dropped.
func fit(lines []string, width, height int) string {
	var b strings.Builder
	for i := 0; i < height; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(cell.Fit(line, width, ""))
	}
	return b.String()
}

// word is one piece of footer text and the style it is painted with.
type word struct {
	text  string
	style lipgloss.Style
}

// footer is the text under the diagram: the last transition, then what is
// happening now, each wrapped to width.
//
// name gives the label of a state: its full name, or the compact layout's
// short one. The compact layout drops the "last:" prefix (the list above
// makes the arrow plain enough).
func footer(th theme.Theme, v View, width int, compact bool, name func(loop.State) string) (last, now []string) {
	var ws []word
	switch {
	case v.LastEdge == "" && !compact:
		ws = []word{{v.Lang.T("last:"), th.Muted}, {v.Lang.T("no transition yet"), th.Muted}}
	case v.LastEdge == "":
		ws = []word{{v.Lang.T("no transition yet"), th.Muted}}
	default:
		if !compact {
			ws = append(ws, word{v.Lang.T("last:"), th.Muted})
		}
		to, ok := loop.Target(v.LastFrom, v.LastEdge)
		if !ok { // not an arc of the table: trust where the engine is
			to = v.Current
		}
		from := "?"
		if v.LastFrom != "" {
			from = name(v.LastFrom)
		}
		ws = append(ws,
			word{from, th.Bold},
			word{"─" + string(v.LastEdge) + "─▶", th.Edge},
			word{name(to), th.Bold},
		)
		if v.LastEdge == loop.EdgeNewEvent && v.Source != "" {
			ws = append(ws, word{"from", th.Muted}, word{v.Source, th.Edge})
		}
	}
	last = wrapWords(ws, width)

	return last, cell.Wrap(explainNow(v), width)
}

// explainNow is what is happening now. ASSEMBLING_CONTEXT names what is new
// in the context: the event just taken, or the result (or error) the last
// transition recorded.
func explainNow(v View) string {
	if v.Outside {
		return ExplainOutside(v.Lang, v.Current)
	}
	if v.Current == loop.AssemblingContext {
		switch {
		case v.LastEdge == loop.EdgeNewEvent && v.From != "":
			return v.Lang.F("Assembling context: system prompt + history + tool definitions + the new event (a request from %s).", v.From)
		case v.LastEdge == loop.EdgeNewEvent:
			return v.Lang.T("Assembling context: system prompt + history + tool definitions + the new event (your request).")
		case v.LastEdge == loop.EdgeObserved && v.LastFrom == loop.RecordingError:
			return v.Lang.T("Assembling context: system prompt + history + tool definitions + the error just recorded.")
		case v.LastEdge == loop.EdgeObserved:
			return v.Lang.T("Assembling context: system prompt + history + tool definitions + the tool results just recorded.")
		}
	}
	return Explain(v.Lang, v.Current)
}

// wrapWords lays styled words out greedily in lines of at most width cells,
// one space between words. A word longer than a line is cut into pieces.
func wrapWords(ws []word, width int) []string {
	if width <= 0 {
		return nil
	}
	var (
		lines []string
		line  strings.Builder
		used  int
	)
	flush := func() {
		lines = append(lines, line.String())
		line.Reset()
		used = 0
	}
	for _, w := range ws {
		text := w.text
		for text != "" {
			tw := ansi.StringWidth(text)
			gap := 0
			if used > 0 {
				gap = 1
			}
			if used+gap+tw <= width {
				if gap == 1 {
					line.WriteByte(' ')
				}
				line.WriteString(w.style.Render(text))
				used += gap + tw
				text = ""
				continue
			}
			if used > 0 {
				flush()
				continue
			}
			// The word alone is wider than a line: cut it.
			piece := ansi.Truncate(text, width, "")
			if piece == "" { // a wide rune in a one-cell line
				return lines
			}
			line.WriteString(w.style.Render(piece))
			text = text[len(piece):]
			flush()
		}
	}
	if used > 0 {
		flush()
	}
	return lines
}

// clip keeps at most n lines, marking a cut with an ellipsis on the last
// line kept.
func clip(lines []string, n, width int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n:n]
	last := lines[n-1]
	if ansi.StringWidth(last)+1 > width {
		last = ansi.Truncate(last, width-1, "")
	}
	lines[n-1] = last + "…"
	return lines
}

// breakMark is the marker of a breakpoint mark, 0 for none.
func breakMark(m breakpoint.Mark) rune {
	switch m {
	case breakpoint.Always:
		return markBreakpoint
	case breakpoint.If:
		return markIf
	}
	return 0
}
