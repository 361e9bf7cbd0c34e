package offline

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ollamaVersion is what GET /api/version reports: the version of the Ollama
// API the simulation follows (that of the github.com/ollama/ollama client
// glassbox uses), in the form a real server reports its own. The model
// details (/api/tags, /api/show) say it is the offline tutor.
const ollamaVersion = "0.17.4"

// defaultOllamaModel is the model the simulation knows: /api/tags lists it,
// and /api/chat and /api/show answer 404 `model '…' not found` for any
// other name, as a server that has pulled only this model does.
const defaultOllamaModel = "llama3.1:8b"

// modelKnown reports whether the simulated Ollama "has" model.
func (s *Server) modelKnown(model string) bool { return s.cfg.AnyModel || model == defaultOllamaModel }

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

// ollamaTurns is what the messages of an /api/chat request were read into.
type ollamaTurns struct {
	fold folder
	// dialect is how they were read: JSON mode reads an assistant's text
	// as its decision.
	dialect dialect
	// prompted are the tools a JSON-mode system prompt describes.
	prompted []string
}

func (t ollamaTurns) fork() ollamaTurns {
	t.fold = t.fold.fork()
	return t
}

// add reads one message.
func (t *ollamaTurns) add(msg api.Message) {
	switch msg.Role {
	case "system":
		t.prompted = slices.Concat(t.prompted, promptToolNames(msg.Content))
		t.fold.look(msg.Content)
	case "user":
		if r, ok := jsonToolResult(msg.Content); ok {
			t.fold.add(item{kind: itemResult, result: r})
		} else {
			t.fold.add(item{kind: itemUser, text: msg.Content})
		}
	case "assistant":
		t.fold.add(ollamaAssistantItem(t.dialect, msg))
	case "tool":
		t.fold.add(item{kind: itemResult, result: toolResult{
			CallID: msg.ToolCallID, Name: msg.ToolName, Content: msg.Content,
			IsError: looksLikeErrorText(msg.Content),
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
func decodeOllamaChat(doc []byte) (ollamaChatBody, dialect, error) {
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
		return in, dialectLlamaNative, nil
	case jsonFormat:
		return in, dialectLlamaJSON, nil
	}
	return in, dialectLlamaPlain, nil
}

// parseOllamaChat decodes an /api/chat body into a model call. Only the
// messages the last request did not have are decoded (turnCache).
func parseOllamaChat(body requestBody, cache *turnCache[ollamaTurns]) (api.ChatRequest, modelCall, error) {
	if body.blank() {
		return api.ChatRequest{}, modelCall{}, errors.New("missing request body")
	}
	r := cache.read(body)
	in, d, err := decodeOllamaChat(r.doc)
	if err == nil && r.n > 0 && r.state.dialect != d {
		// The tools or the format changed: the same messages read
		// another way, so all of them again.
		r = turnsRead[ollamaTurns]{doc: body.all()}
		in, d, err = decodeOllamaChat(r.doc)
	}
	if err != nil {
		return in.ChatRequest, modelCall{}, err
	}
	t := r.state
	if r.n == 0 {
		t = ollamaTurns{fold: folder{conv: conversation{dialect: d}}, dialect: d}
	}
	for i, raw := range in.Messages {
		var msg api.Message
		if err := json.Unmarshal(raw, &msg); err != nil {
			return in.ChatRequest, modelCall{}, fmt.Errorf("messages[%d]: %w", r.n+i, err)
		}
		t.fold.sum(raw)
		t.add(msg)
	}
	cache.remember(body, "messages", r, in.Messages, t)
	conv := t.fold.conv
	switch d {
	case dialectLlamaNative:
		var names []string
		var declared []declaredTool
		for _, tool := range in.Tools {
			names = append(names, tool.Function.Name)
			schema, _ := json.Marshal(tool.Function.Parameters)
			declared = append(declared, readDeclared(tool.Function.Name, schema))
		}
		conv.mcpTools = mcpTools(names)
		conv.roles = bindRoles(declared)
	case dialectLlamaJSON:
		conv.mcpTools = mcpTools(t.prompted)
	}
	return in.ChatRequest, modelCall{conv: conv, tools: d != dialectLlamaPlain, size: body.size(), turns: t.fold.turns}, nil
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
func jsonToolResult(content string) (toolResult, bool) {
	t := strings.TrimSpace(content)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, `"tool_result"`) {
		return toolResult{}, false
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
		return toolResult{}, false
	}
	tr := env.ToolResult
	r := toolResult{Name: tr.Name, IsError: tr.IsError}
	switch {
	case tr.Result != nil:
		r.Content = resultText(tr.Result)
	case tr.Content != nil:
		r.Content = resultText(tr.Content)
	case tr.Error != nil:
		r.Content, r.IsError = resultText(tr.Error), true
	}
	return r, true
}

// ollamaAssistantItem reads an assistant message. In JSON mode the
// decision is the JSON text the model wrote; text that does not parse is
// the trace of a malformed reply.
func ollamaAssistantItem(d dialect, msg api.Message) item {
	it := item{kind: itemAssistant, text: msg.Content}
	for _, tc := range msg.ToolCalls {
		it.calls = append(it.calls, toolCall{ID: tc.ID, Name: tc.Function.Name, Args: argsFromMap(tc.Function.Arguments.ToMap())})
	}
	if len(it.calls) > 0 {
		return it
	}
	if d == dialectLlamaJSON {
		jr, ok := parseJSONReply(msg.Content)
		switch {
		case !ok:
			it.malformed = true
		case jr.ToolCall != nil && jr.ToolCall.Name != "":
			it.calls = []toolCall{{Name: jr.ToolCall.Name, Args: argsFromMap(jr.ToolCall.Input)}}
		default:
			it.text = *jr.Response
		}
		return it
	}
	// Native mode: an empty reply, or a tool call written as text (cut at
	// the token limit, so Ollama could not parse it), is one the loop
	// could not use.
	text := strings.TrimSpace(msg.Content)
	it.malformed = text == "" || strings.HasPrefix(text, "{")
	return it
}

// encodeOllama turns the tutor's reply into the assistant message.
func encodeOllama(m modelCall, r reply) api.Message {
	msg := api.Message{Role: "assistant"}
	switch {
	case r.misfire:
		msg.Content = brokenJSONReply(m.conv.lang, r)
	case r.cut && m.conv.dialect == dialectLlamaJSON:
		full := jsonModeText(callReply(r.thought, toolCall{Name: "read_file", Args: args{{"path", "notes/todo.txt"}}}))
		msg.Content = full[:strings.Index(full, `"input"`)+len(`"input": {"pa`)]
	case r.cut:
		msg.Content = `{"name": "read_file", "parameters":`
	case r.repeatStop && m.conv.dialect == dialectLlamaJSON:
		thought, _ := json.Marshal(r.thought)
		msg.Content = `{"thought": ` + string(thought) + `,` + strings.Repeat("\n", repeatLimit)
	case r.repeatStop:
		// A native model writing a tool call as text: Ollama's tool parser
		// holds it back until the call is complete, so when the repeat stop
		// ends the generation, none of it is ever sent.
		msg.Content = ""
	case m.conv.dialect == dialectLlamaJSON:
		msg.Content = jsonModeText(r)
	case len(r.calls) > 0:
		for i, c := range r.calls {
			a := api.NewToolCallFunctionArguments()
			for _, kv := range c.Args {
				a.Set(kv.Key, kv.Value)
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
				ID:       ollamaCallID(m, i),
				Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: a},
			})
		}
	default:
		msg.Content = r.text
	}
	return msg
}

// jsonModeText writes a decision the way the JSON-mode system prompt asks,
// spaced like a model writes it. JSON mode has one call per reply.
func jsonModeText(r reply) string {
	if len(r.calls) > 0 {
		c := r.calls[0]
		return spacedJSON(args{{"thought", r.thought}, {"tool_call", args{{"name", c.Name}, {"input", c.Args}}}})
	}
	return spacedJSON(args{{"thought", r.thought}, {"response", r.text}})
}

// brokenJSONReply is the malformed lesson's first JSON-mode reply: a
// sentence of prose (in the request's language l), then an object whose
// final closing brace is missing.
func brokenJSONReply(l language, r reply) string {
	full := spacedJSON(args{{"thought", r.thought}, {"tool_call", args{{"name", "read_file"}, {"input", args{{"path", "notes/todo.txt"}}}}}})
	return l.say("Sure! I will read the todo list first.\n", "わかりました。まず TODO リストを読みます。\n") + strings.TrimSuffix(full, "}")
}

// spacedJSON marshals v and puts a space after every ':' and ',' outside
// strings: `{"a": 1, "b": 2}`.
func spacedJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	var out strings.Builder
	inString, escaped := false, false
	for _, c := range string(b) {
		out.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.String()
}

// ollamaCallID is a deterministic tool call id in Ollama's own form:
// "call_" and 8 characters of [a-z0-9].
func ollamaCallID(m modelCall, index int) string {
	sum := m.digest(fmt.Sprintf("glassbox offline call %d", index))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	id := []byte("call_")
	for _, b := range sum[:8] {
		id = append(id, alphabet[int(b)%len(alphabet)])
	}
	return string(id)
}

// ollamaMetrics fills the final object's counters: the prompt's and the
// reply's token counts, and the call's time split the way the simulation
// spent it: prompt evaluation until the first line (measured), generation
// while the lines streamed (the latency spread over them: zero, and so
// omitted as Ollama omits it, without --sim-latency), loading the rest.
func ollamaMetrics(m modelCall, evalCount int, start time.Time, promptEval, eval time.Duration) api.Metrics {
	total := max(time.Since(start), 10*time.Microsecond)
	return api.Metrics{
		TotalDuration:      total,
		LoadDuration:       max(total-promptEval-eval, 0),
		PromptEvalCount:    tokens(m.size),
		PromptEvalDuration: promptEval,
		EvalCount:          max(evalCount, 1),
		EvalDuration:       eval,
	}
}

// ollamaTokens cuts text into token-sized pieces the way a BPE tokenizer
// roughly does: a word with its leading space (" weather"), a long word in
// pieces of at most 8 letters, up to 3 punctuation marks together (`{"`,
// `":`, ` "` with the space that leads them), Japanese two kana or kanji at
// a time ("これ", "は日"), each newline on its own. The pieces concatenate
// back to text.
func ollamaTokens(text string) []string {
	const maxLetters, maxMarks, maxKana = 8, 3, 2
	var out []string
	var cur []rune
	kind, n := 0, 0 // what cur holds (0 nothing or a lone space, 1 a word, 2 marks, 3 kana or kanji) and how many
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
		cur, kind, n = cur[:0], 0, 0
	}
	for _, c := range text {
		switch {
		case c == '\n':
			flush()
			out = append(out, "\n")
		case c == ' ':
			flush()
			cur = append(cur, c)
		case unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Han):
			// Japanese has no spaces; a tokenizer spends a token on
			// every one or two kana or kanji.
			if kind != 3 && kind != 0 || kind == 3 && n == maxKana {
				flush()
			}
			cur, kind, n = append(cur, c), 3, n+1
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if kind != 1 && kind != 0 || kind == 1 && n == maxLetters {
				flush()
			}
			cur, kind, n = append(cur, c), 1, n+1
		default:
			if kind != 2 && kind != 0 || kind == 2 && n == maxMarks {
				flush()
			}
			cur, kind, n = append(cur, c), 2, n+1
		}
	}
	flush()
	return out
}

