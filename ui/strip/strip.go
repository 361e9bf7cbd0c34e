// Package strip draws compare mode's comparison strip: one row per run,
// setting the two runs' latest model calls side by side — stop and finish
// reason, tool calls, text length, the JSON-mode parse step, tokens, latency,
// bytes on the wire and chunk count — so a learner sees at a glance how two
// dialects (native function calling beside JSON-mode prompting, say)
// answered the same request. Cells that differ between the runs are drawn in
// bold.
package strip

import (
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Call is one model call as the strip shows it.
type Call struct {
	Run          string // the run's name: its dialect, as --compare names it
	Iteration    int
	StopReason   string // tool_use, end_turn, …; "" for a malformed reply
	FinishReason string // the provider's own: STOP, stop, length, …
	ToolCalls    []string
	TextLen      int    // characters of text the model wrote
	Parse        string // JSON mode: the parse step's outcome; "" otherwise
	InputTokens  int
	OutputTokens int
	LatencyMS    int64
	RequestBytes int
	ReplyBytes   int
	Chunks       int
	Failed       string // the error kind when the call failed
}

// FromTransition reads the call a transition made; ok is false when the
// transition made none.
func FromTransition(run string, t loop.Transition) (c Call, ok bool) {
	if t.LLM == nil {
		return Call{}, false
	}
	l := t.LLM
	c = Call{
		Run: run, Iteration: t.Iteration, StopReason: l.StopReason, FinishReason: l.FinishReason,
		TextLen: len([]rune(l.Text)), InputTokens: l.Usage.InputTokens, OutputTokens: l.Usage.OutputTokens,
		LatencyMS: l.LatencyMS,
	}
	for _, tc := range l.ToolCalls {
		c.ToolCalls = append(c.ToolCalls, tc.Name+" "+string(tc.Args))
	}
	if t.Parse != nil {
		c.Parse = t.Parse.Outcome
	}
	if t.Error != nil && t.Edge != loop.EdgeFinalAnswer && t.Edge != loop.EdgeToolCall {
		c.Failed = t.Error.Kind
	}
	if n := len(t.Exchanges); n > 0 {
		x := t.Exchanges[n-1]
		c.RequestBytes, c.Chunks = len(x.RequestBody), x.Records()
		c.ReplyBytes = len(x.ResponseBody)
		if c.ReplyBytes == 0 {
			for _, ch := range x.Chunks {
				c.ReplyBytes += len(ch.Data)
			}
		}
	}
	return c, true
}

// column is one field of the strip: its heading (the catalog's key, shown
// through Lang.Dyn: TestHeadingsHaveJapanese), its width when there is room
// (0: takes what is left) and how a call fills it.
type column struct {
	head  string
	width int
	cell  func(Call, lang.Lang) string
}

var columns = []column{
	{"run", 13, func(c Call, _ lang.Lang) string { return c.Run }},
	{"iter", 4, func(c Call, _ lang.Lang) string { return fmt.Sprint(c.Iteration) }},
	{"stop / finish", 20, func(c Call, _ lang.Lang) string {
		if c.Failed != "" {
			return c.Failed
		}
		return dash(c.StopReason) + " / " + dash(c.FinishReason)
	}},
	{"tool calls", 0, func(c Call, l lang.Lang) string {
		if len(c.ToolCalls) == 0 {
			return l.T("none")
		}
		return strings.Join(c.ToolCalls, " · ")
	}},
	{"text", 6, func(c Call, _ lang.Lang) string { return fmt.Sprint(c.TextLen) }},
	{"JSON parse", 18, func(c Call, _ lang.Lang) string { return dash(c.Parse) }},
	{"tokens in/out", 13, func(c Call, _ lang.Lang) string { return fmt.Sprintf("%d/%d", c.InputTokens, c.OutputTokens) }},
	{"latency", 8, func(c Call, _ lang.Lang) string { return fmt.Sprintf("%d ms", c.LatencyMS) }},
	{"bytes req/resp", 15, func(c Call, _ lang.Lang) string { return size(c.RequestBytes) + "/" + size(c.ReplyBytes) }},
	{"chunks", 6, func(c Call, _ lang.Lang) string { return fmt.Sprint(c.Chunks) }},
}

// minFlex is the narrowest the tool-calls column may get before the
// optional columns are dropped.
const minFlex = 24

// Render draws the strip for two runs in width columns: a heading row and
// one row per run. A nil call is a run that has made no call yet. head
// styles the headings and differ the cells that differ between the runs;
// l is the language of the headings and notes.
func Render(l lang.Lang, width int, runs [2]string, calls [2]*Call, head, differ func(...string) string) string {
	cols := fit(width)
	var rows [3][]string
	for _, col := range cols {
		rows[0] = append(rows[0], head(pad(l.Dyn(col.head), col.width)))
	}
	cells := [2][]string{}
	for i, c := range calls {
		for _, col := range cols {
			v := "—"
			switch {
			case c != nil:
				v = col.cell(*c, l)
			case col.head == "run":
				v = runs[i]
			case col.head == "tool calls":
				v = l.T("no model call yet")
			}
			cells[i] = append(cells[i], v)
		}
	}
	for i := range calls {
		for j, col := range cols {
			cell := pad(cells[i][j], col.width)
			if col.head != "run" && calls[0] != nil && calls[1] != nil && cells[0][j] != cells[1][j] {
				cell = differ(cell)
			}
			rows[i+1] = append(rows[i+1], cell)
		}
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(r, " "))
	}
	return b.String()
}

// fit picks the columns that fit in width and sizes the flexible one; the
// optional columns go first, from the right, when space is short.
func fit(width int) []column {
	cols := append([]column(nil), columns...)
	for _, drop := range []string{"chunks", "text", "bytes req/resp", "JSON parse", "latency"} {
		if flexWidth(cols, width) >= minFlex {
			break
		}
		for i, c := range cols {
			if c.head == drop {
				cols = append(cols[:i], cols[i+1:]...)
				break
			}
		}
	}
	for i := range cols {
		if cols[i].width == 0 {
			cols[i].width = max(4, flexWidth(cols, width))
		}
	}
	return cols
}

func flexWidth(cols []column, width int) int {
	used := len(cols) - 1 // one space between columns
	for _, c := range cols {
		used += c.width
	}
	return width - used
}

// pad cuts or fills s to exactly w cells.
func pad(s string, w int) string {
	return cell.Fit(strings.ReplaceAll(s, "\n", " "), w, "…")
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// size is a byte count in a few characters: 812 B, 3.1 KB, 2.4 MB.
func size(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
}
