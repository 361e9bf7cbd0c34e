package diagram

import (
	"slices"

	"github.com/glassbox-dev/glassbox/loop"
)

// picture is the full diagram, drawn by hand. The main Think → Act → Observe
// cycle runs down the left (the "spine"); the two left rails carry the
// Observe step back up: `observed` to ASSEMBLING_CONTEXT for the next
// iteration, `next_tool_call` to CHECKING_POLICY for the next call of the same
// reply. The ways out of the loop (HALTED, DELIVERING_OUTPUT) return to
// WAITING_FOR_EVENT along the top-right rail, and every way into
// RECORDING_ERROR joins the bus on the right.
//
// Rules the code relies on (diagram_test.go checks them): every state name
// appears exactly once; the two cells before each name are blank, for the
// breakpoint ● and the current ▶ / selected › markers; the cell after each
// name is blank, so the lit state reads as a block; every edge of loop.Table
// has its label on the row that labelRow gives, after a line or a blank (an
// edge's breakpoint marker takes that cell).
const picture = `
     WAITING_FOR_EVENT ◀──────────────────────┬────────╮
      ▼ new_event                    reported │        │
╭─▶  ASSEMBLING_CONTEXT ─max_iterations─▶  HALTED      │
│     ▼ context_ready                       ▲          │
│    AWAITING_LLM_RESPONSE ─llm_failure─────╯          │
│     │ ├─final_answer─▶  DELIVERING_OUTPUT ─delivered─╯
│     │ ╰─malformed_response────────────────────────╮
│     ▼ tool_call                                   │
│╭▶  CHECKING_POLICY ─deny──────────────────────────┤
││    │     ▼ confirm_required                      │
││    │    AWAITING_USER_CONFIRMATION ─user_denial──┤
││    ▼ allow  ▼ user_approval                      │
││   EXECUTING_TOOL ─tool_failure───────────────────┤
││    ▼ tool_success                                ▼
││   RECORDING_RESULT ───┬──────────  RECORDING_ERROR
│╰─next_tool_call────────┤
╰──observed──────────────╯
`

// labelRows lists, row by row of the picture, the edges whose labels are
// written on that row. RECORDING_RESULT and RECORDING_ERROR share their two
// ways out, so their arcs share a label.
func labelRows() [][]loop.Edge {
	return [][]loop.Edge{
		1:  {loop.EdgeNewEvent, loop.EdgeReported},
		2:  {loop.EdgeMaxIterations},
		3:  {loop.EdgeContextReady},
		4:  {loop.EdgeLLMFailure},
		5:  {loop.EdgeFinalAnswer, loop.EdgeDelivered},
		6:  {loop.EdgeMalformedResponse},
		7:  {loop.EdgeToolCall},
		8:  {loop.EdgeDeny},
		9:  {loop.EdgeConfirmRequired},
		10: {loop.EdgeUserDenial},
		11: {loop.EdgeAllow, loop.EdgeUserApproval},
		12: {loop.EdgeToolFailure},
		13: {loop.EdgeToolSuccess},
		15: {loop.EdgeNextToolCall},
		16: {loop.EdgeObserved},
	}
}

// labelRow says on which row of the picture arc a's label is written (-1:
// none).
func labelRow(a loop.Arc) int {
	for r, edges := range labelRows() {
		if slices.Contains(edges, a.Edge) {
			return r
		}
	}
	return -1
}

// FullWidth and FullHeight are the smallest pane in which the full drawing
// fits: the picture plus a blank line, one line for the last transition and
// one for what is happening now.
const (
	FullWidth  = 56
	FullHeight = 20
)
