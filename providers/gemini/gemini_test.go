package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

func userSays(text string) providers.Request {
	return providers.Request{Messages: []history.Message{{Role: history.RoleUser, Text: text}}}
}

func TestNewWithoutAKey(t *testing.T) {
	clearEnv(t)
	_, err := New(context.Background(), Config{})
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != providers.KindAuth {
		t.Fatalf("New error = %v, want a *providers.Error of kind auth", err)
	}
	want := "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), e.g. export GEMINI_API_KEY=your-key — get one at https://aistudio.google.com/apikey"
	if pe.Message != want {
		t.Errorf("message = %q, want %q", pe.Message, want)
	}
}

// TestNewReadsTheEnvironment: the key from GEMINI_API_KEY and the address
// from the SDK's own GOOGLE_GEMINI_BASE_URL.
func TestNewReadsTheEnvironment(t *testing.T) {
	f := newFakeGemini(t, reply{file: "resp_text_STOP__firebase_googleai.json"})
	clearEnv(t)
	t.Setenv("GEMINI_API_KEY", "env-key-5678")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", f.srv.URL)
	p, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "gemini" || p.Model() != "gemini-2.5-flash" {
		t.Errorf("Name, Model = %q, %q; want gemini, gemini-2.5-flash", p.Name(), p.Model())
	}
	resp, err := p.Call(context.Background(), userSays("hi"))
	if err != nil {
		t.Fatal(err)
	}
	seen := f.requests()
	if len(seen) != 1 || seen[0].Header.Get("x-goog-api-key") != "env-key-5678" {
		t.Fatalf("the server saw %d requests with key %q, want the key from GEMINI_API_KEY", len(seen), seen[0].Header.Get("x-goog-api-key"))
	}
	if got := resp.Exchanges[0].RequestHeaders["X-Goog-Api-Key"]; !slices.Equal(got, []string{providers.RedactedMark}) {
		t.Errorf("recorded x-goog-api-key = %q, want it redacted", got)
	}
}

