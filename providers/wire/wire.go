// Package wire reads what a model call's bytes say, in every dialect
// glassbox speaks, from the bytes themselves rather than through an SDK: the
// request as a dialect-neutral Request (the conversation as history
// messages, the tools, the settings, and Segments that cut the body into its
// parts byte for byte) and the reply as a Response (text, tool calls, finish
// reason, usage), from a whole body or a stream. It reads any agent's
// calls, fields glassbox never sends included.
//
// Each dialect's package writes its own Codec and registers it on its
// dialect.Descriptor; providers/backend lists them (backend.Wire), and
// Codecs.Detect finds the codec of a call by its path. This package holds
// what the codecs share: the types, a JSON reader that keeps byte positions,
// the segment cutter and the framing of streamed replies.
package wire

import (
	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// SegmentKind says what part of a request a segment is.
type SegmentKind string

const (
	// KindSystem is the system instructions.
	KindSystem SegmentKind = "system"
	// KindTool is one tool declaration (in JSON mode: a tool's paragraph
	// of the system prompt).
	KindTool SegmentKind = "tool"
	// KindUser is a person's message from earlier turns.
	KindUser SegmentKind = "user"
	// KindModelText is an earlier model turn with text only.
	KindModelText SegmentKind = "model_text"
	// KindModelCall is an earlier model turn that calls tools.
	KindModelCall SegmentKind = "model_call"
	// KindToolResult is a tool result from earlier turns.
	KindToolResult SegmentKind = "tool_result"
	// KindInput is the new input: the messages after the model's last turn
	// (the person's new message, or the results of the calls it made).
	KindInput SegmentKind = "input"
	// KindSettings is a member that sets how the call runs: the model,
	// streaming, generation settings, tool choice, safety settings, and
	// any member the codec does not know.
	KindSettings SegmentKind = "settings"
	// KindFraming is the JSON no part owns: braces, brackets, commas, the
	// keys of the arrays that hold the parts, white space.
	KindFraming SegmentKind = "framing"
)

// SegmentKinds lists the kinds in the order a view presents them.
var SegmentKinds = []SegmentKind{KindSystem, KindTool, KindUser, KindModelText, KindModelCall, KindToolResult, KindInput, KindSettings, KindFraming}

// Segment is one part of a request body. A request's segments cover its
// body exactly, in order, without gaps or overlaps.
type Segment struct {
	Span
	Kind SegmentKind `json:"kind"`
	// Label names the part as the wire names it — a tool's name, a JSON
	// key, a message's role — never a sentence; a view words it.
	Label string `json:"label,omitempty"`
	// Message is the index in Request.Messages of the message this segment
	// carries; -1 when it carries none.
	Message int `json:"message"`
	// Tool is the index in Request.Tools of the declaration; -1 when none.
	Tool int `json:"tool"`
}

// Setting is one generation setting as the body wrote it.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"` // the JSON value, as written
}

// Request is a model call's request body, decoded.
type Request struct {
	// Family is the API family: "gemini", "openai", "ollama".
	Family string `json:"family"`
	// Dialect is the dialect glassbox would name it ("gemini", "llama",
	// "llama:native", "openai"), told from the body: a Llama request with
	// a "format" and no "tools" is JSON mode. "" when none fits (a plain
	// /api/generate call).
	Dialect string `json:"dialect,omitempty"`
	// Endpoint is the call: "generateContent", "streamGenerateContent",
	// "chat/completions", "api/chat", "api/generate".
	Endpoint string `json:"endpoint"`
	Model    string `json:"model,omitempty"`
	Stream   bool   `json:"stream"`
	System   string `json:"system,omitempty"`
	// Tools are the declarations, each with its parameters' schema as the
	// body wrote it (ToolSpec.Schema).
	Tools    []history.ToolSpec `json:"tools,omitempty"`
	Messages []history.Message  `json:"messages,omitempty"`
	// Input is the index of the first message of the new input (the
	// messages after the model's last turn); len(Messages) when none.
	Input    int       `json:"input"`
	Settings []Setting `json:"settings,omitempty"`
	Segments []Segment `json:"segments"`
	Size     int       `json:"size"`
}

