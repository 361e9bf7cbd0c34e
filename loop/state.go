// Package loop is the agent engine: the Think → Act → Observe loop written as
// an explicit state machine. Each call to Engine.Step performs exactly one
// transition and returns its record; nothing else changes engine state. The
// package also holds the event queue, the security layer (Policy) and the
// iteration limit.
package loop

// State is a node of the state machine. The names are exact: the diagram,
// the trace and the docs use them.
type State string

const (
	WaitingForEvent          State = "WAITING_FOR_EVENT"
	AssemblingContext        State = "ASSEMBLING_CONTEXT"
	AwaitingLLMResponse      State = "AWAITING_LLM_RESPONSE"
	CheckingPolicy           State = "CHECKING_POLICY"
	AwaitingUserConfirmation State = "AWAITING_USER_CONFIRMATION"
	ExecutingTool            State = "EXECUTING_TOOL"
	RecordingResult          State = "RECORDING_RESULT"
	RecordingError           State = "RECORDING_ERROR"
	DeliveringOutput         State = "DELIVERING_OUTPUT"
	Halted                   State = "HALTED"
)

// States lists every state in the order the docs present them.
var States = []State{
	WaitingForEvent, AssemblingContext, AwaitingLLMResponse, CheckingPolicy,
	AwaitingUserConfirmation, ExecutingTool, RecordingResult, RecordingError,
	DeliveringOutput, Halted,
}

// Edge is the name of a transition.
type Edge string

const (
	EdgeNewEvent          Edge = "new_event"
	EdgeContextReady      Edge = "context_ready"
	EdgeMaxIterations     Edge = "max_iterations"
	EdgeToolCall          Edge = "tool_call"
	EdgeFinalAnswer       Edge = "final_answer"
	EdgeMalformedResponse Edge = "malformed_response"
	EdgeLLMFailure        Edge = "llm_failure"
	EdgeAllow             Edge = "allow"
	EdgeDeny              Edge = "deny"
	EdgeConfirmRequired   Edge = "confirm_required"
	EdgeUserApproval      Edge = "user_approval"
	EdgeUserDenial        Edge = "user_denial"
	EdgeToolSuccess       Edge = "tool_success"
	EdgeToolFailure       Edge = "tool_failure"
	EdgeNextToolCall      Edge = "next_tool_call"
	EdgeObserved          Edge = "observed"
	EdgeDelivered         Edge = "delivered"
	EdgeReported          Edge = "reported"
)

// Arc is one row of the transition table.
type Arc struct {
	From State
	Edge Edge
	To   State
}

// Table is the state machine, row by row, exactly as docs/architecture.md, "The state machine", draws it. The
// engine refuses any transition that is not in it.
var Table = []Arc{
	{WaitingForEvent, EdgeNewEvent, AssemblingContext},
	{AssemblingContext, EdgeContextReady, AwaitingLLMResponse},
	{AssemblingContext, EdgeMaxIterations, Halted},
	{AwaitingLLMResponse, EdgeToolCall, CheckingPolicy},
	{AwaitingLLMResponse, EdgeFinalAnswer, DeliveringOutput},
	{AwaitingLLMResponse, EdgeMalformedResponse, RecordingError},
	{AwaitingLLMResponse, EdgeLLMFailure, Halted},
	{CheckingPolicy, EdgeAllow, ExecutingTool},
	{CheckingPolicy, EdgeDeny, RecordingError},
	{CheckingPolicy, EdgeConfirmRequired, AwaitingUserConfirmation},
	{AwaitingUserConfirmation, EdgeUserApproval, ExecutingTool},
	{AwaitingUserConfirmation, EdgeUserDenial, RecordingError},
	{ExecutingTool, EdgeToolSuccess, RecordingResult},
	{ExecutingTool, EdgeToolFailure, RecordingError},
	{RecordingResult, EdgeNextToolCall, CheckingPolicy},
	{RecordingResult, EdgeObserved, AssemblingContext},
	{RecordingError, EdgeNextToolCall, CheckingPolicy},
	{RecordingError, EdgeObserved, AssemblingContext},
	{DeliveringOutput, EdgeDelivered, WaitingForEvent},
	{Halted, EdgeReported, WaitingForEvent},
}

// Target returns where edge leads from state, and whether the table has
// that arc.
func Target(from State, edge Edge) (State, bool) {
	for _, a := range Table {
		if a.From == from && a.Edge == edge {
			return a.To, true
		}
	}
	return "", false
}
