package diagram

import (
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// explanations say in one plain line what happens in each state: the
// diagram's "what is happening now" line and the predict dialog's
// question. The English is the catalog's key; TestEveryStateIsExplained
// checks that each state has one, with Japanese.
var explanations = map[loop.State]string{
	loop.WaitingForEvent:          "Waiting for an event: type a request; once one is queued, the next step takes it (new_event).",
	loop.AssemblingContext:        "Assembling context: system prompt + history + tool definitions + the latest event.",
	loop.AwaitingLLMResponse:      "THINK: the context is assembled; the next step sends it to the model and waits for the reply.",
	loop.CheckingPolicy:           "Security layer: the rules decide ALLOW, DENY or ask the person.",
	loop.AwaitingUserConfirmation: "A rule asked for a person: approve or deny this exact call.",
	loop.ExecutingTool:            "ACT: the tool runs inside the workspace sandbox.",
	loop.RecordingResult:          "OBSERVE: the tool's result is added to the context.",
	loop.RecordingError:           "OBSERVE (error): the problem is written into the context so the model can repair itself.",
	loop.DeliveringOutput:         "The final answer goes back to whoever sent the event.",
	loop.Halted:                   "Halted: the iteration limit or a provider failure stopped this event.",
}

// outside say the same for an agent glassbox only sees from outside,
// through a tap: what its model calls show, and what they do not.
var outside = map[loop.State]string{
	loop.WaitingForEvent:          "Waiting for the agent's next model call: its person talks to it in its own terminal.",
	loop.AssemblingContext:        "The agent assembled its request: what it sends is in the Raw payload.",
	loop.AwaitingLLMResponse:      "THINK: the agent's request goes to the model; the tap holds it until space, then the reply.",
	loop.CheckingPolicy:           "The agent decides on its tool calls itself: a tap sees no rule, only the result its next request carries.",
	loop.AwaitingUserConfirmation: "The agent may ask its person here: a tap does not see that.",
	loop.ExecutingTool:            "ACT: the agent runs the tool itself, out of the tap's sight.",
	loop.RecordingResult:          "OBSERVE: the tool's result came back in the agent's next request.",
	loop.RecordingError:           "OBSERVE (error): the agent sent back a failure, or no result for a call.",
	loop.DeliveringOutput:         "The agent shows the answer to its person: a tap does not see that.",
	loop.Halted:                   "The call failed: the agent deals with it itself (it may retry).",
}

// ExplainOutside is Explain for an agent seen from outside (a tap).
func ExplainOutside(l lang.Lang, s loop.State) string {
	if e, ok := outside[s]; ok {
		return l.Dyn(e)
	}
	return string(s)
}

// Explain is a one-line, plain-language account of what happens in state
// s, in language l; a state the table lacks is shown by its name.
func Explain(l lang.Lang, s loop.State) string {
	if e, ok := explanations[s]; ok {
		return l.Dyn(e)
	}
	return string(s)
}
