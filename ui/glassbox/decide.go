package glassbox

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// decidingMarks are, for each edge the model's reply decides, what to look
// for in the Raw payload's lines, first match first: the bytes that made the
// loop take that edge. Gemini's functionCall part or finishReason, Ollama's
// tool_calls or done_reason, JSON mode's parsed object, the parse error. A
// mark that is the pane's own words is looked for in the pane's language.
var decidingMarks = map[loop.Edge][]string{
	loop.EdgeToolCall:          {"2 · the JSON extracted from it", `"functionCall"`, `"tool_calls"`},
	loop.EdgeFinalAnswer:       {"2 · the JSON extracted from it", `"finishReason"`, `"done_reason"`, `"finish_reason"`},
	loop.EdgeMalformedResponse: {"✗ ", `"finishReason"`, `"done_reason"`, `"finish_reason"`},
	loop.EdgeLLMFailure:        {`"error"`, "error"},
}

// decidingLine is the index of the line of a payload page that decided
// edge, or -1.
func decidingLine(lines []string, edge loop.Edge, l lang.Lang) int {
	marks := decidingMarks[edge]
	if len(marks) == 0 {
		return -1
	}
	plain := make([]string, len(lines))
	for i, ln := range lines {
		plain[i] = ansi.Strip(ln)
	}
	for _, mk := range marks {
		mk = l.Dyn(mk)
		for i, ln := range plain {
			if strings.Contains(ln, mk) {
				return i
			}
		}
	}
	return -1
}

// decidingEdge is the edge the model's reply decided, for the response the
// Raw payload shows: that of the step shown or, at a later step, of the
// model call before it ("" when the pane shows no decided response).
func (p *payloadPane) decidingEdge() loop.Edge {
	r := p.r
	if !p.response || (r.busy && r.inflight != nil && !r.live.travelling()) {
		return ""
	}
	es := r.live.exchangeStep(r.live.selectedIndex())
	if es < 0 || r.live.steps[es].t.LLM == nil {
		return ""
	}
	return r.live.steps[es].t.Edge
}

// markLine draws the deciding line, w cells wide, in the theme's
// current-state style, with a ▶ in a cell that holds nothing of the
// payload: its first cell when that is blank, else the last cell of a
// chunk's arrival time ("+  155ms ▶data: …"), else before the line when
// there is room. A line that fills the width otherwise keeps every cell
// and is marked by its style alone: the pane promises the bytes as they
// arrived, and a marker never covers one.
func markLine(lk look, line string, w int) string {
	plain := []rune(ansi.Strip(line))
	switch {
	case len(plain) > 0 && plain[0] == ' ':
		plain[0] = '▶'
	case arrivalGutter(plain):
		plain[gutterWidth-1] = '▶'
	case ansi.StringWidth(string(plain)) < w:
		plain = append([]rune{'▶'}, plain...)
	}
	return lk.th.Current.Render(string(plain))
}

// gutterWidth is the width of a chunk's arrival time before its bytes in
// the Raw payload ("+%7s  ", ui/payload).
const gutterWidth = 10

// arrivalGutter reports whether line begins with a chunk's arrival time,
// its last two cells blank.
func arrivalGutter(line []rune) bool {
	return len(line) > gutterWidth && line[0] == '+' && line[gutterWidth-2] == ' ' && line[gutterWidth-1] == ' '
}
