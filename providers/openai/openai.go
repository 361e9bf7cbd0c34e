// Package openai is the OpenAI-compatible provider: chat completions
// (POST /v1/chat/completions) through the github.com/sashabaranov/go-openai
// client (chosen over openai-go v3 by measurement: docs/architecture.md,
// "The binary"). It is the API llama.cpp's server,
// vLLM, LM Studio and Ollama's /v1 speak, so the same Llama can be reached
// behind two APIs and compared. Tools go as native "tools" and come back as
// "tool_calls"; every call streams server-sent events through the wire
// capture, so the learner sees each event as it arrived.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	goa "github.com/sashabaranov/go-openai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// Name is the provider's name in traces, sessions, cassettes and
// history.Native.
const Name = "openai"

// DefaultModel is the model asked for when --model names none: the
// workshop's Llama, as Ollama's /v1 and the offline simulation serve it.
const DefaultModel = "llama3.1:8b"

// Config says where the chat completions API is and which model to ask.
type Config struct {
	// BaseURL is the API's base, ending in /v1 (OPENAI_BASE_URL); empty
	// means OpenAI's own https://api.openai.com/v1.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers
	// need none). Placeholder says it only stands in for a key.
	APIKey      string
	Placeholder bool
	// Model is the model id; DefaultModel when empty.
	Model string
	// Transport is the HTTP transport under the wire capture: the offline
	// simulation or a cassette plugs in here. nil means the network.
	Transport http.RoundTripper
	// OnExchange, when set, receives every completed exchange (redacted):
	// cassette recording uses it.
	OnExchange func(providers.Exchange)
	// Secrets are more values to mask wherever they appear (every key the
	// environment holds).
	Secrets []string
	// Unary asks for one JSON body instead of a stream (no "stream": true).
	Unary bool
	// Call holds the limits on each call (--stall, --call-timeout) and
	// whether it is unary (--stream=false, as Unary).
	Call providers.CallOptions
}

// defaultBaseURL is OpenAI's own endpoint.
const defaultBaseURL = "https://api.openai.com/v1"

// Provider calls a chat completions API. It is safe for concurrent use:
// each call records its own exchanges.
type Provider struct {
	client  *goa.Client
	capture *providers.Transport
	model   string
	baseURL string
	unary   bool
}

// New builds a Provider without touching the network. The client is given
// every setting explicitly and never reads OPENAI_* itself: glassbox's
// config pipeline (.env, the environment, the flags) decides.
func New(cfg Config) (*Provider, error) {
	p := &Provider{model: cfg.Model, baseURL: strings.TrimRight(cfg.BaseURL, "/"), unary: cfg.Unary || cfg.Call.Unary}
	if p.model == "" {
		p.model = DefaultModel
	}
	if p.baseURL == "" {
		p.baseURL = defaultBaseURL
	}
	if !strings.HasPrefix(p.baseURL, "http://") && !strings.HasPrefix(p.baseURL, "https://") {
		return nil, providers.Errorf(providers.KindBadRequest, 0, nil,
			"OPENAI_BASE_URL %q is not an http:// or https:// address; write it as the server's base, e.g. http://localhost:11434/v1.", cfg.BaseURL)
	}
	secrets := cfg.Secrets
	if cfg.APIKey != "" && !cfg.Placeholder {
		secrets = append([]string{cfg.APIKey}, secrets...)
	}
	p.capture = providers.NewTransport(cfg.Transport, secrets...)
	p.capture.OnExchange = cfg.OnExchange
	p.capture.Limits = cfg.Call.Limits
	// An empty key sends no Authorization header. go-openai makes one
	// attempt per call: the loop retries, visibly, so a learner sees every
	// attempt.
	conf := goa.DefaultConfig(cfg.APIKey)
	conf.BaseURL = p.baseURL
	conf.HTTPClient = settler{&http.Client{Transport: p.capture}}
	// go-openai fails a stream after 300 lines that are not data (SSE
	// comments a server or proxy writes to keep the connection alive while
	// the model thinks); the capture's --stall and --call-timeout bound a
	// stream instead, as they bound every dialect's.
	conf.EmptyMessagesLimit = math.MaxUint
	p.client = goa.NewClientWithConfig(conf)
	return p, nil
}

