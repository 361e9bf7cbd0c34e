package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// fakeOllama is an httptest server standing in for Ollama's /api/chat: it
// answers with reply and keeps every request body it received.
type fakeOllama struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newFakeOllama(t *testing.T, reply http.HandlerFunc) *fakeOllama {
	t.Helper()
	f := &fakeOllama{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		_, _ = body.ReadFrom(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body.Bytes())
		f.mu.Unlock()
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		reply(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// lastBody is the last request body, raw and decoded.
func (f *fakeOllama) lastBody(t *testing.T) ([]byte, map[string]any) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		t.Fatal("the fake Ollama received no request")
	}
	raw := f.bodies[len(f.bodies)-1]
	var decoded map[string]any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, raw)
	}
	return raw, decoded
}

// readTestdata returns a file from testdata/.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ndjsonLine is a (pretty-printed) documentation example as the one line it
// is on the wire.
func ndjsonLine(t *testing.T, name string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, readTestdata(t, name)); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.String()
}

// contentChunk is the documented streaming chunk with its message content
// replaced, the way a model's text arrives piece by piece.
func contentChunk(t *testing.T, content string) string {
	t.Helper()
	var chunk map[string]any
	if err := json.Unmarshal(readTestdata(t, "chat_stream_chunk.json"), &chunk); err != nil {
		t.Fatal(err)
	}
	chunk["message"].(map[string]any)["content"] = content
	b, err := json.Marshal(chunk)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// streamLines answers with NDJSON, flushing after every line.
func streamLines(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			_, _ = w.Write([]byte(l + "\n"))
			w.(http.Flusher).Flush()
		}
	}
}