func TestResponseMapping(t *testing.T) {
	tests := []struct {
		file        string
		wantText    string
		wantThought string // prefix
		wantCalls   []history.ToolCall
		wantStop    providers.StopReason
		wantFinish  string
		wantUsage   providers.Usage
		wantBad     string // in Malformed
	}{
		{
			file:       "resp_text_STOP__firebase_googleai.json",
			wantText:   "Google's headquarters, also known as the Googleplex, is located in **Mountain View, California**.\n",
			wantStop:   providers.StopEndTurn,
			wantFinish: "STOP",
			wantUsage:  providers.Usage{InputTokens: 7, OutputTokens: 22},
		},
		{
			file:       "resp_finishReason_MAX_TOKENS__firebase_developerapi_bdf8af9.json",
			wantText:   "Safety error incoming in 5, 4, 3, 2...",
			wantStop:   providers.StopMaxTokens,
			wantFinish: "MAX_TOKENS",
			wantUsage:  providers.Usage{InputTokens: 7, OutputTokens: 20},
		},
		{
			file:       "resp_finishReason_SAFETY_edited__firebase_googleai.json",
			wantText:   "Safety error incoming in 5, 4, 3, 2...",
			wantStop:   providers.StopEndTurn,
			wantFinish: "SAFETY",
			wantUsage:  providers.Usage{InputTokens: 7, OutputTokens: 20},
		},
		{
			file:        "resp_functionCall_thoughtSignature_STOP_usage__firebase_googleai.json",
			wantThought: "**Thinking Through the New Year's Eve Calculation**",
			wantCalls:   []history.ToolCall{{Name: "now", Args: json.RawMessage(`{}`)}},
			wantStop:    providers.StopToolUse,
			wantFinish:  "STOP",
			wantUsage:   providers.Usage{InputTokens: 38, OutputTokens: 8 + 501, ThoughtsTokens: 501},
		},
		{
			file:       "resp_functionCall_STOP_no_usage__firebase_vertexai_dir.json",
			wantCalls:  []history.ToolCall{{Name: "sum", Args: json.RawMessage(`{"x":4,"y":5}`)}},
			wantStop:   providers.StopToolUse,
			wantFinish: "STOP",
		},
		{
			file: "resp_parallel_functionCalls__firebase_vertexai_dir.json",
			wantCalls: []history.ToolCall{
				{Name: "sum", Args: json.RawMessage(`{"x":2,"y":1}`)},
				{Name: "sum", Args: json.RawMessage(`{"x":4,"y":3}`)},
				{Name: "sum", Args: json.RawMessage(`{"x":6,"y":5}`)},
			},
			wantStop:   providers.StopToolUse,
			wantFinish: "STOP",
		},
		{
			file:       "GLASSBOX_SYNTHETIC_resp_finishReason_MALFORMED_FUNCTION_CALL.json",
			wantStop:   providers.StopEndTurn,
			wantFinish: "MALFORMED_FUNCTION_CALL",
			wantUsage:  providers.Usage{InputTokens: 120},
			wantBad:    "Your last function call was malformed (finishReason MALFORMED_FUNCTION_CALL), so nothing was run; call one of the declared functions again with valid arguments. Gemini said: Malformed function call: print(default_api.read_file(path=\"notes.txt\"",
		},
	}
	for _, tt := range tests {
		for _, unary := range []bool{false, true} {
			name := strings.SplitN(tt.file, "__", 2)[0] + map[bool]string{false: "/streamed", true: "/unary"}[unary]
			t.Run(name, func(t *testing.T) {
				f := newFakeGemini(t, reply{file: tt.file})
				p := newTestProvider(t, f, Config{Call: providers.CallOptions{Unary: unary}})
				resp, err := p.Call(context.Background(), userSays("hello"))
				if err != nil {
					t.Fatal(err)
				}
				msg := resp.Message
				if msg.Role != history.RoleAssistant || msg.Text != tt.wantText {
					t.Errorf("message = %s %q, want assistant %q", msg.Role, msg.Text, tt.wantText)
				}
				if !strings.HasPrefix(msg.Thought, tt.wantThought) || (tt.wantThought == "") != (msg.Thought == "") {
					t.Errorf("thought = %q, want it to start with %q", msg.Thought, tt.wantThought)
				}
				if !reflect.DeepEqual(msg.ToolCalls, tt.wantCalls) {
					t.Errorf("tool calls = %s, want %s", callsString(msg.ToolCalls), callsString(tt.wantCalls))
				}
				if resp.StopReason != tt.wantStop || resp.FinishReason != tt.wantFinish || resp.Usage != tt.wantUsage {
					t.Errorf("stop %s, finish %s, usage %+v; want %s, %s, %+v", resp.StopReason, resp.FinishReason, resp.Usage, tt.wantStop, tt.wantFinish, tt.wantUsage)
				}
				if resp.Malformed != tt.wantBad {
					t.Errorf("Malformed = %q, want %q", resp.Malformed, tt.wantBad)
				}
				// Native keeps Gemini's own Content for the next request.
				if msg.Native == nil || msg.Native.Provider != "gemini" {
					t.Fatalf("Native = %+v, want provider gemini", msg.Native)
				}
				var content genai.Content
				if err := json.Unmarshal(msg.Native.Data, &content); err != nil {
					t.Errorf("Native.Data is not a genai.Content: %v", err)
				}
				// The exchange is attached, byte for byte as served.
				served := readTestdata(t, tt.file)
				if !unary {
					var compact bytes.Buffer
					json.Compact(&compact, served)
					served = append(append([]byte("data: "), compact.Bytes()...), "\r\n\r\n"...)
				}
				if len(resp.Exchanges) != 1 || string(resp.Exchanges[0].ResponseBody) != string(served) {
					t.Errorf("want one exchange holding the served file, got %d", len(resp.Exchanges))
				}
			})
		}
	}
}