// Usage is the token accounting a reply reported.
type Usage struct {
	// Input is the prompt's tokens (Gemini promptTokenCount plus
	// toolUsePromptTokenCount, OpenAI prompt_tokens, Ollama
	// prompt_eval_count).
	Input int `json:"input"`
	// Output counts thinking tokens too, as providers.Usage does.
	Output int `json:"output"`
	// Cached is the part of Input the provider served from its prompt
	// cache (Gemini cachedContentTokenCount, OpenAI
	// prompt_tokens_details.cached_tokens); CachedReported says the reply
	// said so (Ollama never does).
	Cached         int  `json:"cached,omitempty"`
	CachedReported bool `json:"cached_reported,omitempty"`
	Thoughts       int  `json:"thoughts,omitempty"`
	Total          int  `json:"total,omitempty"`
}

// APIError is an error the service answered with.
type APIError struct {
	Status int `json:"status"`
	// Code is the service's own name for it ("RESOURCE_EXHAUSTED",
	// "invalid_request_error"); "" when it gave none.
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Why a reply is not complete (Response.Cut).
const (
	// CutTransport: the connection failed in the middle (Response.Transport
	// says how).
	CutTransport = "transport"
	// CutPartialRecord: the body stopped inside its last record.
	CutPartialRecord = "partial_record"
	// CutNoEnd: every record is whole, but the last one the dialect ends a
	// reply with (a finishReason, done:true, a finish_reason) never came.
	CutNoEnd = "no_end"
)

// Response is a model call's reply, decoded.
type Response struct {
	Family       string             `json:"family"`
	Model        string             `json:"model,omitempty"`
	Text         string             `json:"text,omitempty"`
	Thought      string             `json:"thought,omitempty"`
	ToolCalls    []history.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string             `json:"finish_reason,omitempty"`
	// Usage is nil when the reply reported none.
	Usage *Usage    `json:"usage,omitempty"`
	Error *APIError `json:"error,omitempty"`
	// Stream says the reply came as records (SSE events, NDJSON lines);
	// Records is how many.
	Stream  bool `json:"stream"`
	Records int  `json:"records"`
	// Complete says the reply ended as the dialect ends one. When not, Cut
	// says why (CutTransport, CutPartialRecord, CutNoEnd) and Transport
	// holds the transport's error.
	Complete  bool   `json:"complete"`
	Cut       string `json:"cut,omitempty"`
	Transport string `json:"transport,omitempty"`
	// Problem is the first record that could not be read, in the JSON
	// decoder's words ("" when every record was read).
	Problem string `json:"problem,omitempty"`
	// Malformed, in a dialect whose tool calls are written in the text
	// (Llama's JSON mode), is why the text is not the reply the prompt
	// asked for, in the parser's words; "" otherwise.
	Malformed string `json:"malformed,omitempty"`
}

// StopReason is the loop's neutral reading of the reply.
func (r *Response) StopReason() providers.StopReason {
	switch {
	case len(r.ToolCalls) > 0:
		return providers.StopToolUse
	case !r.Complete:
		return providers.StopIncomplete
	case r.FinishReason == "MAX_TOKENS" || r.FinishReason == "length":
		return providers.StopMaxTokens
	}
	return providers.StopEndTurn
}

// Failed is called by a codec once it has read a reply: an error status
// whose body named no error of the codec's shape becomes an APIError with
// the start of the body as its message; an error ends a reply.
func (r *Response) Failed(rep Reply) {
	if r.Error == nil && rep.Status >= 400 {
		msg := ""
		if len(rep.Docs) > 0 {
			msg = string(rep.Docs[0])
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
		}
		r.Error = &APIError{Status: rep.Status, Message: msg}
	}
	if r.Error != nil {
		if r.Error.Status == 0 {
			r.Error.Status = rep.Status
		}
		r.Complete = true
	}
}

// Note records the first record that could not be read.
func (r *Response) Note(err error) {
	if err != nil && r.Problem == "" {
		r.Problem = err.Error()
	}
}
