package loop

import (
	"context"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/tools"
)

// Provider is what the loop needs from a model: one call per iteration.
// Implementations live under providers/. Call returns a non-nil Response
// whenever anything reached the wire, even together with an error; errors
// should be *providers.Error so the loop can tell transient from final.
type Provider interface {
	Name() string  // the provider family the trace names (llm.provider); providers/backend lists them
	Model() string // the model id
	Call(ctx context.Context, req providers.Request) (*providers.Response, error)
}

// Event is something for the agent to act on: {source, type, data}.
type Event struct {
	Source string `json:"source"` // "ui", "cli", "mcp_bus"
	Type   string `json:"type"`   // "user_input", "mcp_message"
	Data   string `json:"data"`
	// Ref names the request the event answers, for a source that has
	// several waiting at once (the MCP bus: one per tools/call); the
	// event's Output carries it back.
	Ref string `json:"ref,omitempty"`
	// From says who sent the event when its source cannot tell alone (the
	// MCP bus: the calling client's name and version, and how it came).
	From string `json:"from,omitempty"`
}

// Output is what the loop sends back to an event's source: the final answer,
// or the reason it halted.
type Output struct {
	Target string `json:"target"`
	Text   string `json:"text"`
	// Halted is true when Text reports a failure rather than an answer.
	Halted bool `json:"halted,omitempty"`
	// Ref is the Ref of the event this output answers.
	Ref string `json:"ref,omitempty"`
	// Refused lists, in order, every tool call of this event that the
	// security policy or the person denied ("write_file denied by rule
	// NAME: reason", "write_file: The person denied this call."), secrets
	// masked: a source that must say a run was refused (the MCP bus answers
	// with an error result) reads it here.
	Refused []string `json:"refused,omitempty"`
}

// OutputFunc receives the outputs for one event source.
type OutputFunc func(Output)

// Approval is a person's answer to a confirmation request.
type Approval int

const (
	Deny         Approval = iota // do not run the call
	AllowOnce                    // run it this time
	AllowSession                 // run it, and this exact call (tool + arguments) for the rest of the session
)

func (a Approval) String() string {
	switch a {
	case AllowOnce:
		return "allow once"
	case AllowSession:
		return "allow this exact call for the session"
	}
	return "deny"
}

// ConfirmRequest is what the security layer puts to the person.
type ConfirmRequest struct {
	Call     history.ToolCall
	Decision Decision
	// Preview shows what the call would do: a diff for write_file, the
	// command and folder for execute_command.
	Preview string
}

// Person is whoever answers confirmations and questions: the headless CLI on
// stdin, the TUI's modals, or a test. Both calls block until answered or ctx
// ends. Approval only ever comes from here, never from model text.
type Person interface {
	Confirm(ctx context.Context, req ConfirmRequest) (Approval, error)
	tools.Asker
}

// Transition is the record of one Step: the trace line, the session entry and
// what the UI draws. Fields other than the first six are set where they apply.
type Transition struct {
	// Run names the run in compare mode (its dialect's name); empty otherwise.
	Run       string    `json:"run,omitempty"`
	Seq       int       `json:"seq"`
	Time      time.Time `json:"time"`
	From      State     `json:"from"`
	To        State     `json:"to"`
	Edge      Edge      `json:"edge"`
	Iteration int       `json:"iteration"`

	Event    *Event            `json:"event,omitempty"`
	LLM      *LLMRecord        `json:"llm,omitempty"`
	Tool     *history.ToolCall `json:"tool,omitempty"`
	Decision *Decision         `json:"decision,omitempty"`
	Result   *ResultRecord     `json:"result,omitempty"`
	Error    *ErrorRecord      `json:"error,omitempty"`
	Output   *Output           `json:"output,omitempty"`
	// Edited marks a provider call whose context a person replaced before
	// it was sent (what-if).
	Edited bool `json:"edited,omitempty"`
	// Edit says what the edit changed: the messages as sent, and how each
	// differs from the context as assembled.
	Edit *ContextEdit `json:"edit,omitempty"`
	// MCP are the JSON-RPC frames exchanged with MCP servers during this
	// step (docs/mcp.md): a tool call's request and response, and whatever
	// a server sent since the step before.
	MCP []tools.Frame `json:"mcp,omitempty"`
	// Inferred, on a step glassbox did not see but infers (the steps of a
	// foreign agent read from its HTTP exchanges, loop/outside: its own
	// approval, its running a tool, its showing the answer), says why it
	// is believed to have happened, in a sentence a screen can show
	// (translated by the front end). Empty on a step that was seen.
	Inferred string `json:"inferred,omitempty"`

	// Added are the messages this transition appended to history.
	Added []history.Message `json:"-"`
	// HistoryLen is the length of the history after this transition: the
	// checkpoint to return to. Notes of them are notes (RoleNote: what a
	// fork or an edit could not carry over), which are never sent to a
	// model: the context holds HistoryLen-Notes messages.
	HistoryLen int `json:"-"`
	Notes      int `json:"-"`
	// Exchanges are the raw HTTP exchanges of an LLM call (redacted).
	Exchanges []providers.Exchange `json:"-"`
	// ExchangesAt, on a step written to or read back from a session, is where its
	// exchanges are beside the session file (ExchangeReader.LoadAt), so a
	// screen can load payloads only around the step it shows.
	ExchangesAt *session.Span `json:"-"`
	// Parse is the JSON-mode parse step of an LLM call.
	Parse *providers.ParseStep `json:"-"`
	// Pending is this iteration's tool calls and how far each has got,
	// as of the end of this transition.
	Pending []PendingCall `json:"-"`
	// QueueLen is the number of events still waiting.
	QueueLen int `json:"-"`
}

