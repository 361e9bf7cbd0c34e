// Package ollama is the Llama provider: it talks to an Ollama server through
// the official github.com/ollama/ollama/api client, in one of two tool modes.
// JSON mode (the default, the seed project's design) describes the tools in
// the system prompt and parses the JSON reply the model writes; native mode
// uses Ollama's own "tools" field and "tool_calls" replies. Every call streams
// and goes through the wire-capture transport, so the learner sees the exact
// bytes of both.
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// DefaultModel is the model the workshop uses: `ollama pull llama3.1:8b`.
const DefaultModel = "llama3.1:8b"

// Tool modes.
const (
	// ToolModeJSON describes the tools in the system prompt and asks for one
	// JSON object per reply.
	ToolModeJSON = "json"
	// ToolModeNative sends Ollama's "tools" field and reads "tool_calls".
	ToolModeNative = "native"
)

// Config says which model to run where, and how to offer it tools.
type Config struct {
	// Model is an Ollama model name; empty means DefaultModel.
	Model string
	// Host is the Ollama base URL in any form OLLAMA_HOST accepts; empty
	// means HostFromEnv.
	Host string
	// ToolMode is ToolModeJSON (the default when empty) or ToolModeNative.
	ToolMode string
	// Transport is the HTTP transport under the capture layer: the offline
	// simulation or a replay cassette plugs in here. Nil means the default.
	Transport http.RoundTripper
	// Schema, in JSON mode, sends the reply's JSON Schema as "format"
	// instead of "json", so Ollama constrains the model to the exact shape.
	Schema bool
	// OnExchange, when set, receives every completed exchange (redacted),
	// as Gemini's does: cassette recording uses it.
	OnExchange func(providers.Exchange)
	// Call holds the limits on each call, streamed or not
	// (`--stream=false` sends "stream": false), and the bound on a reply:
	// NumPredict 0 sends DefaultNumPredict, -1 sends none.
	Call providers.CallOptions
}

// DefaultNumPredict is providers.DefaultNumPredict: the bound on a reply
// when Config.Call says none.
const DefaultNumPredict = providers.DefaultNumPredict

// Provider calls Llama through Ollama. It is safe for concurrent use: each
// call records its own exchanges.
type Provider struct {
	model      string
	host       string
	toolMode   string
	schema     bool
	unary      bool
	numPredict int // 0: none sent
	client     *api.Client
}

// New checks cfg and builds a Provider. It does not contact the server; see
// Probe for that.
func New(cfg Config) (*Provider, error) {
	p := &Provider{model: cfg.Model, toolMode: cfg.ToolMode, schema: cfg.Schema, unary: cfg.Call.Unary}
	switch n := cfg.Call.NumPredict; {
	case n == 0:
		p.numPredict = DefaultNumPredict
	case n > 0:
		p.numPredict = n
	case n != -1:
		return nil, fmt.Errorf("num_predict %d: want a number of tokens, or -1 for no bound", n)
	}
	if p.model == "" {
		p.model = DefaultModel
	}
	switch p.toolMode {
	case "":
		p.toolMode = ToolModeJSON
	case ToolModeJSON, ToolModeNative:
	default:
		return nil, fmt.Errorf("unknown Llama tool mode %q: use %q or %q", cfg.ToolMode, ToolModeJSON, ToolModeNative)
	}

	host := cfg.Host
	if host == "" {
		host, _ = HostFromEnv()
	}
	base, err := NormalizeHost(host)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("the Ollama address %q is not a valid URL: %w", host, err)
	}
	p.host = base
	capture := providers.NewTransport(cfg.Transport)
	capture.OnExchange = cfg.OnExchange
	capture.Limits = cfg.Call.Limits
	p.client = api.NewClient(u, &http.Client{Transport: capture})
	return p, nil
}

// Name is the provider's name in the UI and the trace.
func (p *Provider) Name() string { return Name }

// Model is the Ollama model name.
func (p *Provider) Model() string { return p.model }

// ThroughCapture says every call goes through the wire capture (loop.Previewable).
func (p *Provider) ThroughCapture() {}

