package ollama

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Emulator is the Ollama API's side of the offline simulation (package
// offline): /api/chat in its three modes (JSON-mode prompting, native
// tools, plain text), streamed as NDJSON unless "stream": false, and the
// model information a client asks for around it.
var Emulator = offline.Emulator{
	Name:  "Ollama API",
	Paths: []string{"POST /api/chat", "GET /api/tags", "POST /api/show", "GET /api/version", "GET /"},
	Claims: func(path string) bool {
		for _, p := range []string{"/api/chat", "/api/tags", "/api/show", "/api/version"} {
			if strings.HasSuffix(path, p) {
				return true
			}
		}
		return path == "/" || path == "" || strings.HasPrefix(path, "/api/")
	},
	New: func(t *offline.Tutor) http.Handler { return &ollamaSide{tutor: t} },
}

// The modes' quirks, where the lessons show them.
var (
	jsonQuirks = offline.Quirks{
		Name:            offline.Words{EN: "Llama (JSON mode)", JA: "Llama (JSON モード)"},
		OneCallPerReply: true,
		Malformed: offline.Words{
			EN: "My first reply was not valid JSON (the closing brace was missing); the loop showed me the parse error and I sent a valid reply.",
			JA: "最初の返答が正しい JSON ではありませんでした (閉じ括弧が欠けていました)。ループがパースエラーを示してくれたので、正しい返答を送り直しました。",
		},
		Cut:        ollamaCut,
		RepeatStop: ollamaRepeatStop,
	}
	nativeQuirks = offline.Quirks{
		Name:                 offline.Words{EN: "Llama (native tools)", JA: "Llama (ネイティブのツール)"},
		MisfireByUnknownTool: true,
		Cut:                  ollamaCut,
		RepeatStop:           ollamaRepeatStop,
	}
	// plainQuirks: no tools offered, so the tutor answers in text.
	plainQuirks = offline.Quirks{Name: offline.Words{EN: "Llama", JA: "Llama"}, Malformed: jsonQuirks.Malformed, Cut: ollamaCut, RepeatStop: ollamaRepeatStop}

	ollamaCut = offline.Words{
		EN: "done_reason length: Ollama stopped generating at the token limit",
		JA: "done_reason length: Ollama がトークン上限で生成を止めました",
	}
	ollamaRepeatStop = offline.Words{
		EN: "Ollama stopped it and closed the stream without done:true",
		JA: "Ollama がそれを止めて、done:true なしでストリームを閉じました",
	}
)

// ollamaSide is the simulated Ollama API for one Server: it remembers the
// messages of the last /api/chat request (every request repeats them all).
type ollamaSide struct {
	tutor *offline.Tutor
	turns offline.TurnCache[ollamaTurns]
}

// ServeHTTP routes one request:
//
//	POST /api/chat                                        NDJSON unless "stream": false
//	GET  /api/tags, POST /api/show, GET /api/version      model info
//	GET  /                                                "Ollama is running"
//
// Anything else is Ollama's 404.
func (s *ollamaSide) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/api/chat"):
		if offline.RequireMethod(w, r, http.MethodPost) {
			s.serveChat(w, r)
		}
	case strings.HasSuffix(p, "/api/tags"):
		if offline.RequireMethod(w, r, http.MethodGet, http.MethodHead) {
			serveOllamaTags(w)
		}
	case strings.HasSuffix(p, "/api/show"):
		if offline.RequireMethod(w, r, http.MethodPost) {
			s.serveShow(w, r)
		}
	case strings.HasSuffix(p, "/api/version"):
		if offline.RequireMethod(w, r, http.MethodGet, http.MethodHead) {
			offline.WriteJSON(w, http.StatusOK, map[string]string{"version": ollamaVersion})
		}
	case p == "/" || p == "":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "Ollama is running (glassbox offline simulation)")
	default:
		writeOllamaError(w, http.StatusNotFound,
			fmt.Sprintf("404 page not found: %s (the glassbox offline simulation serves /api/chat, /api/tags, /api/show and /api/version)", p))
	}
}

