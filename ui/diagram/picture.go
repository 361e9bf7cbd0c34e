package diagram

import "github.com/glassbox-dev/glassbox/loop"

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
// has its label on the row that labelRow gives.
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

// labelRow says on which row of the picture each arc's label is written.
// RECORDING_RESULT and RECORDING_ERROR share their two ways out, so their
// arcs share a label.
func labelRow(a loop.Arc) int {
	switch a.Edge {
	case loop.EdgeNewEvent, loop.EdgeReported:
		return 1
	case loop.EdgeMaxIterations:
		return 2
	case loop.EdgeContextReady:
		return 3
	case loop.EdgeLLMFailure:
		return 4
	case loop.EdgeFinalAnswer, loop.EdgeDelivered:
		return 5
	case loop.EdgeMalformedResponse:
		return 6
	case loop.EdgeToolCall:
		return 7
	case loop.EdgeDeny:
		return 8
	case loop.EdgeConfirmRequired:
		return 9
	case loop.EdgeUserDenial:
		return 10
	case loop.EdgeAllow, loop.EdgeUserApproval:
		return 11
	case loop.EdgeToolFailure:
		return 12
	case loop.EdgeToolSuccess:
		return 13
	case loop.EdgeNextToolCall:
		return 15
	case loop.EdgeObserved:
		return 16
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
