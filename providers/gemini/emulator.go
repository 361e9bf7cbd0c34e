package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/glassbox-dev/glassbox/providers/offline"
)

// ----- the Gemini request, as much of it as the tutor reads -----

// geminiRequest is a generateContent body. REST accepts both camelCase and
// snake_case field names, and a single object where a list is expected, so
// the lists are decoded by hand (oneOrMany).
type geminiRequest struct {
	Contents              json.RawMessage         `json:"contents"`
	System                *geminiInContent        `json:"systemInstruction"`
	Tools                 json.RawMessage         `json:"tools"`
	GenerationConfig      *geminiGenerationConfig `json:"generationConfig"`
	GenerationConfigSnake *geminiGenerationConfig `json:"generation_config"`
}

type geminiGenerationConfig struct {
	ThinkingConfig *struct {
		IncludeThoughts bool `json:"includeThoughts"`
	} `json:"thinkingConfig"`
}

type geminiInContent struct {
	Role  string          `json:"role"`
	Parts json.RawMessage `json:"parts"`
}

type geminiInPart struct {
	Text                  *string           `json:"text"`
	Thought               bool              `json:"thought"`
	FunctionCall          *geminiInCall     `json:"functionCall"`
	FunctionCallSnake     *geminiInCall     `json:"function_call"`
	FunctionResponse      *geminiInResponse `json:"functionResponse"`
	FunctionResponseSnake *geminiInResponse `json:"function_response"`
}

type geminiInCall struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type geminiInResponse struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// oneOrMany decodes a JSON list, or a single object standing for a list of one.
func oneOrMany[T any](raw json.RawMessage) ([]T, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '{' {
		var one T
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		return []T{one}, nil
	}
	var many []T
	err := json.Unmarshal(raw, &many)
	return many, err
}

// geminiRequestError is a request the real API would reject with 400.
type geminiRequestError struct{ message string }

func (e geminiRequestError) Error() string { return e.message }

// parseGemini decodes a generateContent body into a model call. Only the
// contents the last request did not have are decoded (turnCache).
func parseGemini(body offline.Body, s *geminiSide) (offline.ModelCall, bool, error) {
	r := s.turns.Read(body)
	var req geminiRequest
	if err := json.Unmarshal(r.Doc, &req); err != nil {
		return offline.ModelCall{}, false, geminiRequestError{"Invalid JSON payload received. " + err.Error()}
	}
	contents, err := oneOrMany[json.RawMessage](req.Contents)
	if err != nil {
		return offline.ModelCall{}, false, geminiRequestError{"Invalid JSON payload received. contents: " + err.Error()}
	}
	fold := r.State
	if r.N == 0 {
		fold = offline.NewFolder(&emulatedQuirks)
	}
	for i, raw := range contents {
		var c geminiInContent
		if err := json.Unmarshal(raw, &c); err != nil {
			return offline.ModelCall{}, false, geminiRequestError{fmt.Sprintf("Invalid JSON payload received. contents[%d]: %v", r.N+i, err)}
		}
		its, err := contentItems(r.N+i, c)
		if err != nil {
			return offline.ModelCall{}, false, err
		}
		fold.Sum(raw)
		for _, it := range its {
			fold.Add(it)
		}
	}
	if r.N+len(contents) == 0 {
		return offline.ModelCall{}, false, geminiRequestError{"* GenerateContentRequest.contents: contents is not specified\n"}
	}
	s.turns.Remember(body, "contents", r, contents, fold)
	gc := req.GenerationConfig
	if gc == nil {
		gc = req.GenerationConfigSnake
	}
	thoughts := gc != nil && gc.ThinkingConfig != nil && gc.ThinkingConfig.IncludeThoughts
	decl := s.tools.read(req.Tools)
	if req.System != nil {
		// An agent may say there where it works (foreign agents: the
		// tutor makes absolute paths from it).
		parts, _ := oneOrMany[geminiInPart](req.System.Parts)
		for _, it := range geminiUserItems(parts) {
			fold.Look(it.Text)
		}
	}
	return fold.Call(body.Size(), decl.any, decl.mcp).Declaring(decl.tools), thoughts, nil
}

