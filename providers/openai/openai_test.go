package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// The documented stream of a chat completion (platform.openai.com, "The
// chat completion chunk object"; llama.cpp's server and Ollama's /v1 write
// the same): data: lines, a blank line after each event, the usage in an
// event with no choices, then [DONE].
const (
	evRole  = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	evHello = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}` + "\n\n"
	evWorld = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":null}]}` + "\n\n"
	evStop  = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	evUsage = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}` + "\n\n"
	evDone  = "data: [DONE]\n\n"
	// A tool call: its id and name first, its arguments in pieces.
	evCall  = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}` + "\n\n"
	evArgs1 = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]},"finish_reason":null}]}` + "\n\n"
	evArgs2 = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"hello.py\"}"}}]},"finish_reason":null}]}` + "\n\n"
	evTools = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"
)

const testKey = "sk-test-secret-4f9a2c"

// sse is a server that writes the given pieces, each as one read on the
// client's side (flushed, with a moment between them), the way a server
// streams: an event may be split across two pieces, or two events share one.
func sse(t *testing.T, pieces ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for _, p := range pieces {
			io.WriteString(w, p)
			rc.Flush()
			time.Sleep(2 * time.Millisecond) // separate reads on the wire, not a wait for the UI
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newProvider(t *testing.T, base string) *Provider {
	t.Helper()
	p, err := New(Config{BaseURL: base + "/v1", APIKey: testKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func request() providers.Request {
	return providers.Request{
		System:   "You are a test.",
		Messages: []history.Message{{Role: history.RoleUser, Text: "hi"}},
		Tools:    []history.ToolSpec{{Name: "read_file", Description: "read a file", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}}},
	}
}

// The real go-openai client reads an event split across two reads, and two
// events in one read; every read shows in the payload as it arrived.
func TestStreamedTextSplitAndJoinedEvents(t *testing.T) {
	half := len(evHello) / 2
	srv := sse(t, evRole, evHello[:half], evHello[half:]+evWorld, evStop+evUsage+evDone)
	resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text != "Hello world" || resp.StopReason != providers.StopEndTurn || resp.FinishReason != "stop" {
		t.Fatalf("text %q stop %s finish %q", resp.Message.Text, resp.StopReason, resp.FinishReason)
	}
	if resp.Usage.InputTokens != 12 || resp.Usage.OutputTokens != 3 {
		t.Fatalf("usage %+v", resp.Usage)
	}
	if len(resp.Exchanges) != 1 || len(resp.Exchanges[0].Chunks) < 3 {
		t.Fatalf("exchanges %d, chunks %d: the stream's reads should show one by one", len(resp.Exchanges), len(resp.Exchanges[0].Chunks))
	}
	var sent struct {
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Tools []struct {
			Type string `json:"type"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(resp.Exchanges[0].RequestBody, &sent); err != nil || !sent.Stream || !sent.StreamOptions.IncludeUsage || len(sent.Tools) != 1 || sent.Tools[0].Type != "function" {
		t.Fatalf("request %s (%v)", resp.Exchanges[0].RequestBody, err)
	}
}

// A tool call's arguments arrive in pieces; the call carries them whole,
// and its native copy replays them byte for byte.
func TestToolCallArgumentsSplitAcrossChunks(t *testing.T) {
	srv := sse(t, evCall, evArgs1, evArgs2, evTools+evUsage+evDone)
	p := newProvider(t, srv.URL)
	resp, err := p.Call(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.ToolCalls()
	if resp.StopReason != providers.StopToolUse || len(calls) != 1 || calls[0].ID != "call_abc" || calls[0].Name != "read_file" || string(calls[0].Args) != `{"path": "hello.py"}` {
		t.Fatalf("stop %s calls %+v", resp.StopReason, calls)
	}
	// The next request sends the reply back unchanged and pairs the result with its id.
	hist := append(request().Messages, resp.Message, history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: "call_abc", Name: "read_file", Content: "print(1)"}})
	msgs, err := messages("", hist)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	for _, want := range []string{`"arguments":"{\"path\": \"hello.py\"}"`, `"tool_call_id":"call_abc"`, `"role":"tool"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("replayed messages lack %s:\n%s", want, b)
		}
	}
}

// A conversation that began on a dialect without call ids (Llama's JSON
// mode) still pairs each result with its call.
func TestCallsWithoutIDsGetPairedIDs(t *testing.T) {
	hist := []history.Message{
		{Role: history.RoleUser, Text: "read it"},
		{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"a"}`)}}},
		{Role: history.RoleTool, Result: &history.ToolResult{Name: "read_file", Content: "x", IsError: true}},
	}
	msgs, err := messages("", hist)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	for _, want := range []string{`"id":"call_1_0"`, `"tool_call_id":"call_1_0"`, `"content":"Error: x"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("messages lack %s:\n%s", want, b)
		}
	}
}

// Each HTTP failure is phrased for a learner, with its kind; the key is
// never in the exchange or the message.
func TestHTTPFaults(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   providers.ErrorKind
		says   string
		retry  time.Duration
	}{
		{"401", 401, nil, `{"error":{"message":"Incorrect API key provided: sk-test-****2c.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, providers.KindAuth, "set OPENAI_API_KEY", 0},
		{"404 model", 404, nil, `{"error":{"message":"model \"m\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, providers.KindNotFound, "the model m is not on", 0},
		{"404 path", 404, nil, `404 page not found`, providers.KindNotFound, "should end in /v1", 0},
		{"429", 429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, providers.KindRateLimit, "rate limiting", 7 * time.Second},
		{"503", 503, nil, `{"error":{"message":"server overloaded","type":"server_error","param":null,"code":null}}`, providers.KindUnavailable, "could not answer (503", 0},
		{"400", 400, nil, `{"error":{"message":"bad tools","type":"invalid_request_error","param":null,"code":null}}`, providers.KindBadRequest, "rejected the request", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
			var pe *providers.Error
			if !errors.As(err, &pe) || pe.Kind != tc.kind || !strings.Contains(pe.Message, tc.says) || pe.RetryAfter != tc.retry {
				t.Fatalf("err = %#v, want kind %s saying %q, retry after %s", err, tc.kind, tc.says, tc.retry)
			}
			if calls != 1 {
				t.Fatalf("%d attempts: the loop retries, visibly, not the client", calls)
			}
			if resp == nil || len(resp.Exchanges) != 1 || resp.Exchanges[0].Status != tc.status {
				t.Fatalf("the failed exchange is kept for the payload pane: %+v", resp)
			}
			all, _ := json.Marshal(resp.Exchanges)
			if strings.Contains(string(all)+pe.Message, testKey) {
				t.Fatalf("the key leaked:\n%s", all)
			}
			if got := resp.Exchanges[0].RequestHeaders["Authorization"]; len(got) != 1 || strings.Contains(got[0], testKey) {
				t.Fatalf("Authorization = %q", got)
			}
		})
	}
}

// The faults of a stream: cut in the middle of an event (no finish_reason,
// no [DONE]), ended cleanly without a finish_reason, an error event after
// the 200, and a tool call cut at the token limit.
func TestStreamFaults(t *testing.T) {
	t.Run("cut mid-event", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body := evRole + evHello + evWorld[:30]
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Length", "4096") // promised, never sent: the connection drops
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, body)
		}))
		defer srv.Close()
		resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
		var pe *providers.Error
		if !errors.As(err, &pe) || pe.Kind != providers.KindNetwork || !pe.Transient() || !strings.Contains(pe.Message, "cut") {
			t.Fatalf("err = %v (resp %+v)", err, resp)
		}
	})
	t.Run("ended without finish_reason", func(t *testing.T) {
		srv := sse(t, evRole, evHello)
		resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if resp.StopReason != providers.StopIncomplete || !strings.Contains(resp.Malformed, "without a finish_reason") {
			t.Fatalf("stop %s, malformed %q", resp.StopReason, resp.Malformed)
		}
	})
	t.Run("error event mid-stream", func(t *testing.T) {
		srv := sse(t, evRole, evHello, `data: {"error":{"message":"the model runner crashed","type":"server_error"}}`+"\n\n")
		_, err := newProvider(t, srv.URL).Call(context.Background(), request())
		var pe *providers.Error
		if !errors.As(err, &pe) || pe.Kind != providers.KindUnavailable || !strings.Contains(pe.Message, "the model runner crashed") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("tool call cut at the token limit", func(t *testing.T) {
		evLength := strings.Replace(evTools, `"tool_calls"}`, `"length"}`, 1)
		srv := sse(t, evCall, evArgs1, evLength+evDone)
		resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if resp.StopReason != providers.StopMaxTokens || len(resp.ToolCalls()) != 0 || !strings.Contains(resp.Malformed, "finish_reason length") {
			t.Fatalf("stop %s calls %v malformed %q", resp.StopReason, resp.ToolCalls(), resp.Malformed)
		}
		if strings.Contains(string(resp.Message.Native.Data), "read_file") {
			t.Fatalf("the cut call would be sent back without a result: %s", resp.Message.Native.Data)
		}
	})
}

// Nothing answers: unreachable, said with the fix.
func TestNothingListening(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	_, err := newProvider(t, base).Call(context.Background(), request())
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != providers.KindUnreachable || !strings.Contains(pe.Message, "OPENAI_BASE_URL") {
		t.Fatalf("err = %v", err)
	}
}

func TestBaseURLMustBeHTTP(t *testing.T) {
	if _, err := New(Config{BaseURL: "localhost:11434/v1"}); err == nil || !strings.Contains(err.Error(), "http://localhost:11434/v1") {
		t.Fatalf("err = %v", err)
	}
}

// The request can be previewed (the glass box shows it before space sends
// it): the client encodes it as on the wire, and the capture stops it
// there, so nothing reaches the server.
func TestPreviewStopsBeforeTheWire(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer srv.Close()
	p := newProvider(t, srv.URL)
	ex, err := providers.Preview(context.Background(), func(ctx context.Context) error {
		_, err := p.Call(ctx, request())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 || !strings.HasSuffix(ex.URL, "/v1/chat/completions") || !strings.Contains(string(ex.RequestBody), `"stream":true`) {
		t.Fatalf("%d calls reached the server; preview %s %s", calls, ex.URL, ex.RequestBody)
	}
}

// Unary (the stream engineer's --stream=false): one chat.completion body,
// no "stream" and no stream_options in the request.
func TestUnaryCall(t *testing.T) {
	var sent []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_u","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}}}`)
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", Unary: true})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Call(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != providers.StopToolUse || len(resp.ToolCalls()) != 1 || resp.ToolCalls()[0].ID != "call_u" || resp.Usage.InputTokens != 9 || resp.Usage.CachedTokens != 4 {
		t.Fatalf("%+v", resp)
	}
	if strings.Contains(string(sent), `"stream"`) {
		t.Fatalf("a unary request asked for a stream: %s", sent)
	}
}

// An event that does not continue the reply (another completion's id) is
// an error, never a reply with a piece left out.
func TestForeignEventIsRefused(t *testing.T) {
	srv := sse(t, evRole, strings.Replace(evHello, "chatcmpl-1", "chatcmpl-2", 1), evStop+evDone)
	resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
	var pe *providers.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "event 2 of the stream does not continue the reply") || resp == nil || len(resp.Exchanges) != 1 {
		t.Fatalf("err = %v, resp %+v", err, resp)
	}
}

// Two tool calls streamed at once: their pieces interleave by index, an
// event is split across two reads, and the usage (with cached tokens)
// comes in an event of its own. Each call comes out whole, in index order.
func TestParallelToolCallsInterleaved(t *testing.T) {
	ev := func(delta string) string {
		return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` + delta + `]},"finish_reason":null}]}` + "\n\n"
	}
	first := ev(`{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}`)
	second := ev(`{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}`)
	a1 := ev(`{"index":0,"function":{"arguments":"{\"path\":"}}`)
	b1 := ev(`{"index":1,"function":{"arguments":"th\":\"b.py\"}"}}`)
	a2 := ev(`{"index":0,"function":{"arguments":"\"a.py\"}"}}`)
	usage := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":16}}}` + "\n\n"
	cut := len(b1) / 3
	srv := sse(t, first, second+a1, b1[:cut], b1[cut:]+a2, evTools, usage+evDone)
	resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.ToolCalls()
	if resp.StopReason != providers.StopToolUse || len(calls) != 2 ||
		calls[0].ID != "call_a" || string(calls[0].Args) != `{"path":"a.py"}` ||
		calls[1].ID != "call_b" || string(calls[1].Args) != `{"path":"b.py"}` {
		t.Fatalf("stop %s calls %+v", resp.StopReason, calls)
	}
	if resp.Usage != (providers.Usage{InputTokens: 20, OutputTokens: 9, CachedTokens: 16}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

// A server that keeps the connection alive with SSE comments while the
// model thinks (": keep-alive" lines, as proxies and OpenRouter write
// them) is read to its reply however many comments it sends: go-openai
// gives up after 300 non-data lines unless told otherwise.
func TestKeepAliveCommentsBetweenEvents(t *testing.T) {
	pings := strings.Repeat(": keep-alive\n\n", 1000)
	srv := sse(t, evRole, pings, evHello, pings+evStop+evUsage+evDone)
	resp, err := newProvider(t, srv.URL).Call(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text != "Hello" || resp.StopReason != providers.StopEndTurn {
		t.Fatalf("text %q stop %s", resp.Message.Text, resp.StopReason)
	}
}