// errorReply answers with an error status and body, as Ollama's gin server
// does (no trailing newline).
func errorReply(status int, body []byte, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

func newProvider(t *testing.T, host, mode string, schema bool) *Provider {
	t.Helper()
	p, err := New(Config{Host: host, ToolMode: mode, Schema: schema})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func weatherTools() []history.ToolSpec {
	return []history.ToolSpec{{
		Name:        "get_weather",
		Description: "Get the weather in a given city",
		Params:      []history.ParamSpec{{Name: "city", Type: history.TypeString, Description: "The city to get the weather for", Required: true}},
	}}
}

func weatherRequest() providers.Request {
	return providers.Request{
		System:   "You are a helpful assistant.",
		Messages: []history.Message{{Role: history.RoleUser, Text: "what is the weather in tokyo?"}},
		Tools:    weatherTools(),
	}
}

// want describes a successful Call's Response.
type want struct {
	text       string
	thought    string
	calls      []history.ToolCall
	stop       providers.StopReason
	finish     string
	usage      providers.Usage
	duration   time.Duration
	malformed  string // substring; empty means none
	parse      bool   // a ParseStep is expected (JSON mode)
	nativeKind string
}

func checkResponse(t *testing.T, resp *providers.Response, w want) {
	t.Helper()
	m := resp.Message
	if m.Role != history.RoleAssistant {
		t.Errorf("Role = %q", m.Role)
	}
	if m.Text != w.text {
		t.Errorf("Text = %q, want %q", m.Text, w.text)
	}
	if m.Thought != w.thought {
		t.Errorf("Thought = %q, want %q", m.Thought, w.thought)
	}
	if len(m.ToolCalls) != len(w.calls) {
		t.Fatalf("ToolCalls = %+v, want %+v", m.ToolCalls, w.calls)
	}
	for i, c := range m.ToolCalls {
		if c.ID != w.calls[i].ID || c.Name != w.calls[i].Name || string(c.Args) != string(w.calls[i].Args) {
			t.Errorf("ToolCalls[%d] = {%q %q %s}, want {%q %q %s}", i, c.ID, c.Name, c.Args, w.calls[i].ID, w.calls[i].Name, w.calls[i].Args)
		}
	}
	if resp.StopReason != w.stop {
		t.Errorf("StopReason = %q, want %q", resp.StopReason, w.stop)
	}
	if resp.FinishReason != w.finish {
		t.Errorf("FinishReason = %q, want %q", resp.FinishReason, w.finish)
	}
	if resp.Usage != w.usage {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, w.usage)
	}
	if resp.Duration != w.duration {
		t.Errorf("Duration = %v, want %v", resp.Duration, w.duration)
	}
	switch {
	case w.malformed == "" && resp.Malformed != "":
		t.Errorf("Malformed = %q, want none", resp.Malformed)
	case w.malformed != "" && !strings.Contains(resp.Malformed, w.malformed):
		t.Errorf("Malformed = %q, want it to contain %q", resp.Malformed, w.malformed)
	}
	if (resp.Parse != nil) != w.parse {
		t.Errorf("Parse = %+v, want present: %v", resp.Parse, w.parse)
	}
	if m.Native == nil || m.Native.Provider != w.nativeKind {
		t.Errorf("Native = %+v, want provider %q", m.Native, w.nativeKind)
	}
	if len(resp.Exchanges) != 1 {
		t.Fatalf("Exchanges = %d, want 1", len(resp.Exchanges))
	}
	ex := resp.Exchanges[0]
	if ex.Method != http.MethodPost || !strings.HasSuffix(ex.URL, "/api/chat") || ex.Status != http.StatusOK {
		t.Errorf("exchange = %s %s %d", ex.Method, ex.URL, ex.Status)
	}
	var joined []byte
	for _, c := range ex.Chunks {
		joined = append(joined, c.Data...)
	}
	if len(ex.Chunks) == 0 || !bytes.Equal(joined, ex.ResponseBody) {
		t.Errorf("the recorded chunks (%d) do not add up to the response body", len(ex.Chunks))
	}
}

func TestCallSucceeds(t *testing.T) {
	const jsonReply = `{"thought": "I need the weather.", "tool_call": {"name": "get_weather", "input": {"city": "Tokyo"}}}`
	tests := []struct {
		name   string
		mode   string
		schema bool
		reply  func(t *testing.T) http.HandlerFunc
		want   want
	}{
		{
			name: "native: streamed tool call, then the final chunk with metrics",
			mode: ToolModeNative,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(ndjsonLine(t, "chat_tools_stream_chunk_toolcall.json"), ndjsonLine(t, "chat_tools_stream_final.json"))
			},
			want: want{
				calls: []history.ToolCall{{Name: "get_weather", Args: json.RawMessage(`{"city":"Tokyo"}`)}},
				stop:  providers.StopToolUse, finish: "stop",
				usage: providers.Usage{InputTokens: 169, OutputTokens: 15}, duration: 182242375,
				nativeKind: NativeLlamaNative,
			},
		},
		{
			name: "native: tool call with an id",
			mode: ToolModeNative,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(strings.Split(strings.TrimSpace(string(readTestdata(t, "chat_stream_toolcall_with_id__cloud_test_fixture.ndjson"))), "\n")...)
			},
			want: want{
				calls: []history.ToolCall{{ID: "call_1", Name: "web_search", Args: json.RawMessage(`{"query":"latest Ollama release"}`)}},
				stop:  providers.StopToolUse,
				usage: providers.Usage{InputTokens: 12, OutputTokens: 4}, nativeKind: NativeLlamaNative,
			},
		},
		{
			name: "native: several calls across chunks, arguments in the model's order",
			mode: ToolModeNative,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(
					`{"model":"llama3.1:8b","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","function":{"index":0,"name":"write_file","arguments":{"path":"b.txt","content":"hi","append":false}}},{"id":"call_b","function":{"index":1,"name":"read_file","arguments":{"path":"b.txt"}}}]},"done":false}`,
					`{"model":"llama3.1:8b","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":2,"name":"list_files","arguments":{}}}]},"done":false}`,
					ndjsonLine(t, "chat_tools_stream_final.json"),
				)
			},
			want: want{
				calls: []history.ToolCall{
					{ID: "call_a", Name: "write_file", Args: json.RawMessage(`{"path":"b.txt","content":"hi","append":false}`)},
					{ID: "call_b", Name: "read_file", Args: json.RawMessage(`{"path":"b.txt"}`)},
					{Name: "list_files", Args: json.RawMessage(`{}`)},
				},
				stop: providers.StopToolUse, finish: "stop",
				usage: providers.Usage{InputTokens: 169, OutputTokens: 15}, duration: 182242375,
				nativeKind: NativeLlamaNative,
			},
		},
		{
			name: "native: a non-streamed reply with a tool call",
			mode: ToolModeNative,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(ndjsonLine(t, "chat_tools_nonstream_response.json"))
			},
			want: want{
				calls: []history.ToolCall{{Name: "get_weather", Args: json.RawMessage(`{"city":"Tokyo"}`)}},
				stop:  providers.StopToolUse, finish: "stop",
				usage: providers.Usage{InputTokens: 169, OutputTokens: 18}, duration: 3244883583,
				nativeKind: NativeLlamaNative,
			},
		},
		{
			name: "native: streamed text, then the final chunk",
			mode: ToolModeNative,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(ndjsonLine(t, "chat_stream_chunk.json"), contentChunk(t, " sky is blue."), ndjsonLine(t, "chat_stream_final.json"))
			},
			want: want{
				text: "The sky is blue.", stop: providers.StopEndTurn,
				usage: providers.Usage{InputTokens: 26, OutputTokens: 282}, duration: 4883583458,
				nativeKind: NativeLlamaNative,
			},
		},
		{
			name: "json: a tool call written across chunks",
			mode: ToolModeJSON,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(
					contentChunk(t, jsonReply[:20]), contentChunk(t, jsonReply[20:61]), contentChunk(t, jsonReply[61:]),
					ndjsonLine(t, "chat_tools_stream_final.json"),
				)
			},
			want: want{
				thought: "I need the weather.",
				calls:   []history.ToolCall{{Name: "get_weather", Args: json.RawMessage(`{"city":"Tokyo"}`)}},
				stop:    providers.StopToolUse, finish: "stop",
				usage: providers.Usage{InputTokens: 169, OutputTokens: 15}, duration: 182242375,
				parse: true, nativeKind: NativeLlamaJSON,
			},
		},
		{
			name: "json: a final response in a code fence",
			mode: ToolModeJSON,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(contentChunk(t, "```json\n{\"thought\": \"Known.\", \"response\": \"It is 21°C in Tokyo.\"}\n```"), ndjsonLine(t, "chat_stream_final.json"))
			},
			want: want{
				thought: "Known.", text: "It is 21°C in Tokyo.", stop: providers.StopEndTurn,
				usage: providers.Usage{InputTokens: 26, OutputTokens: 282}, duration: 4883583458,
				parse: true, nativeKind: NativeLlamaJSON,
			},
		},
		{
			name: "json: the documented non-streamed prose reply is malformed",
			mode: ToolModeJSON,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(ndjsonLine(t, "chat_nonstream_response.json"))
			},
			want: want{
				text: "Hello! How are you today?", stop: providers.StopEndTurn,
				usage: providers.Usage{InputTokens: 26, OutputTokens: 298}, duration: 5191566416,
				malformed: "Your last reply could not be used: no JSON object found in the reply",
				parse:     true, nativeKind: NativeLlamaJSON,
			},
		},
		{
			name:   "json with schema: the documented structured output is not a reply",
			mode:   ToolModeJSON,
			schema: true,
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(ndjsonLine(t, "chat_structured_output_response.json"))
			},
			want: want{
				text: `{"age": 22, "available": false}`, stop: providers.StopEndTurn, finish: "stop",
				usage: providers.Usage{InputTokens: 34, OutputTokens: 12}, duration: 2254970291,
				malformed: `reply has neither "tool_call" nor "response" (its keys: "age", "available")`,
				parse:     true, nativeKind: NativeLlamaJSON,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeOllama(t, tt.reply(t))
			p := newProvider(t, fake.srv.URL, tt.mode, tt.schema)
			resp, err := p.Call(context.Background(), weatherRequest())
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			checkResponse(t, resp, tt.want)
		})
	}
}