func callsString(calls []history.ToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.ID+":"+c.Name+string(c.Args))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestRequestMapping(t *testing.T) {
	f := newFakeGemini(t, reply{file: "resp_text_STOP__firebase_googleai.json"})
	p := newTestProvider(t, f, Config{IncludeThoughts: true})
	req := providers.Request{
		System: "You are a careful coding agent.",
		Tools: []history.ToolSpec{
			{Name: "read_file", Description: "Read a file.", Params: []history.ParamSpec{
				{Name: "path", Type: history.TypeString, Description: "File path.", Required: true, Path: true},
				{Name: "max_lines", Type: history.TypeInteger, Description: "Limit."},
			}},
			{Name: "execute_command", Description: "Run a command.", Params: []history.ParamSpec{
				{Name: "command", Type: history.TypeString, Description: "Program.", Required: true},
				{Name: "args", Type: history.TypeArray, Description: "Arguments."},
				{Name: "dry_run", Type: history.TypeBoolean, Description: "Only print."},
			}},
			{Name: "list_files", Description: "List the workspace."},
		},
		Messages: []history.Message{{Role: history.RoleUser, Text: "list the files"}},
	}
	if _, err := p.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	seen := f.requests()[0]
	if seen.Method != http.MethodPost || seen.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || seen.Query != "alt=sse" {
		t.Errorf("request = %s %s?%s, want POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse (streamed by default)", seen.Method, seen.Path, seen.Query)
	}
	if seen.Header.Get("x-goog-api-key") != testKey {
		t.Errorf("x-goog-api-key = %q, want the real key on the wire", seen.Header.Get("x-goog-api-key"))
	}
	body := decodeJSON(t, seen.Body)
	checks := []struct {
		name string
		path []any
		want string
	}{
		{"system instruction", []any{"systemInstruction", "parts"}, `[{"text":"You are a careful coding agent."}]`},
		{"contents", []any{"contents"}, `[{"role":"user","parts":[{"text":"list the files"}]}]`},
		{"read_file", []any{"tools", 0, "functionDeclarations", 0}, `{
			"name":"read_file","description":"Read a file.",
			"parameters":{"type":"OBJECT",
				"properties":{"path":{"type":"STRING","description":"File path."},"max_lines":{"type":"INTEGER","description":"Limit."}},
				"propertyOrdering":["path","max_lines"],"required":["path"]}}`},
		{"execute_command", []any{"tools", 0, "functionDeclarations", 1, "parameters"}, `{"type":"OBJECT",
			"properties":{"command":{"type":"STRING","description":"Program."},
				"args":{"type":"ARRAY","description":"Arguments.","items":{"type":"STRING"}},
				"dry_run":{"type":"BOOLEAN","description":"Only print."}},
			"propertyOrdering":["command","args","dry_run"],"required":["command"]}`},
		{"a tool without parameters has no schema", []any{"tools", 0, "functionDeclarations", 2}, `{"name":"list_files","description":"List the workspace."}`},
		{"one tool holds every declaration", []any{"tools", 1}, `null`},
		{"thought summaries requested", []any{"generationConfig", "thinkingConfig"}, `{"includeThoughts":true}`},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "one tool holds every declaration" {
				if n := len(at(t, body, "tools").([]any)); n != 1 {
					t.Errorf("%d tools sent, want 1", n)
				}
				return
			}
			got := at(t, body, c.path...)
			if !jsonEqual(t, got, c.want) {
				b, _ := json.Marshal(got)
				t.Errorf("%v = %s, want %s", c.path, b, c.want)
			}
		})
	}
}

func TestUnknownParameterTypeIsRefused(t *testing.T) {
	p := newTestProvider(t, nil, Config{BaseURL: "http://127.0.0.1:1"})
	req := userSays("hi")
	req.Tools = []history.ToolSpec{{Name: "t", Params: []history.ParamSpec{{Name: "n", Type: "number"}}}}
	resp, err := p.Call(context.Background(), req)
	var pe *providers.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, `tool t declares parameter n with type "number"`) {
		t.Errorf("error = %v, want one naming the tool, parameter and type", err)
	}
	if resp == nil {
		t.Error("Response is nil, want a non-nil Response even on error")
	}
}