// geminiModelItem reads a model turn: function calls and non-thought text.
// A turn with neither is the trace of a reply the loop could not use.
func geminiModelItem(parts []geminiInPart) offline.Turn {
	it := offline.Turn{Kind: offline.TurnAssistant}
	var text []string
	for _, p := range parts {
		fc := p.FunctionCall
		if fc == nil {
			fc = p.FunctionCallSnake
		}
		switch {
		case fc != nil:
			it.Calls = append(it.Calls, offline.ToolCall{ID: fc.ID, Name: fc.Name, Args: offline.ArgsFromMap(fc.Args)})
		case p.Text != nil && !p.Thought:
			text = append(text, *p.Text)
		}
	}
	it.Text = strings.Join(text, "")
	it.Malformed = len(it.Calls) == 0 && strings.TrimSpace(it.Text) == ""
	return it
}

// geminiUserItems reads a user turn: function responses become tool
// results, each text part a user text of its own: an agent may send what
// it tells the model about itself (Gemini CLI's session context) and then
// the person's words, as two parts of one turn; the last is the request.
func geminiUserItems(parts []geminiInPart) []offline.Turn {
	var items []offline.Turn
	var text []string
	flush := func() {
		for _, t := range text {
			items = append(items, offline.Turn{Kind: offline.TurnUser, Text: t})
		}
		text = nil
	}
	for _, p := range parts {
		fr := p.FunctionResponse
		if fr == nil {
			fr = p.FunctionResponseSnake
		}
		switch {
		case fr != nil:
			flush()
			r := offline.ToolResult{CallID: fr.ID, Name: fr.Name}
			if v, ok := fr.Response["error"]; ok {
				r.Content, r.IsError = offline.ResultText(v), true
			} else if v, ok := fr.Response["output"]; ok {
				r.Content = offline.ResultText(v)
			} else {
				r.Content = offline.ResultText(fr.Response)
			}
			items = append(items, offline.Turn{Kind: offline.TurnResult, Result: r})
		case p.Text != nil && !p.Thought:
			text = append(text, *p.Text)
		}
	}
	flush()
	return items
}

// geminiDeclarations reads the functions a tools list declares.
func geminiDeclarations(raw json.RawMessage) declarations {
	var d declarations
	tools, err := oneOrMany[map[string]json.RawMessage](raw)
	if err != nil {
		return d
	}
	for _, t := range tools {
		for _, key := range []string{"functionDeclarations", "function_declarations"} {
			var decls []struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
				Schema     json.RawMessage `json:"parametersJsonSchema"`
			}
			if json.Unmarshal(t[key], &decls) != nil {
				continue
			}
			for _, f := range decls {
				d.any = true
				d.names = append(d.names, f.Name)
				schema := f.Parameters
				if len(schema) == 0 {
					schema = f.Schema
				}
				d.tools = append(d.tools, offline.ReadDeclared(f.Name, schema))
			}
		}
	}
	d.mcp = offline.MCPTools(d.names)
	return d
}

// ----- the Gemini response, shaped like the recorded ones -----

type geminiResponse struct {
	Candidates    []geminiCandidate `json:"candidates"`
	UsageMetadata geminiUsage       `json:"usageMetadata"`
	ModelVersion  string            `json:"modelVersion"`
	ResponseID    string            `json:"responseId"`
}

type geminiCandidate struct {
	Content       geminiContent `json:"content"`
	FinishReason  string        `json:"finishReason,omitempty"`
	FinishMessage string        `json:"finishMessage,omitempty"`
	Index         int           `json:"index"`
}

type geminiContent struct {
	Parts []geminiPart `json:"parts"`
	Role  string       `json:"role"`
}