// The JSON-mode reply keeps the exact text the model wrote, and the next
// request replays it byte for byte.
func TestJSONModeReplaysTheModelsText(t *testing.T) {
	const written = "Sure!\n{\"thought\": \"t\",  \"tool_call\": {\"name\": \"get_weather\", \"input\": {\"city\": \"Tokyo\"}}}"
	fake := newFakeOllama(t, streamLines(contentChunk(t, written), ndjsonLine(t, "chat_stream_final.json")))
	p := newProvider(t, fake.srv.URL, ToolModeJSON, false)

	req := weatherRequest()
	resp, err := p.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var data string
	if err := json.Unmarshal(resp.Message.Native.Data, &data); err != nil || data != written {
		t.Fatalf("Native.Data = %s (%v), want the raw text as a JSON string", resp.Message.Native.Data, err)
	}
	if resp.Parse.Raw != written || resp.Parse.Extracted != written[len("Sure!\n"):] {
		t.Errorf("Parse = %+v", resp.Parse)
	}
	if !strings.Contains(resp.Parse.Outcome, "ignored text before the object") {
		t.Errorf("Outcome = %q, want the note about the prose", resp.Parse.Outcome)
	}

	req.Messages = append(req.Messages, resp.Message)
	if _, err := p.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	_, body := fake.lastBody(t)
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "assistant" || last["content"] != written {
		t.Errorf("replayed assistant message = %v, want the text as written", last)
	}
}