// TestThoughtSignatureRoundTrip: the model's Content goes back in the next
// request exactly as it came, thoughtSignature included.
func TestThoughtSignatureRoundTrip(t *testing.T) {
	first := "resp_functionCall_thoughtSignature_STOP_usage__firebase_googleai.json"
	f := newFakeGemini(t, reply{file: first}, reply{file: "resp_text_STOP__firebase_googleai.json"})
	p := newTestProvider(t, f, Config{})
	tools := []history.ToolSpec{{Name: "now", Description: "The current time."}}

	msgs := []history.Message{{Role: history.RoleUser, Text: "How many days until New Year's Eve?"}}
	resp1, err := p.Call(context.Background(), providers.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, resp1.Message, history.Message{Role: history.RoleTool, Result: &history.ToolResult{Name: "now", Content: "2026-11-21T09:00:00Z"}})
	if _, err := p.Call(context.Background(), providers.Request{Messages: msgs, Tools: tools}); err != nil {
		t.Fatal(err)
	}

	sent := decodeJSON(t, f.requests()[1].Body)
	served := at(t, decodeJSON(t, readTestdata(t, first)), "candidates", 0, "content")
	// The SDK encodes with omitempty, so `"args": {}` is not sent back: the
	// one change it makes. Everything else, the signature first, is as served.
	delete(at(t, served, "parts", 1, "functionCall").(map[string]any), "args")
	if got := at(t, sent, "contents", 1); !reflect.DeepEqual(got, served) {
		b, _ := json.Marshal(got)
		w, _ := json.Marshal(served)
		t.Errorf("the model turn sent back differs from the one served:\n sent %s\nserved %s", b, w)
	}
	wantSig := at(t, decodeJSON(t, readTestdata(t, first)), "candidates", 0, "content", "parts", 1, "thoughtSignature")
	if got := at(t, sent, "contents", 1, "parts", 1, "thoughtSignature"); got != wantSig {
		t.Errorf("thoughtSignature sent back = %v, want it byte for byte as received", got)
	}
	if got := at(t, sent, "contents", 2); !jsonEqual(t, got,
		`{"role":"user","parts":[{"functionResponse":{"name":"now","response":{"output":"2026-11-21T09:00:00Z"}}}]}`) {
		b, _ := json.Marshal(got)
		t.Errorf("tool result turn = %s", b)
	}
}

