package offline

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ollamaVersion is what GET /api/version reports: the API version the
// simulation follows, marked so nobody mistakes it for a real server.
const ollamaVersion = "0.17.4-glassbox-offline"

// defaultOllamaModel is the model /api/tags lists. /api/chat answers for
// any model name: the tutor plays every model.
const defaultOllamaModel = "llama3.1:8b"

// ollamaModifiedAt is a fixed timestamp for the listed model, so /api/tags
// and /api/show are byte-for-byte stable.
func ollamaModifiedAt() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// parseOllamaChat decodes an /api/chat body. The dialect follows the
// request: tools → native tool_calls; format without tools → JSON mode;
// neither → plain text.
func parseOllamaChat(body []byte) (api.ChatRequest, modelCall, error) {
	var req api.ChatRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return req, modelCall{}, errors.New("missing request body")
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, modelCall{}, err
	}
	if req.Model == "" {
		return req, modelCall{}, errors.New("model is required")
	}
	jsonFormat, err := ollamaFormat(req.Format)
	if err != nil {
		return req, modelCall{}, err
	}
	d := dialectLlamaPlain
	switch {
	case len(req.Tools) > 0:
		d = dialectLlamaNative
	case jsonFormat:
		d = dialectLlamaJSON
	}
	var items []item
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			if r, ok := jsonToolResult(msg.Content); ok {
				items = append(items, item{kind: itemResult, result: r})
			} else {
				items = append(items, item{kind: itemUser, text: msg.Content})
			}
		case "assistant":
			items = append(items, ollamaAssistantItem(d, msg))
		case "tool":
			items = append(items, item{kind: itemResult, result: toolResult{
				CallID: msg.ToolCallID, Name: msg.ToolName, Content: msg.Content,
				IsError: looksLikeErrorText(msg.Content),
			}})
		}
	}
	return req, modelCall{conv: newConversation(d, items), tools: d != dialectLlamaPlain, body: body}, nil
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
	it.malformed = strings.TrimSpace(msg.Content) == ""
	return it
}

// encodeOllama turns the tutor's reply into the assistant message.
func encodeOllama(m modelCall, r reply) api.Message {
	msg := api.Message{Role: "assistant"}
	switch {
	case r.misfire:
		msg.Content = brokenJSONReply(r)
	case m.conv.dialect == dialectLlamaJSON:
		msg.Content = jsonModeText(r)
	case len(r.calls) > 0:
		for i, c := range r.calls {
			a := api.NewToolCallFunctionArguments()
			for _, kv := range c.Args {
				a.Set(kv.Key, kv.Value)
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
				ID:       ollamaCallID(m.body, i),
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
// sentence of prose, then an object whose final closing brace is missing.
func brokenJSONReply(r reply) string {
	full := spacedJSON(args{{"thought", r.thought}, {"tool_call", args{{"name", "read_file"}, {"input", args{{"path", "notes/todo.txt"}}}}}})
	return "Sure! I will read the todo list first.\n" + strings.TrimSuffix(full, "}")
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
func ollamaCallID(body []byte, index int) string {
	sum := sha256.Sum256(append(fmt.Appendf(nil, "glassbox offline call %d\x00", index), body...))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	id := []byte("call_")
	for _, b := range sum[:8] {
		id = append(id, alphabet[int(b)%len(alphabet)])
	}
	return string(id)
}

// ollamaMetrics fills the final object's counters: token estimates, and the
// real time the call took split into load, prompt and generation.
func ollamaMetrics(m modelCall, msg api.Message, start time.Time) api.Metrics {
	out := len(msg.Content)
	for _, tc := range msg.ToolCalls {
		b, _ := json.Marshal(tc.Function)
		out += len(b)
	}
	total := max(time.Since(start), 10*time.Microsecond)
	return api.Metrics{
		TotalDuration:      total,
		LoadDuration:       total / 10,
		PromptEvalCount:    tokens(len(m.body)),
		PromptEvalDuration: total * 3 / 10,
		EvalCount:          tokens(out),
		EvalDuration:       total - total/10 - total*3/10,
	}
}

// serveOllamaChat answers POST /api/chat.
func (s *Server) serveOllamaChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := readBody(r)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, m, err := parseOllamaChat(body)
	if err != nil {
		writeOllamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	stream := req.Stream == nil || *req.Stream
	rep, err := s.prepare(r.Context(), m, s.firstByteDelay(stream))
	var f errFault
	switch {
	case errors.As(err, &f):
		w.Header().Set("Retry-After", "1")
		msg := "rate limit exceeded"
		if f.fault == faultOutage {
			msg = "model is overloaded"
		}
		writeOllamaError(w, f.status, msg)
		return
	case err != nil: // the caller gave up while waiting
		return
	}
	msg := encodeOllama(m, rep)
	if !stream {
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg,
			Done: true, DoneReason: "stop", Metrics: ollamaMetrics(m, msg, start),
		})
		return
	}
	// Streaming: the text in a few word chunks, tool calls whole in one
	// line, then the final line with done:true and the metrics.
	var lines []api.Message
	for _, t := range splitWords(msg.Content, 8) {
		if t != "" {
			lines = append(lines, api.Message{Role: "assistant", Content: t})
		}
	}
	if len(msg.ToolCalls) > 0 {
		lines = append(lines, api.Message{Role: "assistant", ToolCalls: msg.ToolCalls})
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
	delay := s.chunkDelay(len(lines) + 1)
	for i, l := range lines {
		if i > 0 && sleep(r.Context(), delay) != nil {
			return
		}
		if !write(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: l}) {
			return
		}
	}
	if len(lines) > 0 && sleep(r.Context(), delay) != nil {
		return
	}
	write(api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant"},
		Done: true, DoneReason: "stop", Metrics: ollamaMetrics(m, msg, start),
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
func serveOllamaShow(w http.ResponseWriter, r *http.Request) {
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
