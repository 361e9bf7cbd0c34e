package openai

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/offline"
)

func openAIPost(t *testing.T, body string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	offline.NewHandler(offline.Config{}, &Emulator).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
	return w
}

const openAITools = `"tools":[{"type":"function","function":{"name":"list_files","parameters":{"type":"object"}}},{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}]`

// The stream has the documented shape: chat.completion.chunk events, the
// role first, a tool call's id and name in one event and its arguments
// spread over the next ones, the finish_reason in the last choice event,
// the usage in an event with no choices, then data: [DONE].
func TestOpenAIStreamShape(t *testing.T) {
	w := openAIPost(t, `{"model":"llama3.1:8b","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"list the files"}],`+openAITools+`}`)
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", w.Code, w.Header().Get("Content-Type"))
	}
	events := strings.Split(strings.TrimSuffix(w.Body.String(), "\n\n"), "\n\n")
	if events[len(events)-1] != "data: [DONE]" {
		t.Fatalf("last event %q", events[len(events)-1])
	}
	var chunks []openAIChunk
	for _, e := range events[:len(events)-1] {
		var c openAIChunk
		if err := json.Unmarshal([]byte(strings.TrimPrefix(e, "data: ")), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("event %q: %v", e, err)
		}
		chunks = append(chunks, c)
	}
	if chunks[0].Choices[0].Delta.Role != "assistant" {
		t.Errorf("first delta %+v", chunks[0].Choices[0].Delta)
	}
	usage := chunks[len(chunks)-1]
	if len(usage.Choices) != 0 || usage.Usage == nil || usage.Usage.PromptTokens == 0 {
		t.Errorf("usage event %+v", usage)
	}
	end := chunks[len(chunks)-2].Choices[0]
	if end.FinishReason == nil || *end.FinishReason != "tool_calls" {
		t.Errorf("finish event %+v", end)
	}
	var name, arguments string
	pieces := 0
	for _, c := range chunks[:len(chunks)-2] {
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.ID != "" {
				name = tc.Function.Name
				continue
			}
			pieces++
			arguments += tc.Function.Arguments
		}
	}
	if name != "list_files" || pieces < 2 || !json.Valid([]byte(arguments)) {
		t.Fatalf("tool call %s(%s) in %d pieces", name, arguments, pieces)
	}
}

// Without "stream", one chat.completion object; an unknown model is a 404
// in the API's error shape.
func TestOpenAIUnaryAndNotFound(t *testing.T) {
	w := openAIPost(t, `{"model":"llama3.1:8b","messages":[{"role":"user","content":"hello"}]}`)
	var c openAIChunk
	if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || c.Object != "chat.completion" || c.Choices[0].Message == nil || *c.Choices[0].FinishReason != "stop" {
		t.Fatalf("%d %s (%v)", w.Code, w.Body, err)
	}
	w = openAIPost(t, `{"model":"gpt-9","messages":[{"role":"user","content":"hello"}]}`)
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if w.Code != 404 || json.Unmarshal(w.Body.Bytes(), &e) != nil || !strings.Contains(e.Error.Message, `model "gpt-9" not found`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// A tool message is paired with its call by tool_call_id; an assistant
// call whose arguments are not JSON is the trace of a malformed reply.
func TestOpenAIConversation(t *testing.T) {
	_, m, err := parseOpenAIChat(offline.NewTutor(offline.Config{}).Body([]byte(`{"model":"m","messages":[
		{"role":"user","content":[{"type":"text","text":"read it"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"Error: no such file"},
		{"role":"assistant","content":"","tool_calls":[{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}]}`)), &offline.TurnCache[openAITurns]{})
	if err != nil {
		t.Fatal(err)
	}
	steps := m.Steps()
	if m.Request() != "read it" || len(steps) != 3 {
		t.Fatalf("request %q, steps %+v", m.Request(), steps)
	}
	if r := steps[1].Result; r.Name != "read_file" || !r.IsError || r.Call == nil || r.Call.ID != "call_1" {
		t.Errorf("result %+v", r)
	}
	if !steps[2].Malformed || !m.Misfired() {
		t.Errorf("a call with arguments that are not JSON should count as a misfire: %+v", steps[2])
	}
}

// A tool message must answer a call of an earlier assistant message, as
// the real API demands: a request that breaks the pairing is refused.
func TestOpenAIToolMessageNeedsItsCall(t *testing.T) {
	w := openAIPost(t, `{"model":"llama3.1:8b","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"r"}]}`)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "must be a response to a preceding message with 'tool_calls'") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}