// ollamaVersion is what GET /api/version reports: the version of the Ollama
// API the simulation follows (that of the github.com/ollama/ollama client
// glassbox uses), in the form a real server reports its own. The model
// details (/api/tags, /api/show) say it is the offline tutor.
const ollamaVersion = "0.17.4"

// defaultOllamaModel is the model the simulation knows: /api/tags lists it,
// and /api/chat and /api/show answer 404 `model '…' not found` for any
// other name, as a server that has pulled only this model does.
const defaultOllamaModel = "llama3.1:8b"

// ollamaNotFound is Ollama's 404 for a model it does not have
// (server/routes.go: fmt.Sprintf("model '%s' not found", req.Model)).
func ollamaNotFound(w http.ResponseWriter, model string) {
	writeOllamaError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", model))
}

// repeatLimit is how many equal tokens in a row Ollama sends before its
// runner aborts the generation: it stops when the count of repeats after
// the first passes 30 (llm/server.go), so 31 arrive.
const repeatLimit = 31

// ollamaModifiedAt is a fixed timestamp for the listed model, so /api/tags
// and /api/show are byte-for-byte stable.
func ollamaModifiedAt() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// mode is how a request offers the tools: it follows the request (tools →
// native tool_calls; format without tools → JSON mode; neither → plain
// text).
type mode int

const (
	modeJSON mode = iota
	modeNative
	modePlain
)

// quirks are the mode's, where the lessons show them.
func (md mode) quirks() *offline.Quirks {
	switch md {
	case modeNative:
		return &nativeQuirks
	case modePlain:
		return &plainQuirks
	}
	return &jsonQuirks
}

// chatCall is a model call that came through /api/chat, and its mode.
type chatCall struct {
	offline.ModelCall
	mode mode
}

// ollamaTurns is what the messages of an /api/chat request were read into.
type ollamaTurns struct {
	fold offline.Folder
	// mode is how they were read: JSON mode reads an assistant's text as
	// its decision.
	mode mode
	// prompted are the tools a JSON-mode system prompt describes.
	prompted []string
}

func (t ollamaTurns) Fork() ollamaTurns {
	t.fold = t.fold.Fork()
	return t
}

// add reads one message.
func (t *ollamaTurns) add(msg api.Message) {
	switch msg.Role {
	case "system":
		t.prompted = slices.Concat(t.prompted, offline.PromptToolNames(msg.Content))
		t.fold.Look(msg.Content) // where an agent says it works (foreign agents)
	case "user":
		if r, ok := jsonToolResult(msg.Content); ok {
			t.fold.Add(offline.Turn{Kind: offline.TurnResult, Result: r})
		} else {
			t.fold.Add(offline.Turn{Kind: offline.TurnUser, Text: msg.Content})
		}
	case "assistant":
		t.fold.Add(ollamaAssistantItem(t.mode, msg))
	case "tool":
		t.fold.Add(offline.Turn{Kind: offline.TurnResult, Result: offline.ToolResult{
			CallID: msg.ToolCallID, Name: msg.ToolName, Content: msg.Content,
			IsError: offline.LooksLikeErrorText(msg.Content),
		}})
	}
}

// ollamaChatBody is an /api/chat body with its messages kept raw, so those
// already read need not be decoded again.
type ollamaChatBody struct {
	api.ChatRequest
	Messages []json.RawMessage `json:"messages"`
}

// decodeOllamaChat decodes an /api/chat body (or what turnCache left of
// it) and finds its dialect. The dialect follows the request: tools →
// native tool_calls; format without tools → JSON mode; neither → plain text.
func decodeOllamaChat(doc []byte) (ollamaChatBody, mode, error) {
	var in ollamaChatBody
	if err := json.Unmarshal(doc, &in); err != nil {
		return in, 0, err
	}
	if in.Model == "" {
		return in, 0, errors.New("model is required")
	}
	jsonFormat, err := ollamaFormat(in.Format)
	if err != nil {
		return in, 0, err
	}
	switch {
	case len(in.Tools) > 0:
		return in, modeNative, nil
	case jsonFormat:
		return in, modeJSON, nil
	}
	return in, modePlain, nil
}