// The native reply is replayed as the api.Message Ollama sent, id included.
func TestNativeModeReplaysTheMessageUnchanged(t *testing.T) {
	fake := newFakeOllama(t, streamLines(strings.Split(strings.TrimSpace(string(readTestdata(t, "chat_stream_toolcall_with_id__cloud_test_fixture.ndjson"))), "\n")...))
	p := newProvider(t, fake.srv.URL, ToolModeNative, false)
	req := weatherRequest()
	resp, err := p.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, resp.Message, history.Message{
		Role:   history.RoleTool,
		Result: &history.ToolResult{CallID: "call_1", Name: "web_search", Content: "v0.17.4"},
	})
	if _, err := p.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	raw, _ := fake.lastBody(t)
	for _, w := range []string{
		`{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"web_search","arguments":{"query":"latest Ollama release"}}}]}`,
		`{"role":"tool","content":"v0.17.4","tool_name":"web_search","tool_call_id":"call_1"}`,
	} {
		if !bytes.Contains(raw, []byte(w)) {
			t.Errorf("request lacks %s\n%s", w, raw)
		}
	}
}

// history for the request-body tests: a person, a Llama JSON-mode turn as
// written, a turn rebuilt from neutral fields (as after a fork from Gemini),
// a failed tool result, a successful one, and the loop's feedback.
func mixedHistory() []history.Message {
	return []history.Message{
		{Role: history.RoleUser, Text: "What is in notes.txt?"},
		{Role: history.RoleAssistant, Thought: "Read it.", ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
			Native: &history.Native{Provider: NativeLlamaJSON, Data: json.RawMessage(`"{\"thought\":\"Read it.\",\"tool_call\":{\"name\":\"read_file\",\"input\":{\"path\":\"notes.txt\"}}}"`)}},
		{Role: history.RoleTool, Result: &history.ToolResult{Name: "read_file", Content: "no such file: notes.txt", IsError: true}},
		{Role: history.RoleAssistant, Thought: "List first.", ToolCalls: []history.ToolCall{{ID: "gem-7", Name: "list_files", Args: json.RawMessage(`{"path":".","hidden":true}`)}},
			Native: &history.Native{Provider: "gemini", Data: json.RawMessage(`{"role":"model","parts":[]}`)}},
		{Role: history.RoleTool, Result: &history.ToolResult{CallID: "gem-7", Name: "list_files", Content: "notes.md <b>"}},
		{Role: history.RoleUser, Feedback: true, Text: "Your last reply could not be used."},
	}
}