// ollamaStream is the reply as a real server streams it (server/routes.go
// ChatHandler): one token per line; each tool call in a line of its own
// (index 0, then 1, …); the last token in the done:true line with the
// metrics and done_reason — or, for a tool call cut at the token limit in
// native mode, the whole unfinished call there (the tool parser held it
// back); and no done line at all after Ollama's token-repeat stop.
func ollamaStream(m modelCall, r reply, msg api.Message) (lines []api.Message, final *api.Message, reason string) {
	reason = "stop"
	if r.cut {
		reason = "length"
	}
	toks := ollamaTokens(msg.Content)
	if r.cut && m.conv.dialect == dialectLlamaNative {
		toks = nil
	}
	for _, t := range toks {
		lines = append(lines, api.Message{Role: "assistant", Content: t})
	}
	for i := range msg.ToolCalls {
		lines = append(lines, api.Message{Role: "assistant", ToolCalls: msg.ToolCalls[i : i+1]})
	}
	if r.repeatStop {
		return lines, nil, ""
	}
	final = &api.Message{Role: "assistant"}
	switch {
	case r.cut && m.conv.dialect == dialectLlamaNative:
		final.Content = msg.Content
	case len(msg.ToolCalls) == 0 && len(lines) > 0:
		final.Content = lines[len(lines)-1].Content
		lines = lines[:len(lines)-1]
	}
	return lines, final, reason
}