// parseOllamaChat decodes an /api/chat body into a model call. Only the
// messages the last request did not have are decoded (offline.TurnCache).
func parseOllamaChat(body offline.Body, cache *offline.TurnCache[ollamaTurns]) (api.ChatRequest, chatCall, error) {
	if body.Blank() {
		return api.ChatRequest{}, chatCall{}, errors.New("missing request body")
	}
	r := cache.Read(body)
	in, md, err := decodeOllamaChat(r.Doc)
	if err == nil && r.N > 0 && r.State.mode != md {
		// The tools or the format changed: the same messages read
		// another way, so all of them again.
		r = cache.Whole(body)
		in, md, err = decodeOllamaChat(r.Doc)
	}
	if err != nil {
		return in.ChatRequest, chatCall{}, err
	}
	t := r.State
	if r.N == 0 {
		t = ollamaTurns{fold: offline.NewFolder(md.quirks()), mode: md}
	}
	for i, raw := range in.Messages {
		var msg api.Message
		if err := json.Unmarshal(raw, &msg); err != nil {
			return in.ChatRequest, chatCall{}, fmt.Errorf("messages[%d]: %w", r.N+i, err)
		}
		t.fold.Sum(raw)
		t.add(msg)
	}
	cache.Remember(body, "messages", r, in.Messages, t)
	var mcp []string
	var declared []offline.DeclaredTool
	switch md {
	case modeNative:
		var names []string
		for _, tool := range in.Tools {
			names = append(names, tool.Function.Name)
			schema, _ := json.Marshal(tool.Function.Parameters)
			declared = append(declared, offline.ReadDeclared(tool.Function.Name, schema))
		}
		mcp = offline.MCPTools(names)
	case modeJSON:
		mcp = offline.MCPTools(t.prompted)
	}
	return in.ChatRequest, chatCall{t.fold.Call(body.Size(), md != modePlain, mcp).Declaring(declared), md}, nil
}

// jsonReply is the reply shape the Llama JSON-mode system prompt asks for.
type jsonReply struct {
	Thought  string `json:"thought"`
	ToolCall *struct {
		Name  string         `json:"name"`
		Input map[string]any `json:"input"`
	} `json:"tool_call"`
	Response *string `json:"response"`
}

// parseJSONReply reads JSON-mode text the way a tolerant client does: it
// skips code fences and leading prose and decodes the first JSON object.
// A reply with neither a tool_call nor a response is malformed.
func parseJSONReply(text string) (jsonReply, bool) {
	start := strings.IndexByte(text, '{')
	if start < 0 {
		return jsonReply{}, false
	}
	var r jsonReply
	dec := json.NewDecoder(strings.NewReader(text[start:]))
	if err := dec.Decode(&r); err != nil {
		return jsonReply{}, false
	}
	if r.ToolCall != nil && r.ToolCall.Name != "" {
		return r, true
	}
	return r, r.Response != nil
}

// ollamaFormat reads the "format" field: "json" or a schema object turn
// JSON mode on; null or "" leave it off; anything else is rejected as the
// real server does.
func ollamaFormat(raw json.RawMessage) (bool, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0, bytes.Equal(t, []byte("null")), bytes.Equal(t, []byte(`""`)):
		return false, nil
	case bytes.Equal(t, []byte(`"json"`)), t[0] == '{':
		return true, nil
	}
	return false, fmt.Errorf("invalid format: %q; expected \"json\" or a valid JSON Schema object", string(t))
}