func TestRequestBodies(t *testing.T) {
	tests := []struct {
		name   string
		mode   string
		schema bool
		check  func(t *testing.T, raw []byte, body map[string]any)
	}{
		{
			name: "json mode",
			mode: ToolModeJSON,
			check: func(t *testing.T, raw []byte, body map[string]any) {
				if body["format"] != "json" {
					t.Errorf(`format = %v, want "json"`, body["format"])
				}
				if _, ok := body["tools"]; ok {
					t.Errorf("json mode sent a tools field")
				}
				wantMessages(t, body, []map[string]any{
					{"role": "system", "content": JSONModeSystemPrompt("You are a coding assistant.", sampleTools())},
					{"role": "user", "content": "What is in notes.txt?"},
					{"role": "assistant", "content": `{"thought":"Read it.","tool_call":{"name":"read_file","input":{"path":"notes.txt"}}}`},
					{"role": "user", "content": `{"tool_result":{"name":"read_file","result":"no such file: notes.txt","is_error":true}}`},
					{"role": "assistant", "content": `{"thought":"List first.","tool_call":{"name":"list_files","input":{"path":".","hidden":true}}}`},
					{"role": "user", "content": `{"tool_result":{"name":"list_files","result":"notes.md <b>"}}`},
					{"role": "user", "content": "Your last reply could not be used."},
				})
			},
		},
		{
			name:   "json mode with schema",
			mode:   ToolModeJSON,
			schema: true,
			check: func(t *testing.T, raw []byte, body map[string]any) {
				format, ok := body["format"].(map[string]any)
				if !ok || format["anyOf"] == nil {
					t.Errorf("format = %v, want the reply schema", body["format"])
				}
				if _, ok := body["tools"]; ok {
					t.Errorf("json mode sent a tools field")
				}
			},
		},
		{
			name: "native mode",
			mode: ToolModeNative,
			check: func(t *testing.T, raw []byte, body map[string]any) {
				if _, ok := body["format"]; ok {
					t.Errorf("native mode sent format %v", body["format"])
				}
				for _, w := range []string{
					// parameters in the ToolSpec's order, not sorted
					`{"type":"function","function":{"name":"read_file","description":"Read a file in the workspace.","parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string","description":"File path, relative to the workspace."},"max_lines":{"type":"integer","description":"Stop after this many lines."}}}}}`,
					`"patterns":{"type":"array","items":{"type":"string"},"description":"Glob patterns to keep."}`,
				} {
					if !bytes.Contains(raw, []byte(w)) {
						t.Errorf("tools lack %s\n%s", w, raw)
					}
				}
				wantMessages(t, body, []map[string]any{
					{"role": "system", "content": "You are a coding assistant."},
					{"role": "user", "content": "What is in notes.txt?"},
					{"role": "assistant", "content": "", "thinking": "Read it.", "tool_calls": []any{map[string]any{"function": map[string]any{"index": 0.0, "name": "read_file", "arguments": map[string]any{"path": "notes.txt"}}}}},
					{"role": "tool", "content": "Error: no such file: notes.txt", "tool_name": "read_file"},
					{"role": "assistant", "content": "", "thinking": "List first.", "tool_calls": []any{map[string]any{"id": "gem-7", "function": map[string]any{"index": 0.0, "name": "list_files", "arguments": map[string]any{"path": ".", "hidden": true}}}}},
					{"role": "tool", "content": "notes.md <b>", "tool_name": "list_files", "tool_call_id": "gem-7"},
					{"role": "user", "content": "Your last reply could not be used."},
				})
				if !bytes.Contains(raw, []byte(`"arguments":{"path":".","hidden":true}`)) {
					t.Errorf("rebuilt arguments lost their order:\n%s", raw)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeOllama(t, streamLines(ndjsonLine(t, "chat_stream_chunk.json"), ndjsonLine(t, "chat_stream_final.json")))
			p := newProvider(t, fake.srv.URL, tt.mode, tt.schema)
			_, _ = p.Call(context.Background(), providers.Request{System: "You are a coding assistant.", Messages: mixedHistory(), Tools: sampleTools()})
			raw, body := fake.lastBody(t)
			if body["model"] != DefaultModel {
				t.Errorf("model = %v", body["model"])
			}
			if _, ok := body["stream"]; ok {
				t.Errorf("stream = %v, want it unset (streaming)", body["stream"])
			}
			if opts, _ := body["options"].(map[string]any); opts["temperature"] != 0.0 {
				t.Errorf("options = %v, want temperature 0", body["options"])
			}
			tt.check(t, raw, body)
		})
	}
}

func wantMessages(t *testing.T, body map[string]any, want []map[string]any) {
	t.Helper()
	got, _ := body["messages"].([]any)
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Errorf("message %d\n got: %s\nwant: %s", i, g, w)
		}
	}
}