// serveOllamaChat answers POST /api/chat.
func (s *Server) serveOllamaChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := readBody(r)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, m, err := parseOllamaChat(s.request(body), &s.ollama)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.modelKnown(req.Model) {
		ollamaNotFound(w, req.Model)
		return
	}
	stream := req.Stream == nil || *req.Stream
	rep, err := s.prepare(r.Context(), m, s.firstByteDelay(stream))
	promptEval := max(time.Since(start), time.Microsecond)
	errs := apiErrors{
		notFound: func() { ollamaNotFound(w, req.Model) },
		fault: func(status int, overloaded bool) {
			msg := "rate limit exceeded"
			if overloaded {
				msg = "model is overloaded"
			}
			writeOllamaError(w, status, msg)
		},
	}
	if errs.wrote(w, err) {
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
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg,
			Done: true, DoneReason: reason, Metrics: ollamaMetrics(m, evalCount, start, promptEval, 0),
		})
		return
	}
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
	// The second half of the latency budget is spread over the lines, so
	// tokens arrive at a steady rate.
	// Each line is due at a fixed time after the first, so the timer's own
	// overhead does not add up over hundreds of tokens.
	delay := s.chunkDelay(len(lines) + 1)
	first := time.Now()
	var eval time.Duration
	for i, l := range lines {
		if i > 0 {
			eval += delay
			if sleep(r.Context(), time.Until(first.Add(eval))) != nil {
				return
			}
		}
		if !write(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: l}) {
			return
		}
		if i == 0 {
			first = time.Now() // the client has taken the first line
		}
	}
	if final == nil {
		return // Ollama's token-repeat stop: the stream ends, cleanly, here
	}
	if len(lines) > 0 {
		eval += delay
		if sleep(r.Context(), time.Until(first.Add(eval))) != nil {
			return
		}
	}
	write(api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(), Message: *final,
		Done: true, DoneReason: reason, Metrics: ollamaMetrics(m, evalCount, start, promptEval, eval),
	})
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
	sum := sha256.Sum256([]byte(ModelVersion))
	writeJSON(w, http.StatusOK, api.ListResponse{Models: []api.ListModelResponse{{
		Name: defaultOllamaModel, Model: defaultOllamaModel, ModifiedAt: ollamaModifiedAt(),
		Size: 0, Digest: fmt.Sprintf("%x", sum), Details: ollamaDetails(),
	}}})
}

// serveOllamaShow answers POST /api/show for any model name: the tutor
// supports completion and tools.
func (s *Server) serveOllamaShow(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
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
	if !s.modelKnown(name) {
		ollamaNotFound(w, name)
		return
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Modelfile: "# glassbox offline tutor: a deterministic lesson script, not a real model.\n" +
			"# It answers as \"" + name + "\" so the Ollama client works unchanged.\nFROM " + ModelVersion + "\n",
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
	writeJSON(w, status, map[string]string{"error": msg})
}