// jsonToolResult recognises a JSON-mode tool result message:
// {"tool_result": {"name": ..., "result": ..., "is_error": true}}.
func jsonToolResult(content string) (offline.ToolResult, bool) {
	t := strings.TrimSpace(content)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, `"tool_result"`) {
		return offline.ToolResult{}, false
	}
	var env struct {
		ToolResult *struct {
			Name    string `json:"name"`
			Result  any    `json:"result"`
			Content any    `json:"content"`
			Error   any    `json:"error"`
			IsError bool   `json:"is_error"`
		} `json:"tool_result"`
	}
	if json.Unmarshal([]byte(t), &env) != nil || env.ToolResult == nil {
		return offline.ToolResult{}, false
	}
	tr := env.ToolResult
	r := offline.ToolResult{Name: tr.Name, IsError: tr.IsError}
	switch {
	case tr.Result != nil:
		r.Content = offline.ResultText(tr.Result)
	case tr.Content != nil:
		r.Content = offline.ResultText(tr.Content)
	case tr.Error != nil:
		r.Content, r.IsError = offline.ResultText(tr.Error), true
	}
	return r, true
}

// ollamaAssistantItem reads an assistant message. In JSON mode the
// decision is the JSON text the model wrote; text that does not parse is
// the trace of a malformed reply.
func ollamaAssistantItem(md mode, msg api.Message) offline.Turn {
	it := offline.Turn{Kind: offline.TurnAssistant, Text: msg.Content}
	for _, tc := range msg.ToolCalls {
		it.Calls = append(it.Calls, offline.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: offline.ArgsFromMap(tc.Function.Arguments.ToMap())})
	}
	if len(it.Calls) > 0 {
		return it
	}
	if md == modeJSON {
		jr, ok := parseJSONReply(msg.Content)
		switch {
		case !ok:
			it.Malformed = true
		case jr.ToolCall != nil && jr.ToolCall.Name != "":
			it.Calls = []offline.ToolCall{{Name: jr.ToolCall.Name, Args: offline.ArgsFromMap(jr.ToolCall.Input)}}
		default:
			it.Text = *jr.Response
		}
		return it
	}
	// Native mode: an empty reply, or a tool call written as text (cut at
	// the token limit, so Ollama could not parse it), is one the loop
	// could not use.
	text := strings.TrimSpace(msg.Content)
	it.Malformed = text == "" || strings.HasPrefix(text, "{")
	return it
}

// encodeOllama turns the tutor's reply into the assistant message.
func encodeOllama(m chatCall, r offline.Reply) api.Message {
	msg := api.Message{Role: "assistant"}
	switch {
	case r.Misfire:
		msg.Content = brokenJSONReply(m, r)
	case r.Cut && m.mode == modeJSON:
		full := jsonModeText(offline.Reply{Thought: r.Thought, Calls: []offline.ToolCall{{Name: "read_file", Args: offline.Pairs("path", "notes/todo.txt")}}})
		msg.Content = full[:strings.Index(full, `"input"`)+len(`"input": {"pa`)]
	case r.Cut:
		msg.Content = `{"name": "read_file", "parameters":`
	case r.RepeatStop && m.mode == modeJSON:
		thought, _ := json.Marshal(r.Thought)
		msg.Content = `{"thought": ` + string(thought) + `,` + strings.Repeat("\n", repeatLimit)
	case r.RepeatStop:
		// A native model writing a tool call as text: Ollama's tool parser
		// holds it back until the call is complete, so when the repeat stop
		// ends the generation, none of it is ever sent.
		msg.Content = ""
	case m.mode == modeJSON:
		msg.Content = jsonModeText(r)
	case len(r.Calls) > 0:
		for i, c := range r.Calls {
			a := api.NewToolCallFunctionArguments()
			for _, kv := range c.Args {
				a.Set(kv.Key, kv.Value)
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
				ID:       m.CallID(i),
				Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: a},
			})
		}
	default:
		msg.Content = r.Text
	}
	return msg
}

// jsonModeText writes a decision the way the JSON-mode system prompt asks,
// spaced like a model writes it. JSON mode has one call per reply.
func jsonModeText(r offline.Reply) string {
	if len(r.Calls) > 0 {
		c := r.Calls[0]
		return offline.SpacedJSON(offline.Pairs("thought", r.Thought, "tool_call", offline.Pairs("name", c.Name, "input", c.Args)))
	}
	return offline.SpacedJSON(offline.Pairs("thought", r.Thought, "response", r.Text))
}