// Host is the Ollama base URL the provider talks to.
func (p *Provider) Host() string { return p.host }

// ToolMode is ToolModeJSON or ToolModeNative.
func (p *Provider) ToolMode() string { return p.toolMode }

// Call sends one chat request and reads the streamed reply. The Response
// carries every HTTP exchange; it is non-nil, even with an error, whenever
// the request reached the transport.
func (p *Provider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	chat, err := p.chatRequest(req)
	if err != nil {
		return nil, providers.Errorf(providers.KindBadRequest, 0, err,
			"glassbox could not build the Ollama request: %v.", err)
	}

	rec := &providers.Recorder{}
	var stream streamReader
	callErr := p.client.Chat(providers.WithRecorder(ctx, rec), chat, stream.add)

	exchanges := rec.Exchanges()
	var last *providers.Exchange
	if len(exchanges) > 0 {
		last = &exchanges[len(exchanges)-1]
	}
	incomplete := false
	if callErr == nil {
		callErr, incomplete = unfinished(last, stream.done)
	}
	if callErr != nil {
		perr := explainError(ctx, callErr, callFacts{host: p.host, model: p.model, last: last})
		if len(exchanges) == 0 {
			return nil, perr
		}
		return &providers.Response{Exchanges: exchanges}, perr
	}

	resp := &providers.Response{
		FinishReason: stream.final.DoneReason,
		Usage: providers.Usage{
			InputTokens:  stream.final.PromptEvalCount,
			OutputTokens: stream.final.EvalCount,
		},
		Duration:  stream.final.TotalDuration,
		Exchanges: exchanges,
	}
	if p.toolMode == ToolModeJSON {
		p.readJSONReply(resp, stream.message(), incomplete)
	} else {
		p.readNativeReply(resp, stream.message(), incomplete)
	}
	return resp, nil
}

// unfinished is the failure of a call the v0.17.4 client returned no error
// for: an error status with an empty body, or a stream that stopped before
// done:true. Such a stream either was cut (the capture saw a read error:
// unexpected EOF, reset) or was ended on purpose by the server with a clean
// end of body (Ollama's token-repeat stop: incomplete, no error). A body
// that stops in the middle of a line was not ended by the server: the
// client gave up on it, as v0.17.4 does on a line over its 8 MiB buffer,
// and says nothing.
func unfinished(last *providers.Exchange, done bool) (err error, incomplete bool) {
	switch {
	case last != nil && last.Status >= http.StatusBadRequest:
		return api.StatusError{StatusCode: last.Status, Status: http.StatusText(last.Status)}, false
	case done:
		return nil, false
	case last != nil && providers.LimitFailure(last.Err) != nil:
		return providers.LimitFailure(last.Err), false // stalled, or too long
	case last != nil && last.Err != "":
		return streamCut{cause: last.Err}, false
	case last != nil && len(last.ResponseBody) > 0 && !bytes.HasSuffix(last.ResponseBody, []byte("\n")):
		return providers.Errorf(providers.KindOther, last.Status, nil,
			"the Ollama client stopped reading in the middle of a reply line, %d bytes in, without an error (it gives up on a line longer than its 8 MiB buffer); the raw payload shows what arrived.", len(last.ResponseBody)), false
	}
	return nil, true
}

// chatRequest builds the Ollama request for one call. The stream field is
// left unset (the server streams, and the client reads line by line)
// unless the calls are unary. num_predict bounds the reply, so a model that
// never stops cannot write for ever; it shows in the payload pane.
func (p *Provider) chatRequest(req providers.Request) (*api.ChatRequest, error) {
	chat := &api.ChatRequest{
		Model:   p.model,
		Options: map[string]any{"temperature": 0},
	}
	if p.numPredict > 0 {
		chat.Options["num_predict"] = p.numPredict
	}
	if p.unary {
		chat.Stream = new(bool)
	}
	var err error
	if p.toolMode == ToolModeJSON {
		chat.Messages, err = jsonModeMessages(req.System, req.Tools, req.Messages)
		chat.Format = json.RawMessage(`"json"`)
		if p.schema {
			chat.Format = ReplySchema(req.Tools)
		}
	} else {
		chat.Messages, err = nativeMessages(req.System, req.Messages)
		if err == nil {
			chat.Tools, err = nativeTools(req.Tools)
		}
	}
	if err != nil {
		return nil, err
	}
	return chat, nil
}