func TestCallFails(t *testing.T) {
	model := DefaultModel
	tests := []struct {
		name       string
		reply      func(t *testing.T) http.HandlerFunc
		kind       providers.ErrorKind
		status     int
		retryAfter time.Duration
		message    []string // substrings of the learner-facing message
	}{
		{
			name: "400 model is required",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(400, readTestdata(t, "error_400_model_required__chat_test.json"), nil)
			},
			kind: providers.KindBadRequest, status: 400,
			message: []string{"rejected the request (400 Bad Request)", `"model is required"`},
		},
		{
			name: "400 does not support tools",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(400, []byte(`{"error":"registry.ollama.ai/library/llama3.1:8b does not support tools"}`), nil)
			},
			kind: providers.KindUnsupported, status: 400,
			message: []string{"does not support Ollama's native tools", "`--tool-mode json`"},
		},
		{
			name: "400 does not support thinking",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(400, readTestdata(t, "error_400_does_not_support_thinking__chat_test.json"), nil)
			},
			kind: providers.KindUnsupported, status: 400,
			message: []string{`does not support thinking`, "--model"},
		},
		{
			name: "400 does not support insert",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(400, readTestdata(t, "error_400_does_not_support_insert__generate_test.json"), nil)
			},
			kind: providers.KindUnsupported, status: 400,
			message: []string{"does not support insert"},
		},
		{
			name: "401 unauthorized",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(401, []byte(`{"error":"unauthorized","signin_url":"https://ollama.com/connect?x"}`), nil)
			},
			kind: providers.KindAuth, status: 401,
			message: []string{"refused the request (401 Unauthorized)", "https://ollama.com/connect?x"},
		},
		{
			name: "404 model not found",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(404, readTestdata(t, "error_404_model_not_found__generate_test.json"), nil)
			},
			kind: providers.KindNotFound, status: 404,
			message: []string{"model " + model + " not found on http://", "run `ollama pull " + model + "`"},
		},
		{
			name: "404 from something that is not Ollama",
			reply: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
			},
			kind: providers.KindNotFound, status: 404,
			message: []string{"does not look like an Ollama server", "OLLAMA_HOST"},
		},
		{
			name: "429 with Retry-After",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(429, readTestdata(t, "error_429_rate_limit__chat_test.json"), map[string]string{"Retry-After": "7"})
			},
			kind: providers.KindRateLimit, status: 429, retryAfter: 7 * time.Second,
			message: []string{"rate limiting", `"rate limit exceeded"`},
		},
		{
			name: "429 with an empty body",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(429, nil, map[string]string{"Retry-After": "2"})
			},
			kind: providers.KindRateLimit, status: 429, retryAfter: 2 * time.Second,
			message: []string{"rate limiting"},
		},
		{
			name: "503 overloaded",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(503, readTestdata(t, "error_503_model_overloaded__chat_test.json"), map[string]string{"Retry-After": "30"})
			},
			kind: providers.KindUnavailable, status: 503, retryAfter: 30 * time.Second,
			message: []string{"(503 Service Unavailable)", `"model is overloaded"`},
		},
		{
			name: "500 with the documented pretty-printed error",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(500, readTestdata(t, "error_generic.json"), nil)
			},
			kind: providers.KindUnavailable, status: 500,
			message: []string{"(500 Internal Server Error)", `"the model failed to generate a response"`},
		},
		{
			name: "500 model runner has unexpectedly stopped",
			reply: func(t *testing.T) http.HandlerFunc {
				return errorReply(500, []byte(`{"error":"model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details"}`), nil)
			},
			kind: providers.KindUnavailable, status: 500,
			message: []string{"the model process on Ollama at", "crashed (500 Internal Server Error)", "journalctl -u ollama", "~/.ollama/logs/server.log"},
		},
		{
			name: "error line mid-stream",
			reply: func(t *testing.T) http.HandlerFunc {
				return streamLines(strings.Split(strings.TrimSpace(string(readTestdata(t, "error_midstream.ndjson"))), "\n")...)
			},
			kind: providers.KindUnavailable, status: 200,
			message: []string{`"an error was encountered while running the model"`, "middle of its reply"},
		},
		{
			name: "connection cut mid-stream",
			reply: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/x-ndjson")
					_, _ = w.Write([]byte(ndjsonLine(t, "chat_stream_chunk.json") + "\n"))
					w.(http.Flusher).Flush()
					// Close the connection without the last chunk of the
					// chunked encoding: the client sees an unexpected EOF.
					conn, _, err := w.(http.Hijacker).Hijack()
					if err != nil {
						t.Errorf("hijack: %v", err)
						return
					}
					_ = conn.Close()
				}
			},
			kind: providers.KindNetwork, status: 200,
			message: []string{"the connection to Ollama was cut in the middle of its reply, before done:true", "unexpected EOF", "retry"},
		},
	}
	for _, mode := range []string{ToolModeJSON, ToolModeNative} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				fake := newFakeOllama(t, tt.reply(t))
				p := newProvider(t, fake.srv.URL, mode, false)
				resp, err := p.Call(context.Background(), weatherRequest())
				pe := checkError(t, err, tt.kind, tt.status, tt.message)
				if pe.RetryAfter != tt.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", pe.RetryAfter, tt.retryAfter)
				}
				if resp == nil || len(resp.Exchanges) != 1 {
					t.Fatalf("Response = %+v, want one recorded exchange", resp)
				}
				if resp.Exchanges[0].Status != tt.status {
					t.Errorf("exchange status = %d, want %d", resp.Exchanges[0].Status, tt.status)
				}
			})
		}
	}
}