// brokenJSONReply is the malformed lesson's first JSON-mode reply: a
// sentence of prose (in the request's language l), then an object whose
// final closing brace is missing.
func brokenJSONReply(m chatCall, r offline.Reply) string {
	full := offline.SpacedJSON(offline.Pairs("thought", r.Thought, "tool_call", offline.Pairs("name", "read_file", "input", offline.Pairs("path", "notes/todo.txt"))))
	return m.Say("Sure! I will read the todo list first.\n", "わかりました。まず TODO リストを読みます。\n") + strings.TrimSuffix(full, "}")
}

// ollamaMetrics fills the final object's counters: the prompt's and the
// reply's token counts, and the call's time split the way the simulation
// spent it: prompt evaluation until the first line (measured), generation
// while the lines streamed (the latency spread over them: zero, and so
// omitted as Ollama omits it, without --sim-latency), loading the rest.
func ollamaMetrics(m chatCall, evalCount int, start time.Time, promptEval, eval time.Duration) api.Metrics {
	total := max(time.Since(start), 10*time.Microsecond)
	return api.Metrics{
		TotalDuration:      total,
		LoadDuration:       max(total-promptEval-eval, 0),
		PromptEvalCount:    offline.Tokens(m.Size()),
		PromptEvalDuration: promptEval,
		EvalCount:          max(evalCount, 1),
		EvalDuration:       eval,
	}
}

// ollamaStream is the reply as a real server streams it (server/routes.go
// ChatHandler): one token per line; each tool call in a line of its own
// (index 0, then 1, …); the last token in the done:true line with the
// metrics and done_reason — or, for a tool call cut at the token limit in
// native mode, the whole unfinished call there (the tool parser held it
// back); and no done line at all after Ollama's token-repeat stop.
func ollamaStream(m chatCall, r offline.Reply, msg api.Message) (lines []api.Message, final *api.Message, reason string) {
	reason = "stop"
	if r.Cut {
		reason = "length"
	}
	toks := offline.TokenPieces(msg.Content)
	if r.Cut && m.mode == modeNative {
		toks = nil
	}
	for _, t := range toks {
		lines = append(lines, api.Message{Role: "assistant", Content: t})
	}
	for i := range msg.ToolCalls {
		lines = append(lines, api.Message{Role: "assistant", ToolCalls: msg.ToolCalls[i : i+1]})
	}
	if r.RepeatStop {
		return lines, nil, ""
	}
	final = &api.Message{Role: "assistant"}
	switch {
	case r.Cut && m.mode == modeNative:
		final.Content = msg.Content
	case len(msg.ToolCalls) == 0 && len(lines) > 0:
		final.Content = lines[len(lines)-1].Content
		lines = lines[:len(lines)-1]
	}
	return lines, final, reason
}

// serveChat answers POST /api/chat.
func (s *ollamaSide) serveChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := offline.ReadBody(r)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, m, err := parseOllamaChat(s.tutor.Body(body), &s.turns)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.tutor.ModelKnown(req.Model, defaultOllamaModel) {
		ollamaNotFound(w, req.Model)
		return
	}
	stream := req.Stream == nil || *req.Stream
	rep, err := s.tutor.Answer(r.Context(), m.ModelCall, s.tutor.FirstByteDelay(stream))
	promptEval := max(time.Since(start), time.Microsecond)
	errs := offline.APIErrors{
		NotFound: func() { ollamaNotFound(w, req.Model) },
		Fault: func(status int, overloaded bool) {
			msg := "rate limit exceeded"
			if overloaded {
				msg = "model is overloaded"
			}
			writeOllamaError(w, status, msg)
		},
	}
	if errs.Wrote(w, err) {
		return
	}
	msg := encodeOllama(m, rep)
	lines, final, reason := ollamaStream(m, rep, msg)
	evalCount := len(lines) + 1
	if !stream {
		if final == nil {
			// The repeat stop without streaming: Ollama's non-streamed
			// reply is built from the done line, which never came.
			writeOllamaError(w, http.StatusInternalServerError, "unexpected end of response")
			return
		}
		offline.WriteJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg,
			Done: true, DoneReason: reason, Metrics: ollamaMetrics(m, evalCount, start, promptEval, 0),
		})
		return
	}
	s.streamLines(w, r, req.Model, lines, final, func(eval time.Duration) api.ChatResponse {
		return api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Message: *final,
			Done: true, DoneReason: reason, Metrics: ollamaMetrics(m, evalCount, start, promptEval, eval),
		}
	})
}