type geminiPart struct {
	Text             string              `json:"text,omitempty"`
	Thought          bool                `json:"thought,omitempty"`
	FunctionCall     *geminiFunctionCall `json:"functionCall,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
}

type geminiFunctionCall struct {
	Name string       `json:"name"`
	Args offline.Args `json:"args"`
}

type geminiUsage struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount      int `json:"totalTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount,omitempty"`
}

// geminiAnswer is a reply laid out for the wire: the parts, the finish
// reason, and how it splits into stream events.
type geminiAnswer struct {
	thought       *geminiPart  // a thought-summary part, when requested
	parts         []geminiPart // the answer parts
	finishReason  string
	finishMessage string
	usage         geminiUsage
	responseID    string
}

// encodeGemini turns the tutor's reply into Gemini parts. Function calls
// carry no id (as Gemini 2.5 sends them); the first call part carries the
// thoughtSignature, as the thought-signatures doc describes for parallel calls.
func encodeGemini(m offline.ModelCall, r offline.Reply, thoughts bool) geminiAnswer {
	sum := m.Digest("glassbox offline responseId")
	a := geminiAnswer{finishReason: "STOP", responseID: base64.RawURLEncoding.EncodeToString(sum[:17])}
	a.usage.PromptTokenCount = offline.Tokens(m.Size())
	if thoughts && r.Thought != "" {
		a.thought = &geminiPart{Text: "**" + r.Thought + "**", Thought: true}
		a.usage.ThoughtsTokenCount = offline.Tokens(len(r.Thought))
	}
	switch {
	case r.Misfire:
		a.parts = []geminiPart{}
		a.finishReason = "MALFORMED_FUNCTION_CALL"
		a.finishMessage = "Malformed function call: print(default_api.read_file(path=\"notes/todo.txt\""
	case r.Cut:
		// The limit came before Gemini had a whole call to return.
		a.parts = []geminiPart{}
		a.finishReason = "MAX_TOKENS"
		a.usage.CandidatesTokenCount = 0
	case len(r.Calls) > 0:
		for i, c := range r.Calls {
			p := geminiPart{FunctionCall: &geminiFunctionCall{Name: c.Name, Args: c.Args}}
			if i == 0 {
				p.ThoughtSignature = thoughtSignature(m)
			}
			a.parts = append(a.parts, p)
			b, _ := c.Args.MarshalJSON()
			a.usage.CandidatesTokenCount += offline.Tokens(len(c.Name) + len(b))
		}
	default:
		a.parts = []geminiPart{{Text: r.Text}}
		a.usage.CandidatesTokenCount = offline.Tokens(len(r.Text))
	}
	a.usage.TotalTokenCount = a.usage.PromptTokenCount + a.usage.CandidatesTokenCount + a.usage.ThoughtsTokenCount
	return a
}

// thoughtSignature is an opaque, deterministic signature for a function
// call: the same conversation always gets the same bytes.
func thoughtSignature(m offline.ModelCall) string {
	sum := m.Digest("glassbox offline thoughtSignature")
	return base64.StdEncoding.EncodeToString(append([]byte("glassbox-offline:"), sum[:]...))
}

// whole is the answer as one generateContent response.
func (a geminiAnswer) whole() geminiResponse {
	parts := a.parts
	if a.thought != nil {
		parts = append([]geminiPart{*a.thought}, parts...)
	}
	return geminiResponse{
		Candidates: []geminiCandidate{{
			Content:      geminiContent{Parts: parts, Role: "model"},
			FinishReason: a.finishReason, FinishMessage: a.finishMessage,
		}},
		UsageMetadata: a.usage, ModelVersion: offline.ModelVersion, ResponseID: a.responseID,
	}
}

// events is the answer as streamGenerateContent events: thoughts first,
// then the text token by token (the same token pieces the simulated Ollama
// streams, so the two dialects' chunk counts compare), function calls
// whole in one event; only the last event has the finishReason and the
// full usage, as in the recorded streams.
func (a geminiAnswer) events() []geminiResponse {
	var chunks [][]geminiPart
	if a.thought != nil {
		chunks = append(chunks, []geminiPart{*a.thought})
	}
	if len(a.parts) == 1 && a.parts[0].FunctionCall == nil && a.parts[0].Text != "" {
		for _, t := range offline.TokenPieces(a.parts[0].Text) {
			chunks = append(chunks, []geminiPart{{Text: t}})
		}
	} else {
		chunks = append(chunks, a.parts)
	}
	partial := geminiUsage{PromptTokenCount: a.usage.PromptTokenCount, TotalTokenCount: a.usage.PromptTokenCount}
	out := make([]geminiResponse, len(chunks))
	for i, parts := range chunks {
		ev := geminiResponse{
			Candidates:    []geminiCandidate{{Content: geminiContent{Parts: parts, Role: "model"}}},
			UsageMetadata: partial, ModelVersion: offline.ModelVersion, ResponseID: a.responseID,
		}
		if i == len(chunks)-1 {
			ev.Candidates[0].FinishReason = a.finishReason
			ev.Candidates[0].FinishMessage = a.finishMessage
			ev.UsageMetadata = a.usage
		}
		out[i] = ev
	}
	return out
}

// ServeHTTP answers models/{model}:generateContent and
// :streamGenerateContent; any other path of the API is its own 404.
func (s *geminiSide) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	model, stream, ok := geminiRoute(w, r)
	if !ok {
		return
	}
	body, err := offline.ReadBody(r)
	if err != nil {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error(), nil)
		return
	}
	m, thoughts, err := parseGemini(s.tutor.Body(body), s)
	if err != nil {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error(), nil)
		return
	}
	rep, err := s.tutor.Answer(r.Context(), m, s.tutor.FirstByteDelay(stream))
	var f offline.Fault
	switch {
	case errors.As(err, &f):
		writeGeminiFault(w, f, model)
		return
	case err != nil: // the caller gave up while waiting
		return
	}
	answer := encodeGemini(m, rep, thoughts)
	if !stream {
		offline.WriteJSON(w, http.StatusOK, answer.whole())
		return
	}
	s.streamEvents(w, r, answer.events())
}

// geminiRoute reads the model and the method from the request's path;
// false, with the API's 404 written, when it is no call the emulator serves.
func geminiRoute(w http.ResponseWriter, r *http.Request) (model string, stream, ok bool) {
	i := strings.Index(r.URL.Path, "/models/")
	if i < 0 || !strings.Contains(r.URL.Path[i:], ":") {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND",
			fmt.Sprintf("%s is not served by the glassbox offline simulation; it answers models/{model}:generateContent and :streamGenerateContent.", r.URL.Path), nil)
		return "", false, false
	}
	rest := r.URL.Path[i+len("/models/"):]
	model, method, _ := strings.Cut(rest, ":")
	stream = method == "streamGenerateContent"
	if method != "generateContent" && !stream {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND",
			fmt.Sprintf("models/%s:%s is not served by the glassbox offline simulation; use generateContent or streamGenerateContent.", model, method), nil)
		return "", false, false
	}
	if r.Method != http.MethodPost {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND", "Method not found.", nil)
		return "", false, false
	}
	return model, stream, true
}

// streamEvents writes a streamed reply's events as server-sent events,
// paced. The SDK always asks for ?alt=sse; without it the real API streams
// a JSON array, which the SDKs here never request.
func (s *geminiSide) streamEvents(w http.ResponseWriter, r *http.Request, events []geminiResponse) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	pace := offline.NewPacer(r.Context(), s.tutor.ChunkDelay(len(events)))
	for _, ev := range events {
		if !pace.Wait() {
			return
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", b); err != nil {
			return
		}
		rc.Flush()
		pace.Sent()
	}
}

// geminiError is the google.rpc.Status error body of the Gemini API.
type geminiError struct {
	Error geminiErrorStatus `json:"error"`
}

type geminiErrorStatus struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details,omitempty"`
}

