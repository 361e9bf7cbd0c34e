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

// Explain is a one-line, plain-language account of what happens in state
// s, in language l; a state the table lacks is shown by its name.
func Explain(l lang.Lang, s loop.State) string {
	if e, ok := explanations[s]; ok {
		return l.Dyn(e)
	}
	return string(s)
}