// streamLines writes a streamed reply as NDJSON: a line per message piece,
// then the done line (done, given how long the pieces took), all paced: the
// second half of the latency budget is spread over the lines, so tokens
// arrive at a steady rate. Without a final message (Ollama's token-repeat
// stop) the stream ends, cleanly, after the pieces.
func (s *ollamaSide) streamLines(w http.ResponseWriter, r *http.Request, model string, lines []api.Message, final *api.Message, done func(eval time.Duration) api.ChatResponse) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(cr api.ChatResponse) bool {
		b, err := json.Marshal(cr)
		if err != nil {
			return false
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return false
		}
		rc.Flush()
		return true
	}
	pace := offline.NewPacer(r.Context(), s.tutor.ChunkDelay(len(lines)+1))
	for _, l := range lines {
		if !pace.Wait() || !write(api.ChatResponse{Model: model, CreatedAt: time.Now().UTC(), Message: l}) {
			return
		}
		pace.Sent()
	}
	if final == nil || !pace.Wait() {
		return
	}
	write(done(pace.Elapsed()))
}

// ollamaDetails describes the simulated model honestly.
func ollamaDetails() api.ModelDetails {
	return api.ModelDetails{
		Format: "glassbox-offline", Family: "glassbox-tutor", Families: []string{"glassbox-tutor"},
		ParameterSize: "0", QuantizationLevel: "none",
	}
}

// serveOllamaTags answers GET /api/tags with the one model it lists.
func serveOllamaTags(w http.ResponseWriter) {
	sum := sha256.Sum256([]byte(offline.ModelVersion))
	offline.WriteJSON(w, http.StatusOK, api.ListResponse{Models: []api.ListModelResponse{{
		Name: defaultOllamaModel, Model: defaultOllamaModel, ModifiedAt: ollamaModifiedAt(),
		Size: 0, Digest: fmt.Sprintf("%x", sum), Details: ollamaDetails(),
	}}})
}

// serveShow answers POST /api/show for any model name: the tutor
// supports completion and tools.
func (s *ollamaSide) serveShow(w http.ResponseWriter, r *http.Request) {
	body, err := offline.ReadBody(r)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	var req api.ShowRequest
	if len(bytes.TrimSpace(body)) == 0 {
		writeOllamaError(w, http.StatusBadRequest, "missing request body")
		return
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		writeOllamaError(w, http.StatusBadRequest, "model is required")
		return
	}
	if !s.tutor.ModelKnown(name, defaultOllamaModel) {
		ollamaNotFound(w, name)
		return
	}
	offline.WriteJSON(w, http.StatusOK, api.ShowResponse{
		Modelfile: "# glassbox offline tutor: a deterministic lesson script, not a real model.\n" +
			"# It answers as \"" + name + "\" so the Ollama client works unchanged.\nFROM " + offline.ModelVersion + "\n",
		Parameters: "temperature 0",
		Template:   "{{ .Prompt }}",
		Details:    ollamaDetails(),
		ModelInfo: map[string]any{
			"general.architecture":    "glassbox-tutor",
			"general.parameter_count": 0,
		},
		Capabilities: []model.Capability{model.CapabilityCompletion, model.CapabilityTools},
		ModifiedAt:   ollamaModifiedAt(),
	})
}

// writeOllamaError writes Ollama's error body: {"error": "..."}.
func writeOllamaError(w http.ResponseWriter, status int, msg string) {
	offline.WriteJSON(w, status, map[string]string{"error": msg})
}