func writeGeminiError(w http.ResponseWriter, code int, status, message string, details []map[string]any) {
	offline.WriteJSON(w, code, geminiError{Error: geminiErrorStatus{Code: code, Message: message, Status: status, Details: details}})
}

// writeGeminiFault writes the 429 or 503 a lesson demonstrates, shaped like
// the real ones (RetryInfo is how Gemini says how long to wait).
func writeGeminiFault(w http.ResponseWriter, f offline.Fault, model string) {
	if f.UnknownModel() {
		// The recorded 404 (error_404_NOT_FOUND_unknown_model…), for v1beta.
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND",
			"models/"+model+" is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods. (glassbox offline simulation: the unknown-model lesson answers every call this way.)", nil)
		return
	}
	w.Header().Set("Retry-After", "1")
	if f.Overloaded() {
		writeGeminiError(w, http.StatusServiceUnavailable, "UNAVAILABLE",
			"The model is overloaded. Please try again later. (glassbox offline simulation: the outage lesson answers every call this way.)", nil)
		return
	}
	const metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
	msg := "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: " +
		metric + ", limit: 1\nPlease retry in 1s. (glassbox offline simulation: the rate-limit lesson answers the first attempt this way.)"
	writeGeminiError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", msg, []map[string]any{
		{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []map[string]any{{
			"quotaMetric":     metric,
			"quotaId":         "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
			"quotaDimensions": map[string]string{"location": "global", "model": model},
			"quotaValue":      "1",
		}}},
		{"@type": "type.googleapis.com/google.rpc.Help", "links": []map[string]string{{
			"description": "Learn more about Gemini API quotas",
			"url":         "https://ai.google.dev/gemini-api/docs/rate-limits",
		}}},
		{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"},
	})
}