// readJSONReply parses the text of a JSON-mode reply into the Response. A
// reply that breaks the rules sets Malformed; the loop tells the model.
//
// incomplete says the stream ended without its done:true line (Ollama's
// token-repeat stop): an object that is complete all the same is used, with
// the stop noted in the parse outcome; anything else comes back Malformed
// with what Ollama did.
func (p *Provider) readJSONReply(resp *providers.Response, msg api.Message, incomplete bool) {
	raw, _ := json.Marshal(msg.Content) // a string always marshals
	resp.Message = history.Message{
		Role:   history.RoleAssistant,
		Native: &history.Native{Provider: NativeLlamaJSON, Data: raw},
	}

	reply, step := ParseReply(msg.Content)
	resp.Parse = step
	if reply == nil {
		resp.Message.Text = msg.Content
		resp.Message.Thought = msg.Thinking
		cut := resp.FinishReason == "length"
		resp.Malformed = malformedFeedback(step.Error, cut)
		resp.StopReason = providers.StopEndTurn
		resp.Fault = "unusable the same way: " + parseErrorKind(step.Error)
		switch {
		case incomplete:
			resp.StopReason = providers.StopIncomplete
			resp.Malformed = repeatStopFeedback(len(msg.Content)) + "\n" + resp.Malformed
			resp.Fault = faultRepeatStop
		case cut:
			resp.StopReason = providers.StopMaxTokens
			resp.Fault = "cut off at the token limit (done_reason length) before the JSON object was complete"
		}
		return
	}
	if incomplete {
		step.Outcome += " (Ollama ended the stream without done:true — its token-repeat stop — after this object)"
	}

	resp.Message.Thought = joinThoughts(msg.Thinking, reply.Thought)
	if reply.ToolCall != nil {
		// JSON mode has no call ids; the loop matches results by order.
		resp.Message.ToolCalls = []history.ToolCall{{Name: reply.ToolCall.Name, Args: reply.ToolCall.Input}}
		resp.StopReason = providers.StopToolUse
		return
	}
	resp.Message.Text = reply.Response
	resp.StopReason = providers.StopEndTurn
}

// readNativeReply copies a native-mode reply into the Response, keeping the
// api.Message itself for an unchanged replay.
//
// A reply that is not a usable answer comes back Malformed, never as a final
// answer: one the server ended without done:true (incomplete), one cut at
// the token limit where a tool call was being written (Ollama sends an
// unfinished call as plain text), and an empty one. Its partial tool calls
// are dropped, so the history never holds a call without a result.
func (p *Provider) readNativeReply(resp *providers.Response, msg api.Message, incomplete bool) {
	cut := resp.FinishReason == "length"
	var malformed string
	switch {
	case incomplete:
		resp.Fault = faultRepeatStop
		malformed = repeatStopFeedback(len(msg.Content))
		if msg.Content == "" && len(msg.ToolCalls) == 0 {
			malformed += " None of it arrived: in native mode Ollama holds back text that looks like a tool call until the call is complete."
		}
		malformed += " Try again, more briefly."
	case cut && looksLikeToolCall(msg.Content):
		resp.Fault = "tool calls cut off at the token limit (done_reason length)"
		malformed = "Your tool call was cut off at the token limit (done_reason length) before it was complete, so nothing was run: " +
			snippet(msg.Content, 0, 0, 120) + ". Call the tool again with shorter arguments."
	case strings.TrimSpace(msg.Content) == "" && len(msg.ToolCalls) == 0:
		resp.Fault = "empty: no text and no tool call"
		malformed = fmt.Sprintf("Your last reply was empty (done_reason %s): no text and no tool call. Call a tool, or give your final answer as text.", orNone(resp.FinishReason))
	}
	if malformed != "" {
		msg.ToolCalls = nil
	}
	native, err := json.Marshal(msg)
	if err != nil {
		native = nil // replay falls back to the neutral fields
	}
	resp.Message = history.Message{
		Role:    history.RoleAssistant,
		Text:    msg.Content,
		Thought: msg.Thinking,
	}
	if native != nil {
		resp.Message.Native = &history.Native{Provider: NativeLlamaNative, Data: native}
	}
	resp.Message.ToolCalls = nativeCalls(msg.ToolCalls)
	resp.Malformed = malformed
	switch {
	case incomplete:
		resp.StopReason = providers.StopIncomplete
	case len(resp.Message.ToolCalls) > 0:
		resp.StopReason = providers.StopToolUse
	case cut:
		resp.StopReason = providers.StopMaxTokens
	default:
		resp.StopReason = providers.StopEndTurn
	}
}