// checkError asserts err is a *providers.Error of the kind and status, with
// a message containing every fragment.
func checkError(t *testing.T, err error, kind providers.ErrorKind, status int, fragments []string) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want a *providers.Error", err, err)
	}
	if pe.Kind != kind {
		t.Errorf("Kind = %q, want %q (%s)", pe.Kind, kind, pe.Message)
	}
	if pe.Status != status {
		t.Errorf("Status = %d, want %d", pe.Status, status)
	}
	for _, f := range fragments {
		if !strings.Contains(pe.Message, f) {
			t.Errorf("message %q lacks %q", pe.Message, f)
		}
	}
	if !strings.HasSuffix(pe.Message, ".") {
		t.Errorf("message %q is not a full sentence", pe.Message)
	}
	return pe
}

// The SDK's value error types stay reachable with errors.As.
func TestCallKeepsTheSDKError(t *testing.T) {
	fake := newFakeOllama(t, errorReply(404, readTestdata(t, "error_404_model_not_found__generate_test.json"), nil))
	p := newProvider(t, fake.srv.URL, ToolModeJSON, false)
	_, err := p.Call(context.Background(), weatherRequest())
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model '' not found" {
		t.Errorf("errors.As(api.StatusError) = %+v from %v", se, err)
	}
}

func TestCallConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "http://" + l.Addr().String()
	_ = l.Close()

	p := newProvider(t, host, ToolModeJSON, false)
	resp, err := p.Call(context.Background(), weatherRequest())
	checkError(t, err, providers.KindUnreachable, 0, []string{"Ollama is not running at " + host + " — start it with `ollama serve`"})
	if providers.AsError(err).Transient() {
		t.Error("a refused connection must not be retried: nothing is listening")
	}
	if resp == nil || len(resp.Exchanges) != 1 || resp.Exchanges[0].Err == "" {
		t.Errorf("Response = %+v, want the failed exchange", resp)
	}
}