// TestHistoryFromAnotherProvider: an assistant turn Llama wrote is rebuilt
// from its text and calls; consecutive tool results become one user turn.
func TestHistoryFromAnotherProvider(t *testing.T) {
	f := newFakeGemini(t, reply{file: "resp_text_STOP__firebase_googleai.json"})
	p := newTestProvider(t, f, Config{})
	msgs := []history.Message{
		{Role: history.RoleUser, Text: "compare a.txt and b.txt"},
		{Role: history.RoleAssistant, Text: "Reading both.", Thought: "Llama's private thought",
			Native: &history.Native{Provider: "llama", Data: json.RawMessage(`{"thought":"x"}`)},
			ToolCalls: []history.ToolCall{
				{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call_2", Name: "read_file", Args: json.RawMessage(`{"path":"b.txt"}`)},
			}},
		{Role: history.RoleTool, Result: &history.ToolResult{CallID: "call_1", Name: "read_file", Content: "alpha"}},
		{Role: history.RoleTool, Result: &history.ToolResult{CallID: "call_2", Name: "read_file", Content: "DENY: outside the workspace", IsError: true}},
		{Role: history.RoleUser, Text: "your reply could not be parsed", Feedback: true},
	}
	if _, err := p.Call(context.Background(), providers.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got := at(t, decodeJSON(t, f.requests()[0].Body), "contents")
	want := `[
		{"role":"user","parts":[{"text":"compare a.txt and b.txt"}]},
		{"role":"model","parts":[
			{"text":"Reading both."},
			{"functionCall":{"id":"call_1","name":"read_file","args":{"path":"a.txt"}}},
			{"functionCall":{"id":"call_2","name":"read_file","args":{"path":"b.txt"}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"id":"call_1","name":"read_file","response":{"output":"alpha"}}},
			{"functionResponse":{"id":"call_2","name":"read_file","response":{"error":"DENY: outside the workspace"}}}]},
		{"role":"user","parts":[{"text":"your reply could not be parsed"}]}]`
	if !jsonEqual(t, got, want) {
		b, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("contents =\n%s\nwant\n%s", b, want)
	}
}

func TestBadHistoryIsRefused(t *testing.T) {
	tests := []struct {
		name string
		msg  history.Message
		want string
	}{
		{"tool message without a result", history.Message{Role: history.RoleTool}, "history message 2 is a tool message without a result"},
		{"unknown role", history.Message{Role: "system"}, `history message 2 has role "system"`},
		{"broken native reply", history.Message{Role: history.RoleAssistant, Native: &history.Native{Provider: "gemini", Data: json.RawMessage(`{"parts":`)}},
			"history message 2 holds a Gemini reply that is not valid JSON"},
		{"arguments that are not an object", history.Message{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`[1]`)}}},
			"history message 2 calls read_file with arguments that are not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestProvider(t, nil, Config{BaseURL: "http://127.0.0.1:1"})
			req := providers.Request{Messages: []history.Message{{Role: history.RoleUser, Text: "hi"}, tt.msg}}
			resp, err := p.Call(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
			if resp == nil {
				t.Error("Response is nil, want a non-nil Response even on error")
			}
		})
	}
}

func TestPromptBlocked(t *testing.T) {
	f := newFakeGemini(t, reply{file: "cookbook_resp_promptFeedback_blockReason_SAFETY.json"})
	p := newTestProvider(t, f, Config{})
	resp, err := p.Call(context.Background(), userSays("something unsafe"))
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != providers.KindBlocked || !strings.Contains(pe.Message, "blockReason SAFETY") {
		t.Fatalf("error = %v, want kind blocked naming SAFETY", err)
	}
	if resp == nil || len(resp.Exchanges) != 1 || resp.Exchanges[0].Status != 200 {
		t.Errorf("want the blocked exchange attached to the Response")
	}
}