// LLMRecord describes one provider call.
type LLMRecord struct {
	Provider      string             `json:"provider"`
	Backend       string             `json:"backend"`
	BackendReason string             `json:"backend_reason,omitempty"`
	Model         string             `json:"model"`
	StopReason    string             `json:"stop_reason,omitempty"`
	FinishReason  string             `json:"finish_reason,omitempty"`
	Text          string             `json:"text,omitempty"`
	Thought       string             `json:"thought,omitempty"`
	ToolCalls     []history.ToolCall `json:"tool_calls,omitempty"`
	Usage         providers.Usage    `json:"usage"`
	LatencyMS     int64              `json:"latency_ms"`
	// TotalMS is the whole call: every attempt and every wait between them.
	TotalMS int64 `json:"total_ms"`
	// ServerMS is the time the provider itself reported for the call
	// (Ollama's total_duration), beside the latency glassbox measured.
	ServerMS   int64   `json:"server_ms,omitempty"`
	HTTPStatus int     `json:"http_status,omitempty"`
	Retries    []Retry `json:"retries,omitempty"`
	// Divergences, on replay, say where a request differed from the
	// cassette's recording.
	Divergences []string `json:"divergences,omitempty"`
	// Resent marks a call sent again after glassbox stopped while it was
	// in flight (a crash).
	Resent bool `json:"resent,omitempty"`
	// Anatomy, in `glassbox run --json` records, is what the request was
	// made of and what it kept from the call before (providers/anatomy);
	// the engine leaves it nil, a front end that wants it fills it in.
	Anatomy *anatomy.Record `json:"anatomy,omitempty"`
}

// Retry is one retried provider call, visible before llm_failure.
type Retry struct {
	Attempt int    `json:"attempt"`
	Status  int    `json:"status,omitempty"`
	Reason  string `json:"reason"`
	WaitMS  int64  `json:"wait_ms"`
	// LatencyMS is how long that failed attempt took.
	LatencyMS int64 `json:"latency_ms"`
}

// ResultRecord is a tool's outcome as the trace shows it.
type ResultRecord struct {
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
	DurationMS int64  `json:"duration_ms"`
	// Sandbox, for execute_command, says whether the kernel's sandbox
	// confined the command: "on — Landlock ABI 7: …" or "off — reason".
	Sandbox string `json:"sandbox,omitempty"`
}

// ErrorRecord is a failure the loop handled: kind is one of "policy_denied",
// "user_denied", "tool_failure", "unknown_tool", "malformed_response",
// "llm_failure", "max_iterations", "interrupted".
type ErrorRecord struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Said is the provider's sentence in Message (history/sentence, its
	// values masked as Message is), for a front end that says it in
	// another language; nil when there is none. It is not in the trace:
	// a record read back from a session has only Message.
	Said error `json:"-"`
}

// CallStatus is how far a pending tool call has got.
type CallStatus string

const (
	CallPending CallStatus = "pending"
	CallWaiting CallStatus = "awaiting approval"
	CallRunning CallStatus = "running"
	CallDone    CallStatus = "done"
	CallFailed  CallStatus = "failed"
	CallDenied  CallStatus = "denied"
	CallSkipped CallStatus = "not run" // an earlier call of the batch was interrupted
)

// PendingCall is one tool call of the current iteration, as the Tool calls
// pane shows it.
type PendingCall struct {
	Call     history.ToolCall `json:"call"`
	Decision *Decision        `json:"decision,omitempty"`
	// Approval is the person's answer when the policy asked for one.
	Approval *Approval     `json:"approval,omitempty"`
	Status   CallStatus    `json:"status"`
	Result   *ResultRecord `json:"result,omitempty"`
}