// nativeCalls are a native-mode reply's tool calls, their arguments in
// the model's key order.
func nativeCalls(tcs []api.ToolCall) []history.ToolCall {
	var out []history.ToolCall
	for _, tc := range tcs {
		args, err := json.Marshal(tc.Function.Arguments) // keeps the model's key order
		if err != nil {
			args = []byte(`{}`)
		}
		out = append(out, history.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: args})
	}
	return out
}

// faultRepeatStop is the Fault of a reply Ollama's repeat limit ended.
const faultRepeatStop = "stopped by Ollama's repeat limit"

// parseErrorKind is the kind of a JSON-mode parse error without its
// particulars (offsets, quotes, keys), so two replies that broke the same
// rule compare equal: `invalid JSON at offset`, `reply has neither
// "tool_call" nor "response"`.
func parseErrorKind(err string) string {
	if i := strings.IndexAny(err, "(;:0123456789"); i > 0 {
		err = err[:i]
	}
	return strings.TrimSpace(err)
}

// repeatStopFeedback says what Ollama did when its stream ended cleanly
// without done:true.
func repeatStopFeedback(chars int) string {
	return fmt.Sprintf("Your last reply was stopped by Ollama after %d characters: the stream ended without its final done:true line and without an error, which is what Ollama does when the model writes the same token more than 30 times in a row (its token-repeat limit).", chars)
}

// looksLikeToolCall reports whether text a native-mode model wrote is the
// start of a tool call Ollama could not parse: JSON, or a tool-call tag.
func looksLikeToolCall(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "<") ||
		strings.Contains(t, `"name"`) || strings.Contains(t, "tool_call")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// joinThoughts combines the server-side thinking (thinking models only) and
// the reply's own "thought".
func joinThoughts(thinking, thought string) string {
	thinking, thought = strings.TrimSpace(thinking), strings.TrimSpace(thought)
	switch {
	case thinking == "":
		return thought
	case thought == "":
		return thinking
	}
	return thinking + "\n\n" + thought
}

// streamReader accumulates a streamed chat reply. Ollama sends the text in
// pieces, thinking in pieces, each tool call whole in some line, and the
// metrics in the last line, the one with done:true.
type streamReader struct {
	content  strings.Builder
	thinking strings.Builder
	calls    []api.ToolCall
	done     bool
	final    api.ChatResponse
}

// add is the client's per-line callback. Lines after done:true would be a
// server bug; they are ignored rather than merged into a finished reply.
func (s *streamReader) add(r api.ChatResponse) error {
	if s.done {
		return nil
	}
	s.content.WriteString(r.Message.Content)
	s.thinking.WriteString(r.Message.Thinking)
	s.calls = append(s.calls, r.Message.ToolCalls...)
	if r.Done {
		s.done = true
		s.final = r
	}
	return nil
}

// message is the whole assistant message the stream carried.
func (s *streamReader) message() api.Message {
	return api.Message{
		Role:      "assistant",
		Content:   s.content.String(),
		Thinking:  s.thinking.String(),
		ToolCalls: s.calls,
	}
}