func TestAPIErrors(t *testing.T) {
	tests := []struct {
		name       string
		model      string
		reply      reply
		kind       providers.ErrorKind
		retryAfter time.Duration
		contains   []string
	}{
		{"400 invalid key", "", reply{status: 400, file: "error_400_INVALID_ARGUMENT_api_key__firebase_googleai.json"},
			providers.KindAuth, 0, []string{"rejected the API key (400 INVALID_ARGUMENT API_KEY_INVALID)", "export GEMINI_API_KEY=your-key"}},
		{"400 unknown field", "", reply{status: 400, file: "cookbook_error_400_INVALID_ARGUMENT_unknown_field.CONVERTED.json"},
			providers.KindBadRequest, 0, []string{"rejected the request as invalid (400 INVALID_ARGUMENT)", `Unknown name "includeThoughts"`}},
		{"401 unauthenticated", "", reply{status: 401, body: `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`},
			providers.KindAuth, 0, []string{"(401 UNAUTHENTICATED)", "GEMINI_API_KEY"}},
		{"403 service disabled", "", reply{status: 403, file: "error_403_PERMISSION_DENIED_service_disabled__firebase_googleai.json"},
			providers.KindAuth, 0, []string{"the Gemini API is not enabled", "https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=12345678"}},
		{"403 other", "", reply{status: 403, body: `{"error":{"code":403,"message":"Permission denied.","status":"PERMISSION_DENIED"}}`},
			providers.KindAuth, 0, []string{"refused this API key", "GEMINI_API_KEY"}},
		{"404 unknown model", "gemini-5.0-flash", reply{status: 404, file: "error_404_NOT_FOUND_unknown_model__firebase_googleai.json"},
			providers.KindNotFound, 0, []string{`no model "gemini-5.0-flash"`, "--model gemini-2.5-flash."}},
		// When the default model is the one that failed, the hint names
		// it as failed and suggests another, never the same one again.
		{"404 the default model", "", reply{status: 404, file: "error_404_NOT_FOUND_unknown_model__firebase_googleai.json"},
			providers.KindNotFound, 0, []string{`no model "gemini-2.5-flash" for this key: the call to that model failed`, "--model gemini-2.5-flash-lite."}},
		{"429 quota", "", reply{status: 429, file: "error_429_RESOURCE_EXHAUSTED_quota__firebase_vertexai_dir.json"},
			providers.KindRateLimit, 0, []string{"(429 RESOURCE_EXHAUSTED RATE_LIMIT_EXCEEDED)", "Wait a minute"}},
		{"429 quota with Retry-After", "", reply{status: 429, file: "error_429_RESOURCE_EXHAUSTED_quota__firebase_vertexai_dir.json", header: http.Header{"Retry-After": {"7"}}},
			providers.KindRateLimit, 7 * time.Second, []string{"Wait 7s before retrying."}},
		{"429 with RetryInfo", "", reply{status: 429, file: "error_429_RESOURCE_EXHAUSTED_quota_retryinfo__gemini_cli_test_DECODED.json"},
			providers.KindRateLimit, 40 * time.Second, []string{"Wait 40s before retrying."}},
		{"503 unavailable", "", reply{status: 503, file: "error_503_UNAVAILABLE__THIRD_PARTY_LOG_UNVERIFIED.json"},
			providers.KindUnavailable, 0, []string{"unavailable right now (503 UNAVAILABLE", "retry in a little while"}},
		{"503 with Retry-After", "", reply{status: 503, file: "error_503_UNAVAILABLE__THIRD_PARTY_LOG_UNVERIFIED.json", header: http.Header{"Retry-After": {"12"}}},
			providers.KindUnavailable, 12 * time.Second, []string{"retry after 12s"}},
		{"500 plain text", "", reply{status: 500, body: "upstream exploded", header: http.Header{"Content-Type": {"text/plain"}}},
			providers.KindUnavailable, 0, []string{"(500 Internal Server Error: upstream exploded)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeGemini(t, tt.reply)
			p := newTestProvider(t, f, Config{Model: tt.model})
			resp, err := p.Call(context.Background(), userSays("hi"))
			var pe *providers.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *providers.Error", err)
			}
			if pe.Kind != tt.kind || pe.Status != tt.reply.status || pe.RetryAfter != tt.retryAfter {
				t.Errorf("kind %s, status %d, retry after %v; want %s, %d, %v", pe.Kind, pe.Status, pe.RetryAfter, tt.kind, tt.reply.status, tt.retryAfter)
			}
			for _, s := range tt.contains {
				if !strings.Contains(pe.Message, s) {
					t.Errorf("message %q does not contain %q", pe.Message, s)
				}
			}
			var ae genai.APIError
			if !errors.As(err, &ae) {
				t.Errorf("the SDK's genai.APIError is not reachable with errors.As")
			}
			if resp == nil || len(resp.Exchanges) != 1 || resp.Exchanges[0].Status != tt.reply.status {
				t.Errorf("want the failed exchange attached to the Response")
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("the server got %d requests, want 1: the SDK must not retry (the loop does, visibly)", n)
			}
		})
	}
}