// Name returns "openai".
func (p *Provider) Name() string { return Name }

// Model returns the model id in use.
func (p *Provider) Model() string { return p.model }

// BaseURL is the API's base the provider talks to.
func (p *Provider) BaseURL() string { return p.baseURL }

// ThroughCapture says every call goes through the wire capture (loop.Previewable).
func (p *Provider) ThroughCapture() {}

// Call sends one streamed chat completion and reads it to its end. The
// Response carries every HTTP exchange; it is non-nil, even with an error,
// whenever the request reached the transport.
func (p *Provider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, providers.Errorf(providers.KindBadRequest, 0, err,
			"glassbox could not build the chat completions request: %v.", err)
	}
	rec := &providers.Recorder{}
	completion, streamErr := p.complete(providers.WithRecorder(ctx, rec), params)

	exchanges := rec.Exchanges()
	var last *providers.Exchange
	if len(exchanges) > 0 {
		last = &exchanges[len(exchanges)-1]
	}
	if streamErr != nil {
		perr := p.capture.MaskError(explainError(ctx, streamErr, callFacts{base: p.baseURL, model: p.model, last: last}))
		if len(exchanges) == 0 {
			return nil, perr
		}
		return &providers.Response{Exchanges: exchanges}, perr
	}
	resp := &providers.Response{Exchanges: exchanges}
	if err := readReply(resp, completion, last); err != nil {
		return resp, p.capture.MaskError(err)
	}
	return resp, nil
}

// complete makes the call: streamed, the events folded into one reply
// (a tool call's argument pieces joined), or unary.
func (p *Provider) complete(ctx context.Context, req goa.ChatCompletionRequest) (reply, error) {
	if p.unary {
		c, err := p.client.CreateChatCompletion(ctx, req)
		if err != nil {
			return reply{}, err
		}
		return unaryReply(c), nil
	}
	req.StreamOptions = &goa.StreamOptions{IncludeUsage: true}
	stream, err := p.client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return reply{}, err
	}
	defer stream.Close()
	var r reply
	for n := 1; ; n++ {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return r, nil // [DONE], or the stream's end: readReply checks finish_reason
		}
		if err != nil {
			return r, err
		}
		if !r.add(chunk) {
			// Never a reply with a piece silently missing.
			return r, providers.Errorf(providers.KindOther, 0, nil,
				"event %d of the stream does not continue the reply (another completion id, or a choice or tool call index out of range), so the reply cannot be put together; the raw payload shows the events.", n)
		}
	}
}

// params builds the request: the system prompt, the conversation, the tool
// definitions (and temperature 0, which settler writes).
func (p *Provider) params(req providers.Request) (goa.ChatCompletionRequest, error) {
	msgs, err := messages(req.System, req.Messages)
	if err != nil {
		return goa.ChatCompletionRequest{}, err
	}
	params := goa.ChatCompletionRequest{Model: p.model, Messages: msgs}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, goa.Tool{Type: goa.ToolTypeFunction, Function: &goa.FunctionDefinition{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  t.JSONSchema(),
		}})
	}
	return params, nil
}

// wireMessage is an assistant reply as the API wrote it: kept in
// history.Native so the reply goes back unchanged, arguments byte for byte.
type wireMessage struct {
	Content   string     `json:"content,omitempty"`
	ToolCalls []wireCall `json:"tool_calls,omitempty"`
}

type wireCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// readReply turns the accumulated completion into the neutral response.
//
// The reply is not usable, and comes back Malformed, when the stream ended
// without a finish_reason (the server stopped sending without saying it was
// done — go-openai reports no error for a stream cut before [DONE]), when a
// tool call's arguments are not a JSON object (cut at the token limit, or
// badly written), and when it is empty. Its tool calls are then dropped, so
// the history never holds a call without a result.
func readReply(resp *providers.Response, c reply, last *providers.Exchange) error {
	resp.Usage = c.usage
	if len(c.choices) == 0 {
		if last != nil && last.Err != "" {
			return providers.Errorf(providers.KindNetwork, last.Status, nil,
				"the connection was cut before the first event of the reply arrived (%s); it may work on a retry.", last.Err)
		}
		resp.StopReason = providers.StopIncomplete
		resp.Message = history.Message{Role: history.RoleAssistant}
		resp.Malformed = "Your last reply never arrived: the stream ended without a single choice and without finish_reason. Try again."
		return nil
	}
	choice := c.choices[0]
	msg := choice.message()
	resp.FinishReason = choice.finish
	calls, bad := readCalls(msg.ToolCalls)
	native, _ := json.Marshal(msg) // plain strings always marshal
	resp.Message = history.Message{
		Role: history.RoleAssistant, Text: msg.Content, ToolCalls: calls,
		Native: &history.Native{Provider: Name, Data: native},
	}
	usable, err := judgeFinish(resp, choice.finish, msg, bad, last)
	if usable || err != nil {
		return err
	}
	// Nothing of an unusable reply may go back as a call without a
	// result: the API would refuse the next request.
	resp.Message.ToolCalls = nil
	resp.Message.Native.Data, _ = json.Marshal(wireMessage{Content: msg.Content})
	return nil
}

// readCalls are the reply's tool calls whose arguments are a JSON object,
// and what is wrong with each of the others.
func readCalls(wire []wireCall) (calls []history.ToolCall, bad []string) {
	for _, tc := range wire {
		args := json.RawMessage(tc.Arguments)
		var obj map[string]any
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			bad = append(bad, fmt.Sprintf("the arguments of your %s call are not a JSON object (%s): %s", tc.Name, reason(err), snippet(tc.Arguments)))
			continue
		}
		calls = append(calls, history.ToolCall{ID: tc.ID, Name: tc.Name, Args: args})
	}
	return calls, bad
}

// judgeFinish sets resp's stop reason from the finish reason and what the
// reply holds; usable is false, with resp.Malformed saying why, when
// nothing of it can be used.
func judgeFinish(resp *providers.Response, finish string, msg wireMessage, bad []string, last *providers.Exchange) (usable bool, err error) {
	switch {
	case finish == "":
		if last != nil && last.Err != "" {
			return false, providers.Errorf(providers.KindNetwork, last.Status, nil,
				"the connection was cut in the middle of the reply, before its finish_reason (%s); it may work on a retry.", last.Err)
		}
		resp.StopReason = providers.StopIncomplete
		resp.Malformed = fmt.Sprintf("Your last reply stopped after %s and %s without a finish_reason: the server ended the stream without saying the reply was done (Ollama does so at its token-repeat limit, when the model writes one token over and over), so nothing of it was used. Try again, more briefly.",
			count(len(msg.Content), "character"), count(len(msg.ToolCalls), "tool call"))
	case finish == "content_filter":
		return false, providers.Errorf(providers.KindBlocked, providers.StatusOf(last), nil,
			"the server's content filter stopped the reply (finish_reason content_filter); rephrase the request.")
	case len(bad) > 0 && finish == "length":
		resp.StopReason = providers.StopMaxTokens
		resp.Malformed = "Your tool call was cut off at the token limit (finish_reason length) before it was complete, so nothing was run: " + strings.Join(bad, "; ") + ". Call the tool again with shorter arguments."
	case len(bad) > 0:
		resp.StopReason = providers.StopEndTurn
		resp.Malformed = "Your last reply could not be used: " + strings.Join(bad, "; ") + ". Call the tool again with valid JSON arguments."
	case len(resp.Message.ToolCalls) > 0:
		resp.StopReason = providers.StopToolUse
		return true, nil
	case strings.TrimSpace(msg.Content) == "":
		resp.StopReason = providers.StopEndTurn
		if finish == "length" {
			resp.StopReason = providers.StopMaxTokens
		}
		resp.Malformed = fmt.Sprintf("Your last reply was empty (finish_reason %s): no text and no tool call. Call a tool, or give your final answer as text.", finish)
	case finish == "length":
		resp.StopReason = providers.StopMaxTokens
		return true, nil
	default:
		resp.StopReason = providers.StopEndTurn
		return true, nil
	}
	return false, nil
}

func reason(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

// snippet is text cut to a readable length for feedback.
func snippet(s string) string {
	const limit = 120
	if len(s) > limit {
		return fmt.Sprintf("%q…", s[:limit])
	}
	return fmt.Sprintf("%q", s)
}

// count says "1 tool call", "2 tool calls".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
