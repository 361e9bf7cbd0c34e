package openai

// The OpenAI-compatible chat completions API (POST /v1/chat/completions),
// as llama.cpp's server, vLLM and Ollama's /v1 speak it: the tutor's reply
// streamed as server-sent events — the text a token per event, each tool
// call's name in one event and its arguments spread over the next ones, the
// finish_reason in the last choice event, the usage in an event of its own,
// then "data: [DONE]".

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/providers/offline"
)

// Emulator is the chat completions API's side of the offline simulation
// (package offline): POST /v1/chat/completions, streamed as server-sent
// events with "stream": true.
var Emulator = offline.Emulator{
	Name:  "chat completions API",
	Paths: []string{"POST /v1/chat/completions"},
	Claims: func(path string) bool {
		return strings.HasSuffix(path, "/chat/completions") || strings.HasPrefix(path, "/v1/") || path == "/v1"
	},
	New: func(t *offline.Tutor) http.Handler { return &openAISide{tutor: t} },
}

// emulatedQuirks are the chat completions API's, where the lessons show
// them (as llama.cpp's server, vLLM and Ollama's /v1 behave).
var emulatedQuirks = offline.Quirks{
	Name: offline.Words{EN: "the OpenAI-compatible API", JA: "OpenAI 互換 API"},
	Malformed: offline.Words{
		EN: "The arguments of my first tool call were not valid JSON (the closing brace was missing); the loop showed me why it could not run the call, and I sent a valid one.",
		JA: "最初のツール呼び出しの引数が正しい JSON ではありませんでした (閉じ括弧が欠けていました)。ループが実行できない理由を示してくれたので、正しい呼び出しを送り直しました。",
	},
	Cut: offline.Words{
		EN: "finish_reason length: the server stopped generating at the token limit, in the middle of the arguments",
		JA: "finish_reason length: サーバーが引数の途中、トークン上限で生成を止めました",
	},
	RepeatStop: offline.Words{
		EN: "the server stopped it and closed the stream without a finish_reason or data: [DONE]",
		JA: "サーバーがそれを止めて、finish_reason も data: [DONE] もなしでストリームを閉じました",
	},
}

// openAISide is the simulated chat completions API for one Server: it
// remembers the messages of the last request (every request repeats them
// all).
type openAISide struct {
	tutor *offline.Tutor
	turns offline.TurnCache[openAITurns]
}

// ServeHTTP answers POST …/chat/completions; any other path of the API is
// its own 404.
func (s *openAISide) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeOpenAIError(w, http.StatusNotFound, "invalid_request_error",
			fmt.Sprintf("%s is not served by the glassbox offline simulation; it answers POST /v1/chat/completions.", r.URL.Path))
		return
	}
	if offline.RequireMethod(w, r, http.MethodPost) {
		s.serveChat(w, r)
	}
}

// repeatLimit is how many equal tokens in a row arrive before the server
// ends a reply stuck repeating one (Ollama's /v1 stops as its /api/chat
// does: after 30 repeats of the first).
const repeatLimit = 31

