// Package providers holds what every model provider shares: the neutral
// request and response the agent loop speaks, the HTTP exchanges captured on
// the wire, and the errors a learner can act on. The implementations live in
// sub-packages (gemini, ollama, offline); the loop declares the small
// interface it needs.
package providers

import (
	"net/http"
	"time"

	"github.com/glassbox-dev/glassbox/history"
)

// Request is one provider call: everything the model sees this iteration.
type Request struct {
	System   string
	Messages []history.Message
	Tools    []history.ToolSpec
}

// StopReason is the loop's neutral reading of why the model stopped.
type StopReason string

const (
	// StopToolUse: the reply contains at least one tool call.
	StopToolUse StopReason = "tool_use"
	// StopEndTurn: the reply is a final answer (no tool calls).
	StopEndTurn StopReason = "end_turn"
	// StopMaxTokens: the reply was cut at the token limit (Ollama's
	// done_reason "length", Gemini's finishReason MAX_TOKENS). A cut text
	// answer is still delivered, marked as cut; a cut tool call or an
	// empty reply comes back Malformed.
	StopMaxTokens StopReason = "max_tokens"
	// StopIncomplete: the server ended the reply without saying it was done
	// and without an error — Ollama's token-repeat stop closes the stream
	// cleanly with no done:true line. The reply is always Malformed.
	StopIncomplete StopReason = "incomplete"
)

// Usage is token accounting as the provider reported it.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// ThoughtsTokens is the part of OutputTokens the model spent thinking
	// (Gemini's thoughtsTokenCount), when the provider reports it.
	ThoughtsTokens int `json:"thoughts_tokens,omitempty"`
	// CachedTokens is the part of InputTokens the provider served from its
	// prompt cache (Gemini's cachedContentTokenCount, OpenAI's
	// prompt_tokens_details.cached_tokens), when it reports one.
	CachedTokens int `json:"cached_tokens,omitempty"`
}

// Response is what a provider call produced. A provider returns a non-nil
// Response whenever it got as far as the wire, even with an error, so the
// exchanges a learner wants to inspect are never lost.
type Response struct {
	// Message is the assistant turn to append to history, with Native set so
	// the provider can replay it unchanged.
	Message      history.Message
	StopReason   StopReason
	FinishReason string // the provider's raw reason: "STOP", "MAX_TOKENS", "stop", "length", ...
	Usage        Usage
	Exchanges    []Exchange
	// Malformed, when not empty, says exactly why the model's output could
	// not be used; the loop feeds it back so the model can repair itself.
	Malformed string
	// Fault names the kind of a Malformed reply in a few words that finish
	// "2 replies in a row were …" ("stopped by Ollama's repeat limit"): the
	// same words mean the same failure, which the loop feeds back only
	// once. Empty, the loop compares the stop and finish reasons.
	Fault string
	// Parse shows how JSON-mode text became a tool call (nil for native
	// function calling).
	Parse *ParseStep
	// Duration is the time the provider measured itself, if it reports one
	// (Ollama's total_duration); zero otherwise.
	Duration time.Duration
}

// ToolCalls is shorthand for Message.ToolCalls.
func (r *Response) ToolCalls() []history.ToolCall { return r.Message.ToolCalls }

// ParseStep is the JSON-mode parse pipeline: the raw text the model wrote,
// the JSON object extracted from it, and what came of it.
type ParseStep struct {
	Raw       string `json:"raw"`
	Extracted string `json:"extracted,omitempty"`
	Error     string `json:"error,omitempty"`
	// Outcome is a one-line summary: `tool_call read_file {...}`, `response`, or the error.
	Outcome string `json:"outcome"`
}

// Exchange is one HTTP request and its response as seen on the wire, with
// secrets already redacted.
type Exchange struct {
	Method         string              `json:"method"`
	URL            string              `json:"url"`
	RequestHeaders map[string][]string `json:"request_headers"`
	// WireHeaders are the request's header fields as the HTTP transport
	// wrote them on the wire, in order, each value redacted like
	// RequestHeaders: the SDK's headers and the ones the transport adds
	// (Host, User-Agent, Content-Length, Accept-Encoding: gzip). Absent
	// when no network transport wrote the request (offline, replay).
	WireHeaders     []WireHeader        `json:"wire_headers,omitempty"`
	RequestBody     []byte              `json:"request_body"`
	Status          int                 `json:"status"`
	ResponseHeaders map[string][]string `json:"response_headers,omitempty"`
	ResponseBody    []byte              `json:"response_body"`
	// Chunks are the response body as it arrived (one per record of a
	// stream, see Chunk), with the offset from the moment the request was
	// sent.
	Chunks []Chunk `json:"chunks,omitempty"`
	// TTFB is the time to the response headers; Total to the end of the body.
	TTFB  time.Duration `json:"ttfb_ns"`
	Total time.Duration `json:"total_ns"`
	// Redacted names every header, parameter or value that was masked.
	Redacted []string `json:"redacted,omitempty"`
	// RequestSize and ResponseSize, when set, are a body's whole length
	// where only its first part was kept (RequestBody, ResponseBody): the
	// call passed it on whole (glassbox tap).
	RequestSize  int64 `json:"request_size,omitempty"`
	ResponseSize int64 `json:"response_size,omitempty"`
	// Err is set when the exchange failed on the transport (no status).
	Err string `json:"error,omitempty"`
	// Divergence is set on replay when the request differs from the one
	// recorded in the cassette: what differed, in one sentence.
	Divergence string `json:"divergence,omitempty"`
}

// BodyBytes is about how much memory the exchange's bodies take: the
// request, the response and its chunks.
func (x Exchange) BodyBytes() int {
	n := len(x.RequestBody) + len(x.ResponseBody)
	for _, c := range x.Chunks {
		n += len(c.Data)
	}
	return n
}

// Records is how many records the response came in: for a stream (see
// Chunk) its chunks — SSE events, NDJSON lines — and for any other body 1,
// however many reads carried it (0 when nothing arrived). The compare strip
// counts these, so the number means the same for every dialect.
func (x Exchange) Records() int {
	if framingOf(http.Header(x.ResponseHeaders)) != byRead {
		return len(x.Chunks)
	}
	if len(x.ResponseBody) > 0 || len(x.Chunks) > 0 {
		return 1
	}
	return 0
}

// WireHeader is one request header field as the transport wrote it.
type WireHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Added marks a field the transport wrote itself, not one the SDK set
	// on the request.
	Added bool `json:"added,omitempty"`
}

// Chunk is one piece of a response body as it arrived. A streamed body
// (Ollama's NDJSON, server-sent events) is cut into its records — one
// NDJSON line, one SSE event — whatever the reads were, so a chunk means the
// same on every dialect; any other body is kept read by read.
type Chunk struct {
	// Offset is when the chunk was complete: the arrival of the read that
	// carried its last byte, from the moment the request was sent.
	Offset time.Duration `json:"offset_ns"`
	Data   []byte        `json:"data"`
	// Reads, when more than one, is how many reads carried the record: the
	// network split it. Start is when the first of them arrived.
	Reads int           `json:"reads,omitempty"`
	Start time.Duration `json:"start_ns,omitempty"`
}