// TestNoAutomaticContinuation: a reply with a continuationToken and no
// finishReason would make the SDK send a second request on its own.
func TestNoAutomaticContinuation(t *testing.T) {
	body := `{"candidates":[{"content":{"role":"model","parts":[{"text":"part one"}]},"continuationToken":"Y29udGludWU="}]}`
	t.Run("unary", func(t *testing.T) {
		f := newFakeGemini(t, reply{body: body})
		p := newTestProvider(t, f, Config{Call: providers.CallOptions{Unary: true}})
		resp, err := p.Call(context.Background(), userSays("write a long story"))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(f.requests()); n != 1 || resp.Message.Text != "part one" {
			t.Errorf("the server got %d requests and the reply is %q; want exactly 1 request and its text", n, resp.Message.Text)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		// A stream with no finishReason was cut on the way: glassbox
		// says so (and the loop retries); the SDK sends nothing more.
		f := newFakeGemini(t, reply{body: body})
		p := newTestProvider(t, f, Config{})
		_, err := p.Call(context.Background(), userSays("write a long story"))
		if pe := providers.AsError(err); pe == nil || !pe.Transient() || !strings.Contains(pe.Message, "none of them with a finishReason") {
			t.Errorf("error = %v, want a transient failure naming the missing finishReason", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("the server got %d requests; want exactly 1", n)
		}
	})
}

func TestTransportFailures(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		p := newTestProvider(t, nil, Config{BaseURL: closed.URL})
		resp, err := p.Call(context.Background(), userSays("hi"))
		var pe *providers.Error
		if !errors.As(err, &pe) || pe.Kind != providers.KindUnreachable || pe.Transient() {
			t.Fatalf("error = %v, want an unreachable error that is not retried", err)
		}
		if !strings.Contains(pe.Message, "nothing answered at "+closed.URL) || !strings.Contains(pe.Message, "connection refused") {
			t.Errorf("message = %q, want it to name the address and the cause", pe.Message)
		}
		if len(resp.Exchanges) != 1 || !strings.Contains(resp.Exchanges[0].Err, "connection refused") {
			t.Errorf("want the failed exchange recorded with its error, got %+v", resp.Exchanges)
		}
	})

	t.Run("cancelled while waiting", func(t *testing.T) {
		arrived := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body) // HTTP/1 notices a closed connection only after the body is read
			close(arrived)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer srv.Close()
		p := newTestProvider(t, nil, Config{BaseURL: srv.URL})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		resp, err := p.Call(ctx, userSays("hi"))
		var pe *providers.Error
		if !errors.As(err, &pe) || pe.Kind != providers.KindCanceled || pe.Transient() {
			t.Fatalf("error = %v, want kind canceled", err)
		}
		if len(resp.Exchanges) != 1 || !strings.Contains(resp.Exchanges[0].Err, "context canceled") {
			t.Errorf("want the cancelled exchange recorded, got %+v", resp.Exchanges)
		}
	})
}

// TestTheKeyNeverReachesTheRecording uses the key the 400 fixture quotes
// back in its DebugInfo ("Invalid API key: key1234").
func TestTheKeyNeverReachesTheRecording(t *testing.T) {
	const key = "key1234"
	f := newFakeGemini(t,
		reply{file: "resp_text_STOP__firebase_googleai.json"},
		reply{status: 400, file: "error_400_INVALID_ARGUMENT_api_key__firebase_googleai.json"})
	var hooked []providers.Exchange
	p := newTestProvider(t, f, Config{APIKey: key, OnExchange: func(ex providers.Exchange) { hooked = append(hooked, ex) }})

	ok, err := p.Call(context.Background(), userSays("my key is "+key))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := p.Call(context.Background(), userSays("hi"))
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("error message = %v, want an error that does not quote the key", err)
	}
	if !strings.Contains(string(f.requests()[1].Header.Get("x-goog-api-key")), key) {
		t.Error("the real key must still go on the wire")
	}

	exchanges := append(append(ok.Exchanges, bad.Exchanges...), hooked...)
	if len(exchanges) != 4 {
		t.Fatalf("%d exchanges, want 2 in the responses and 2 through OnExchange", len(exchanges))
	}
	for i, ex := range exchanges {
		line, _ := json.Marshal(ex)
		if strings.Contains(string(line), key) || strings.Contains(ex.URL+string(ex.RequestBody)+string(ex.ResponseBody), key) {
			t.Errorf("exchange %d still contains the key: %s", i, line)
		}
		for _, c := range ex.Chunks {
			if strings.Contains(string(c.Data), key) {
				t.Errorf("exchange %d has a chunk with the key: %q", i, c.Data)
			}
		}
		if !slices.Contains(ex.Redacted, "header x-goog-api-key") {
			t.Errorf("exchange %d Redacted = %q, want the key header listed", i, ex.Redacted)
		}
	}
	if !slices.Contains(bad.Exchanges[0].Redacted, "secret value in response body") {
		t.Errorf("Redacted = %q, want the key in the error body listed", bad.Exchanges[0].Redacted)
	}
	if !slices.Contains(ok.Exchanges[0].Redacted, "secret value in request body") {
		t.Errorf("Redacted = %q, want the key in the prompt listed", ok.Exchanges[0].Redacted)
	}
}