// Emulator is the Gemini API's side of the offline simulation
// (package offline): generateContent and streamGenerateContent, in the
// shapes of the recorded responses.
var Emulator = offline.Emulator{
	Name:  "Gemini API",
	Paths: []string{"POST /v1beta/models/{model}:generateContent", "POST /v1beta/models/{model}:streamGenerateContent?alt=sse"},
	Claims: func(path string) bool {
		return strings.Contains(path, "/models/") && strings.Contains(path, ":") || strings.HasPrefix(path, "/v1beta/") || path == "/v1beta"
	},
	New: func(t *offline.Tutor) http.Handler { return &geminiSide{tutor: t} },
}

// emulatedQuirks are Gemini's where the lessons show them.
var emulatedQuirks = offline.Quirks{
	Name: offline.Words{EN: "Gemini", JA: "Gemini"},
	Malformed: offline.Words{
		EN: "My first attempt ended with finishReason MALFORMED_FUNCTION_CALL; the loop told me, and I sent a valid call.",
		JA: "最初の試みは finishReason MALFORMED_FUNCTION_CALL で終わりました。ループがそれを知らせてくれたので、正しい呼び出しを送り直しました。",
	},
	Cut: offline.Words{
		EN: "finishReason MAX_TOKENS: Gemini stopped generating at the token limit",
		JA: "finishReason MAX_TOKENS: Gemini がトークン上限で生成を止めました",
	},
}

// geminiSide is the simulated Gemini API for one Server: it remembers the
// last request's contents (every request repeats them all) and its tools.
type geminiSide struct {
	tutor *offline.Tutor
	turns offline.TurnCache[offline.Folder]
	tools toolsCache
}

// declarations are the tools a request declares.
type declarations struct {
	any   bool     // at least one function
	names []string // their names, in order
	mcp   []string // those that are MCP tools (mcpTools)
	// tools are each with its parameters, for a foreign agent's
	// (offline.ModelCall.Declaring).
	tools []offline.DeclaredTool
}

// toolsCache reads a request's tools once and again only when they
// change: a session sends the same ones with every request. The zero
// value is ready; it is safe for concurrent use.
type toolsCache struct {
	mu   sync.Mutex
	raw  []byte // the last request's tools, as sent
	decl declarations
}

// read returns the declarations of raw, a Gemini tools list.
func (c *toolsCache) read(raw json.RawMessage) declarations {
	c.mu.Lock()
	if c.raw != nil && bytes.Equal(c.raw, raw) {
		defer c.mu.Unlock()
		return c.decl
	}
	c.mu.Unlock()
	d := geminiDeclarations(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw, c.decl = append([]byte{}, raw...), d
	return d
}

// contentItems reads one content into items.
func contentItems(i int, c geminiInContent) ([]offline.Turn, error) {
	parts, err := oneOrMany[geminiInPart](c.Parts)
	if err != nil {
		return nil, geminiRequestError{fmt.Sprintf("Invalid JSON payload received. contents[%d].parts: %v", i, err)}
	}
	switch c.Role {
	case "model":
		return []offline.Turn{geminiModelItem(parts)}, nil
	case "user", "function", "":
		return geminiUserItems(parts), nil
	}
	return nil, geminiRequestError{fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role is %q)", i, c.Role)}
}