// openAIRequest is the part of a chat completions request the simulation
// reads.
type openAIRequest struct {
	Model string `json:"model"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content,omitempty"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openAIToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// text reads a message's content: a string, or an array of text parts.
func (m openAIMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// openAITurns is what the messages of a chat completions request were
// read into.
type openAITurns struct {
	fold offline.Folder
	// calls names the tool calls of the latest assistant message by id:
	// the tool messages after it answer them.
	calls map[string]string
}

func (t openAITurns) Fork() openAITurns {
	t.fold = t.fold.Fork()
	return t // calls is replaced, never changed
}

// add reads one message.
func (t *openAITurns) add(msg openAIMessage) error {
	switch msg.Role {
	case "system", "developer":
		t.fold.Look(msg.text()) // where an agent says it works (foreign agents)
	case "user":
		t.fold.Add(offline.Turn{Kind: offline.TurnUser, Text: msg.text()})
	case "assistant":
		it := offline.Turn{Kind: offline.TurnAssistant, Text: msg.text()}
		t.calls = map[string]string{}
		for _, tc := range msg.ToolCalls {
			var m map[string]any
			if json.Unmarshal([]byte(tc.Function.Arguments), &m) != nil {
				it.Malformed = true
				continue
			}
			t.calls[tc.ID] = tc.Function.Name
			it.Calls = append(it.Calls, offline.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: offline.ArgsFromMap(m)})
		}
		// An empty reply, or one whose call could not be read, is one
		// the loop could not use.
		it.Malformed = it.Malformed || len(it.Calls) == 0 && strings.TrimSpace(it.Text) == ""
		t.fold.Add(it)
	case "tool":
		name, ok := t.calls[msg.ToolCallID]
		if !ok || msg.ToolCallID == "" {
			// As OpenAI's API refuses it: a result needs the call it answers.
			return fmt.Errorf("invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id %q answers none)", msg.ToolCallID)
		}
		content := msg.text()
		t.fold.Add(offline.Turn{Kind: offline.TurnResult, Result: offline.ToolResult{
			CallID: msg.ToolCallID, Name: name, Content: content,
			IsError: offline.LooksLikeErrorText(content),
		}})
	}
	return nil
}

// openAIChatBody is a chat completions body with its messages kept raw,
// so those already read need not be decoded again.
type openAIChatBody struct {
	openAIRequest
	Messages []json.RawMessage `json:"messages"`
}

// parseOpenAIChat decodes a chat completions body into the neutral
// conversation. Only the messages the last request did not have are
// decoded (turnCache).
func parseOpenAIChat(body offline.Body, cache *offline.TurnCache[openAITurns]) (openAIRequest, offline.ModelCall, error) {
	var in openAIChatBody
	if body.Blank() {
		return in.openAIRequest, offline.ModelCall{}, errors.New("missing request body")
	}
	r := cache.Read(body)
	if err := json.Unmarshal(r.Doc, &in); err != nil {
		return in.openAIRequest, offline.ModelCall{}, err
	}
	req := in.openAIRequest
	if req.Model == "" {
		return req, offline.ModelCall{}, errors.New("you must provide a model parameter")
	}
	t := r.State
	if r.N == 0 {
		t = openAITurns{fold: offline.NewFolder(&emulatedQuirks)}
	}
	for i, raw := range in.Messages {
		var msg openAIMessage
		if err := json.Unmarshal(raw, &msg); err != nil {
			return req, offline.ModelCall{}, fmt.Errorf("messages[%d]: %w", r.N+i, err)
		}
		t.fold.Sum(raw)
		if err := t.add(msg); err != nil {
			return req, offline.ModelCall{}, err
		}
	}
	cache.Remember(body, "messages", r, in.Messages, t)
	var names []string
	var declared []offline.DeclaredTool
	for _, tool := range req.Tools {
		names = append(names, tool.Function.Name)
		declared = append(declared, offline.ReadDeclared(tool.Function.Name, tool.Function.Parameters))
	}
	return req, t.fold.Call(body.Size(), len(req.Tools) > 0, offline.MCPTools(names)).Declaring(declared), nil
}

// openAIChunk is one chat.completion.chunk event.
type openAIChunk struct {
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	Created           int64          `json:"created"`
	Model             string         `json:"model"`
	SystemFingerprint string         `json:"system_fingerprint"`
	Choices           []openAIChoice `json:"choices"`
	Usage             *openAIUsage   `json:"usage,omitempty"`
}

type openAIChoice struct {
	Index        int          `json:"index"`
	Delta        *openAIDelta `json:"delta,omitempty"`
	Message      *openAIDelta `json:"message,omitempty"`
	FinishReason *string      `json:"finish_reason"`
}

type openAIDelta struct {
	Role      string           `json:"role,omitempty"`
	Content   *string          `json:"content,omitempty"`
	ToolCalls []openAIToolCall `json:"tool_calls,omitempty"`
}

type openAIUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// openAIFingerprint is the system_fingerprint every reply carries: it
// names the simulation, as ModelVersion does for Gemini.
const openAIFingerprint = "fp_" + offline.ModelVersion

// openAIReply is the tutor's reply as chat completions deltas: the text in
// tokens, each tool call as a head (id, name) and argument pieces, and the
// finish_reason ("" for a stream that is to end without one).
func openAIReply(m offline.ModelCall, r offline.Reply) (deltas []openAIDelta, finish string) {
	finish = "stop"
	text := r.Text
	var calls []offline.ToolCall
	switch {
	case r.RepeatStop:
		text, finish = strings.Repeat("\n", repeatLimit), ""
	case r.Misfire:
		// A call whose arguments are not JSON: the closing brace missing.
		calls = []offline.ToolCall{{Name: "read_file", Args: offline.Pairs("path", "notes/todo.txt")}}
	case r.Cut:
		calls, finish = []offline.ToolCall{{Name: "read_file", Args: offline.Pairs("path", "notes/todo.txt")}}, "length"
	case len(r.Calls) > 0:
		calls = r.Calls
	}
	for _, t := range offline.TokenPieces(text) {
		deltas = append(deltas, openAIDelta{Content: &t})
	}
	for i, c := range calls {
		raw, _ := c.Args.MarshalJSON()
		arguments := offline.SpacedJSON(c.Args)
		if len(raw) == 0 {
			arguments = "{}"
		}
		switch {
		case r.Misfire:
			arguments = strings.TrimSuffix(arguments, "}")
		case r.Cut:
			arguments = arguments[:strings.Index(arguments, ":")+4]
		}
		index := i
		head := openAIToolCall{Index: &index, ID: m.CallID(i), Type: "function"}
		head.Function.Name = c.Name
		deltas = append(deltas, openAIDelta{ToolCalls: []openAIToolCall{head}})
		for _, piece := range offline.TokenPieces(arguments) {
			part := openAIToolCall{Index: &index}
			part.Function.Arguments = piece
			deltas = append(deltas, openAIDelta{ToolCalls: []openAIToolCall{part}})
		}
		if !r.Cut {
			finish = "tool_calls"
		}
	}
	if len(deltas) == 0 {
		empty := ""
		deltas = []openAIDelta{{Content: &empty}}
	}
	deltas[0].Role = "assistant"
	return deltas, finish
}

// serveOpenAIChat answers POST /v1/chat/completions.
func (s *openAISide) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := offline.ReadBody(r)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req, m, err := parseOpenAIChat(s.tutor.Body(body), &s.turns)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if !s.tutor.ModelKnown(req.Model, DefaultModel) {
		openAINotFound(w, req.Model)
		return
	}
	rep, err := s.tutor.Answer(r.Context(), m, s.tutor.FirstByteDelay(req.Stream))
	errs := offline.APIErrors{
		NotFound: func() { openAINotFound(w, req.Model) },
		Fault: func(status int, overloaded bool) {
			msg := "rate limit exceeded: retry after 1s"
			if overloaded {
				msg = "the model is overloaded, please try again later"
			}
			writeOpenAIError(w, status, "api_error", msg)
		},
	}
	if errs.Wrote(w, err) {
		return
	}
	deltas, finish := openAIReply(m, rep)
	sum := m.Digest("glassbox offline chat completion id")
	base := openAIChunk{
		ID: fmt.Sprintf("chatcmpl-%x", sum[:6]), Created: time.Now().Unix(),
		Model: req.Model, SystemFingerprint: openAIFingerprint,
	}
	usage := &openAIUsage{PromptTokens: offline.Tokens(m.Size()), CompletionTokens: len(deltas)}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	if !req.Stream {
		whole := mergeDeltas(deltas)
		base.Object, base.Usage = "chat.completion", usage
		base.Choices = []openAIChoice{{Message: &whole, FinishReason: &finish}}
		offline.WriteJSON(w, http.StatusOK, base)
		return
	}
	s.streamChunks(w, r, base, deltas, finish, req.StreamOptions != nil && req.StreamOptions.IncludeUsage, usage)
}

// streamChunks writes a streamed reply: a chunk per delta, paced, then the
// finish_reason, the usage when it was asked for, and [DONE]. A reply with
// no finish_reason ends after its deltas, without [DONE].
func (s *openAISide) streamChunks(w http.ResponseWriter, r *http.Request, base openAIChunk, deltas []openAIDelta, finish string, withUsage bool, usage *openAIUsage) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		rc.Flush()
		return true
	}
	base.Object = "chat.completion.chunk"
	pace := offline.NewPacer(r.Context(), s.tutor.ChunkDelay(len(deltas)+1))
	for i := range deltas {
		c := base
		c.Choices = []openAIChoice{{Delta: &deltas[i]}}
		if !pace.Wait() || !send(c) {
			return
		}
		pace.Sent()
	}
	if finish == "" {
		return // ended without a finish_reason and without [DONE]
	}
	end := base
	end.Choices = []openAIChoice{{Delta: &openAIDelta{}, FinishReason: &finish}}
	if !send(end) {
		return
	}
	if withUsage {
		u := base
		u.Choices, u.Usage = []openAIChoice{}, usage
		if !send(u) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	rc.Flush()
}

// mergeDeltas is the whole message the deltas make, for a reply that is
// not streamed.
func mergeDeltas(deltas []openAIDelta) openAIDelta {
	out := openAIDelta{Role: "assistant"}
	var text strings.Builder
	for _, d := range deltas {
		if d.Content != nil {
			text.WriteString(*d.Content)
		}
		for _, tc := range d.ToolCalls {
			if tc.ID != "" {
				head := tc
				head.Index = nil
				out.ToolCalls = append(out.ToolCalls, head)
				continue
			}
			last := &out.ToolCalls[len(out.ToolCalls)-1]
			last.Function.Arguments += tc.Function.Arguments
		}
	}
	content := text.String()
	out.Content = &content
	return out
}

// openAINotFound is the 404 for a model the server does not have, in the
// words Ollama's /v1 uses.
func openAINotFound(w http.ResponseWriter, model string) {
	writeOpenAIError(w, http.StatusNotFound, "api_error", fmt.Sprintf("model %q not found, try pulling it first", model))
}

// writeOpenAIError writes the API's error body:
// {"error": {"message", "type", "param", "code"}}.
func writeOpenAIError(w http.ResponseWriter, status int, kind, msg string) {
	offline.WriteJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": nil}})
}