func TestCallCancelledMidStream(t *testing.T) {
	release := make(chan struct{})
	fake := newFakeOllama(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write([]byte(ndjsonLine(t, "chat_stream_chunk.json") + "\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	p := newProvider(t, fake.srv.URL, ToolModeNative, false)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := &providers.Recorder{OnChunk: func(providers.Chunk) { cancel() }}
	resp, err := p.Call(providers.WithRecorder(ctx, watch), weatherRequest())
	checkError(t, err, providers.KindCanceled, 0, []string{"cancelled"})
	if resp == nil || len(resp.Exchanges) != 1 {
		t.Errorf("Response = %+v, want the partial exchange", resp)
	}
}

// The body is read as it arrives: the server holds back the final line
// until the first one has reached the capture layer.
func TestCallReadsTheStreamIncrementally(t *testing.T) {
	firstSeen := make(chan struct{})
	fake := newFakeOllama(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write([]byte(ndjsonLine(t, "chat_tools_stream_chunk_toolcall.json") + "\n"))
		w.(http.Flusher).Flush()
		select {
		case <-firstSeen:
		case <-time.After(5 * time.Second):
			t.Error("the first line never reached the capture layer before the stream ended")
		}
		_, _ = w.Write([]byte(ndjsonLine(t, "chat_tools_stream_final.json") + "\n"))
	})
	p := newProvider(t, fake.srv.URL, ToolModeNative, false)

	var once sync.Once
	watch := &providers.Recorder{OnChunk: func(c providers.Chunk) {
		if bytes.Contains(c.Data, []byte(`"get_weather"`)) {
			once.Do(func() { close(firstSeen) })
		}
	}}
	resp, err := p.Call(providers.WithRecorder(context.Background(), watch), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	if chunks := resp.Exchanges[0].Chunks; len(chunks) < 2 {
		t.Errorf("recorded %d chunks, want at least 2", len(chunks))
	}
	if len(watch.Exchanges()) != 1 {
		t.Errorf("the outer recorder saw %d exchanges, want 1", len(watch.Exchanges()))
	}
}

func TestCallRejectsBrokenHistory(t *testing.T) {
	tests := []struct {
		name string
		mode string
		msg  history.Message
		want string
	}{
		{"tool message without a result", ToolModeJSON, history.Message{Role: history.RoleTool}, "history message 2 is a tool message without a result"},
		{"unknown role", ToolModeNative, history.Message{Role: "system"}, `history message 2 has the unknown role "system"`},
		{"arguments not an object", ToolModeNative, history.Message{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{Name: "x", Args: json.RawMessage(`[1]`)}}},
			"history message 2: the arguments of the x call are not a JSON object"},
		{"json-mode native data not a string", ToolModeJSON, history.Message{Role: history.RoleAssistant, Native: &history.Native{Provider: NativeLlamaJSON, Data: json.RawMessage(`{}`)}},
			"history message 2: the saved JSON-mode reply is not a JSON string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeOllama(t, streamLines())
			p := newProvider(t, fake.srv.URL, tt.mode, false)
			req := weatherRequest()
			req.Messages = append(req.Messages, tt.msg)
			resp, err := p.Call(context.Background(), req)
			checkError(t, err, providers.KindBadRequest, 0, []string{tt.want})
			if resp != nil {
				t.Errorf("Response = %+v, want nil: nothing reached the wire", resp)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if len(fake.bodies) != 0 {
				t.Errorf("a broken history was sent")
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "")
	t.Setenv("OLLAMA_BASE_URL", "")
	tests := []struct {
		name     string
		cfg      Config
		model    string
		host     string
		mode     string
		errorHas string
	}{
		{name: "defaults", model: DefaultModel, host: DefaultHost, mode: ToolModeJSON},
		{name: "explicit", cfg: Config{Model: "qwen3:4b", Host: "localhost:8080", ToolMode: "native"}, model: "qwen3:4b", host: "http://localhost:8080", mode: ToolModeNative},
		{name: "unknown tool mode", cfg: Config{ToolMode: "xml"}, errorHas: `unknown Llama tool mode "xml": use "json" or "native"`},
		{name: "bad port", cfg: Config{Host: "localhost:99999"}, errorHas: `has the port "99999"`},
		{name: "bad scheme", cfg: Config{Host: "ftp://example.com"}, errorHas: `has the scheme "ftp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.cfg)
			if tt.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorHas) {
					t.Fatalf("New error = %v, want it to contain %q", err, tt.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != "llama" || p.Model() != tt.model || p.Host() != tt.host || p.ToolMode() != tt.mode {
				t.Errorf("got %s %s %s %s", p.Name(), p.Model(), p.Host(), p.ToolMode())
			}
		})
	}
}