func TestArgsFollowTheDeclaredOrder(t *testing.T) {
	tests := []struct {
		name  string
		args  map[string]any
		order []string
		want  string
	}{
		{"declared order, not alphabetical", map[string]any{"content": "x", "path": "a.txt"}, []string{"path", "content"}, `{"path":"a.txt","content":"x"}`},
		{"undeclared keys last, sorted", map[string]any{"z": 1.0, "path": "p", "b": true}, []string{"path"}, `{"path":"p","b":true,"z":1}`},
		{"no arguments", nil, []string{"path"}, `{}`},
		{"unknown tool", map[string]any{"b": "2", "a": "1"}, nil, `{"a":"1","b":"2"}`},
		{"shell text kept as written", map[string]any{"command": "ls && cat <a>"}, []string{"command"}, `{"command":"ls && cat <a>"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := orderedArgs(tc.args, tc.order)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// mcpSchema is an input schema as an MCP server gives it: keywords the
// four parameter types of a built-in tool cannot say (minLength, a number,
// a nested object, additionalProperties, a default).
const mcpSchema = `{"type":"object","properties":{"query":{"type":"string","minLength":2,"description":"what to look for"},` +
	`"limit":{"type":"number","minimum":1,"default":5},"filter":{"type":"object","properties":{"lang":{"type":"string","enum":["en","ja"]}},"required":["lang"]}},` +
	`"required":["query"],"additionalProperties":false}`

// TestToolSchemaGoesAsWritten: a tool carrying its own JSON Schema reaches
// Gemini unchanged, in parametersJsonSchema.
func TestToolSchemaGoesAsWritten(t *testing.T) {
	f := newFakeGemini(t, reply{file: "resp_text_STOP__firebase_googleai.json"})
	p := newTestProvider(t, f, Config{})
	req := userSays("search the docs")
	req.Tools = []history.ToolSpec{{Name: "docs__search", Description: "Search.", Schema: json.RawMessage(mcpSchema)}}
	if _, err := p.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := decodeJSON(t, f.requests()[0].Body)
	decl := at(t, body, "tools", 0, "functionDeclarations", 0).(map[string]any)
	if !jsonEqual(t, decl["parametersJsonSchema"], mcpSchema) {
		b, _ := json.Marshal(decl)
		t.Fatalf("declaration = %s, want parametersJsonSchema = %s", b, mcpSchema)
	}
	if _, ok := decl["parameters"]; ok {
		t.Error("the declaration also has parameters; want the schema in one place")
	}
}

func TestToolSchemaThatIsNotAnObjectIsRefused(t *testing.T) {
	p := newTestProvider(t, nil, Config{BaseURL: "http://127.0.0.1:1"})
	req := userSays("hi")
	req.Tools = []history.ToolSpec{{Name: "s__t", Schema: json.RawMessage(`[1,2]`)}}
	_, err := p.Call(context.Background(), req)
	var pe *providers.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "tool s__t cannot be described to Gemini") {
		t.Errorf("error = %v, want one naming the tool and why", err)
	}
}
