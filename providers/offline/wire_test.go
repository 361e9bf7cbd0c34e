package offline_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

// rawResponse is one raw HTTP exchange with the simulation.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, tr http.RoundTripper, method, url, body string) rawResponse {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return rawResponse{resp.StatusCode, resp.Header, b}
}

const (
	geminiURL       = "http://offline.invalid/v1beta/models/gemini-2.5-flash:generateContent"
	geminiStreamURL = "http://offline.invalid/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	ollamaChatURL   = "http://offline.invalid/api/chat"
)

// geminiBody is a generateContent body with the tools declared, as the SDK
// sends it.
func geminiBody(text string) string {
	b, _ := json.Marshal(map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}},
		"tools":    []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "list_files"}, map[string]any{"name": "read_file"}}}},
	})
	return string(b)
}

func ollamaBody(text string, extra map[string]any) string {
	m := map[string]any{"model": "llama3.1:8b", "messages": []any{map[string]any{"role": "user", "content": text}}}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestBadRequests(t *testing.T) {
	tests := []struct {
		name, method, url, body string
		status                  int
		message                 string // substring of the error message
		google                  bool   // Gemini error shape, else Ollama's
	}{
		{"gemini broken json", "POST", geminiURL, `{"contents": [`, 400, "Invalid JSON payload received", true},
		{"gemini no contents", "POST", geminiURL, `{}`, 400, "contents is not specified", true},
		{"gemini contents of the wrong type", "POST", geminiURL, `{"contents": "hi"}`, 400, "Invalid JSON payload", true},
		{"gemini parts of the wrong type", "POST", geminiURL, `{"contents": [{"role": "user", "parts": 3}]}`, 400, "parts", true},
		{"gemini unknown role", "POST", geminiURL, `{"contents": [{"role": "robot", "parts": [{"text": "hi"}]}]}`, 400, "valid role", true},
		{"gemini unknown method", "POST", "http://x/v1beta/models/gemini-2.5-flash:countTokens", `{}`, 404, "countTokens", true},
		{"gemini GET", "GET", geminiURL, "", 404, "Method not found", true},
		{"gemini unknown path", "GET", "http://x/v1beta/files", "", 404, "not served", true},
		{"ollama broken json", "POST", ollamaChatURL, `{"model": `, 400, "unexpected end of JSON input", false},
		{"ollama empty body", "POST", ollamaChatURL, "", 400, "missing request body", false},
		{"ollama no model", "POST", ollamaChatURL, `{"messages": []}`, 400, "model is required", false},
		{"ollama bad format", "POST", ollamaChatURL, `{"model": "m", "format": "xml"}`, 400, "invalid format", false},
		{"ollama messages of the wrong type", "POST", ollamaChatURL, `{"model": "m", "messages": "hi"}`, 400, "cannot unmarshal", false},
		{"ollama show without model", "POST", "http://x/api/show", `{}`, 400, "model is required", false},
		{"ollama show broken json", "POST", "http://x/api/show", `{`, 400, "unexpected end", false},
		{"ollama chat GET", "GET", ollamaChatURL, "", 405, "not allowed", false},
		{"ollama unknown path", "POST", "http://x/api/generate", `{}`, 404, "404 page not found", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, backend.SimulatedTransport(offline.Config{}), tc.method, tc.url, tc.body)
			if r.status != tc.status {
				t.Errorf("status = %d, want %d (%s)", r.status, tc.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			var msg string
			if tc.google {
				var e geminiError
				if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code != tc.status || e.Error.Status == "" {
					t.Fatalf("body %s is not a Gemini error (%v)", r.body, err)
				}
				msg = e.Error.Message
			} else {
				var e struct{ Error string }
				if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
					t.Fatalf("body %s is not an Ollama error (%v)", r.body, err)
				}
				msg = e.Error
			}
			if !strings.Contains(msg, tc.message) {
				t.Errorf("message %q lacks %q", msg, tc.message)
			}
		})
	}
}

func TestFaultHeadersAndBodies(t *testing.T) {
	rate, _ := lessons.ByName("rate-limit")
	outage, _ := lessons.ByName("outage")
	tests := []struct {
		name, url, body string
		status          int
		want            string // exact body (Ollama) or "" to skip
		example         string // wire example whose key set must match
	}{
		{"gemini 429", geminiURL, geminiBody(rate.Request), 429, "", "error_429_RESOURCE_EXHAUSTED_quota_retryinfo__gemini_cli_test_DECODED.json"},
		{"gemini 503", geminiURL, geminiBody(outage.Request), 503, "", "error_503_UNAVAILABLE__THIRD_PARTY_LOG_UNVERIFIED.json"},
		{"gemini stream 503", geminiStreamURL, geminiBody(outage.Request), 503, "", "error_503_UNAVAILABLE__THIRD_PARTY_LOG_UNVERIFIED.json"},
		{"ollama 429", ollamaChatURL, ollamaBody(rate.Request, nil), 429, `{"error":"rate limit exceeded"}`, "error_429_rate_limit__chat_test.json"},
		{"ollama 503", ollamaChatURL, ollamaBody(outage.Request, nil), 503, `{"error":"model is overloaded"}`, "error_503_model_overloaded__chat_test.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, backend.SimulatedTransport(offline.Config{}), "POST", tc.url, tc.body)
			if r.status != tc.status || r.header.Get("Retry-After") != "1" {
				t.Errorf("status %d Retry-After %q, want %d and 1", r.status, r.header.Get("Retry-After"), tc.status)
			}
			if tc.want != "" && string(r.body) != tc.want {
				t.Errorf("body = %s, want %s", r.body, tc.want)
			}
			if got, want := keyPathsOf(t, r.body), keyPathsOf(t, readExample(t, tc.example)); !subset(got, want) {
				t.Errorf("key paths %q are not all in the real example's %q", missing(got, want), keys(want))
			}
		})
	}
}

// TestRateLimitCountsPerTransport: each transport has its own counter, and
// only the lesson's first model call is limited.
func TestRateLimitCountsPerTransport(t *testing.T) {
	rate, _ := lessons.ByName("rate-limit")
	body := ollamaBody(rate.Request, map[string]any{"stream": false})
	a, b := backend.SimulatedTransport(offline.Config{}), backend.SimulatedTransport(offline.Config{})
	var got []int
	for _, tr := range []http.RoundTripper{a, a, b, a} {
		got = append(got, do(t, tr, "POST", ollamaChatURL, body).status)
	}
	if want := []int{429, 200, 429, 429}; !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
	later := ollamaBody(rate.Request, map[string]any{"stream": false, "messages": []any{
		map[string]any{"role": "user", "content": rate.Request},
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"name": "list_files", "arguments": map[string]any{}}}}},
		map[string]any{"role": "tool", "tool_name": "list_files", "content": "a.txt"},
	}})
	if s := do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, later).status; s != 200 {
		t.Errorf("a later call of the lesson got %d, want 200", s)
	}
}

func TestLatencyHonoursCancel(t *testing.T) {
	slow := backend.SimulatedTransport(offline.Config{Latency: 10 * time.Second})
	tour, _ := lessons.ByName("tour")
	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"genai generateContent", func(ctx context.Context) error {
			_, err := newGenai(t, slow).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text(tour.Request), geminiConfig())
			return err
		}},
		{"genai stream", func(ctx context.Context) error {
			for _, err := range newGenai(t, slow).Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text(tour.Request), geminiConfig()) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"ollama chat", func(ctx context.Context) error {
			_, err := ollamaChat(ctx, newOllama(slow), &api.ChatRequest{Model: "llama3.1:8b", Tools: ollamaTools(),
				Messages: []api.Message{{Role: "user", Content: tour.Request}}})
			return err
		}},
		{"raw round trip", func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, "POST", ollamaChatURL, strings.NewReader(ollamaBody(tour.Request, nil)))
			_, err := slow.RoundTrip(req)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			start := time.Now()
			err := tc.call(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v after cancel", d)
			}
		})
	}
}

func TestLatencyDelaysTheAnswer(t *testing.T) {
	const latency = 40 * time.Millisecond
	tests := []struct{ name, url, body string }{
		{"gemini", geminiURL, geminiBody("list the files")},
		{"gemini stream", geminiStreamURL, geminiBody("What's the capital of France?")},
		{"ollama", ollamaChatURL, ollamaBody("list the files", map[string]any{"stream": false})},
		{"ollama stream", ollamaChatURL, ollamaBody("What's the capital of France?", nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			if r := do(t, backend.SimulatedTransport(offline.Config{Latency: latency}), "POST", tc.url, tc.body); r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if d := time.Since(start); d < latency {
				t.Errorf("answered in %v, want at least %v", d, latency)
			}
		})
	}
}

// TestStreamsArriveInChunks: the transport hands each flushed chunk over as
// it is written, so a client sees several reads.
func TestStreamsArriveInChunks(t *testing.T) {
	req, _ := http.NewRequest("POST", ollamaChatURL, strings.NewReader(ollamaBody("What's the capital of France?", nil)))
	resp, err := backend.SimulatedTransport(offline.Config{Latency: 20 * time.Millisecond}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q", ct)
	}
	var reads [][]byte
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			reads = append(reads, slices.Clone(buf[:n]))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(reads) < 3 {
		t.Fatalf("got %d reads, want one per NDJSON line", len(reads))
	}
	for i, r := range reads {
		var cr api.ChatResponse
		if !bytes.HasSuffix(r, []byte("\n")) || json.Unmarshal(r, &cr) != nil {
			t.Fatalf("read %d is not one NDJSON line: %q", i, r)
		}
		if cr.Done != (i == len(reads)-1) {
			t.Errorf("read %d done = %v", i, cr.Done)
		}
	}
}

func TestThoughtSignatures(t *testing.T) {
	parallel, _ := lessons.ByName("parallel")
	tour, _ := lessons.ByName("tour")
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "generateContent", true: "stream"}[stream], func(t *testing.T) {
			c := newGenai(t, backend.SimulatedTransport(offline.Config{}))
			ctx := context.Background()
			cand, err := geminiCall(ctx, c, genai.Text(parallel.Request), stream)
			if err != nil {
				t.Fatal(err)
			}
			parts := cand.Content.Parts
			if len(parts) != 2 || parts[0].FunctionCall == nil || parts[1].FunctionCall == nil {
				t.Fatalf("want two function call parts, got %d", len(parts))
			}
			if len(parts[0].ThoughtSignature) == 0 || len(parts[1].ThoughtSignature) != 0 {
				t.Errorf("signature on the first call only: got %d and %d bytes", len(parts[0].ThoughtSignature), len(parts[1].ThoughtSignature))
			}
			if parts[0].FunctionCall.ID != "" {
				t.Errorf("function call id = %q, want none (as Gemini 2.5 sends)", parts[0].FunctionCall.ID)
			}
			again, err := geminiCall(ctx, c, genai.Text(parallel.Request), stream)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Content.Parts[0].ThoughtSignature, parts[0].ThoughtSignature) {
				t.Error("the same conversation got a different signature")
			}
			other, err := geminiCall(ctx, c, genai.Text(tour.Request), stream)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(other.Content.Parts[0].ThoughtSignature, parts[0].ThoughtSignature) {
				t.Error("two conversations got the same signature")
			}
		})
	}
}

func TestIncludeThoughts(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	cfg := geminiConfig()
	cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	resp, err := newGenai(t, backend.SimulatedTransport(offline.Config{})).Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text(tour.Request), cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 2 || !parts[0].Thought || parts[0].Text == "" || parts[1].FunctionCall == nil {
		t.Errorf("want a thought part then the call; got %d parts", len(parts))
	}
	if resp.UsageMetadata.ThoughtsTokenCount == 0 {
		t.Error("thoughtsTokenCount is not reported")
	}
}

// TestStateless: the same request gets the same bytes (Gemini) and the
// same message (Ollama), whichever transport answers it.
func TestStateless(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	g1 := do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody(tour.Request))
	g2 := do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody(tour.Request))
	if !bytes.Equal(g1.body, g2.body) {
		t.Errorf("Gemini answers differ:\n%s\n%s", g1.body, g2.body)
	}
	body := ollamaBody(tour.Request, map[string]any{"stream": false, "tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "list_files"}}}})
	var o1, o2 api.ChatResponse
	json.Unmarshal(do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, body).body, &o1)
	json.Unmarshal(do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, body).body, &o2)
	b1, _ := json.Marshal(o1.Message)
	b2, _ := json.Marshal(o2.Message)
	if !bytes.Equal(b1, b2) || len(o1.Message.ToolCalls) != 1 || !strings.HasPrefix(o1.Message.ToolCalls[0].ID, "call_") {
		t.Errorf("Ollama messages differ or lack a call id:\n%s\n%s", b1, b2)
	}
}

func TestOllamaModelInfo(t *testing.T) {
	c := newOllama(backend.SimulatedTransport(offline.Config{}))
	ctx := context.Background()
	v, err := c.Version(ctx)
	if err != nil || v != "0.17.4" {
		t.Errorf("Version = %q, %v; want the API version the simulation follows, as a real server reports it", v, err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != "llama3.1:8b" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: "llama3.1:8b"})
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, cp := range show.Capabilities {
		caps = append(caps, string(cp))
	}
	if !slices.Contains(caps, "completion") || !slices.Contains(caps, "tools") || !strings.Contains(show.Modelfile, "not a real model") {
		t.Errorf("Show = %+v", show)
	}
	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat: %v", err)
	}
	if r := do(t, backend.SimulatedTransport(offline.Config{}), "GET", "http://x/api/tags", ""); !subset(keyPathsOf(t, r.body), keyPathsOf(t, readExample(t, "tags_response.json"))) {
		t.Errorf("tags key paths %q not in the real example", missing(keyPathsOf(t, r.body), keyPathsOf(t, readExample(t, "tags_response.json"))))
	}
}

// TestHandlerPanicIsA500: a panicking handler costs one request.
func TestHandlerPanicIsA500(t *testing.T) {
	tr := &offline.Transport{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })}
	req, _ := http.NewRequest("GET", "http://x/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("status = %d", resp.StatusCode)
	}
	if _, err := io.ReadAll(resp.Body); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("body error = %v", err)
	}
}

// ----- the response shapes, compared with the real examples -----

// opaqueKeys hold data-dependent objects (arguments, quota dimensions)
// whose inner keys are not part of the shape.
func opaqueKeys() []string { return []string{"args", "arguments", "quotaDimensions", "metadata"} }

// keyPaths collects every key path of a JSON value: ".a.b[].c".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			p := prefix + "." + k
			out[p] = true
			if !slices.Contains(opaqueKeys(), k) {
				keyPaths(vv, p, out)
			}
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

func keyPathsOf(t *testing.T, docs ...[]byte) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, d := range docs {
		var v any
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, d)
		}
		keyPaths(v, "", out)
	}
	return out
}

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sseEvents splits an SSE body into its data payloads, checking the framing
// of the recorded streams: "data: {...}" followed by a blank CRLF line.
func sseEvents(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ev := range bytes.Split(bytes.TrimSuffix(body, []byte("\r\n\r\n")), []byte("\r\n\r\n")) {
		data, ok := bytes.CutPrefix(ev, []byte("data: "))
		if !ok || bytes.ContainsAny(data, "\r\n") {
			t.Fatalf("bad SSE event %q", ev)
		}
		out = append(out, data)
	}
	return out
}

func ndjsonLines(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		out = append(out, slices.Clone(sc.Bytes()))
	}
	return out
}

func subset(got, want map[string]bool) bool { return len(missing(got, want)) == 0 }

func missing(got, want map[string]bool) []string {
	var out []string
	for k := range got {
		if !want[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func requirePaths(t *testing.T, got map[string]bool, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if !got[p] {
			t.Errorf("missing key path %s", p)
		}
	}
}

func TestGeminiShapesMatchRecordedResponses(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	parallel, _ := lessons.ByName("parallel")
	callExamples := [][]byte{
		readExample(t, "resp_functionCall_thoughtSignature_STOP_usage__firebase_googleai.json"),
		readExample(t, "resp_parallel_functionCalls__firebase_vertexai_dir.json"),
	}
	t.Run("function call", func(t *testing.T) {
		for _, req := range []string{tour.Request, parallel.Request} {
			got := keyPathsOf(t, do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody(req)).body)
			if want := keyPathsOf(t, callExamples...); !subset(got, want) {
				t.Errorf("extra key paths %q", missing(got, want))
			}
			requirePaths(t, got, ".candidates[].content.parts[].functionCall.name", ".candidates[].content.parts[].functionCall.args",
				".candidates[].content.parts[].thoughtSignature", ".candidates[].content.role", ".candidates[].finishReason",
				".candidates[].index", ".usageMetadata.promptTokenCount", ".usageMetadata.candidatesTokenCount",
				".usageMetadata.totalTokenCount", ".modelVersion", ".responseId")
		}
	})
	t.Run("text", func(t *testing.T) {
		r := do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody("What's the capital of France?"))
		got := keyPathsOf(t, r.body)
		want := keyPathsOf(t, append(callExamples, readExample(t, "resp_text_STOP__firebase_googleai.json"))...)
		if !subset(got, want) {
			t.Errorf("extra key paths %q", missing(got, want))
		}
		requirePaths(t, got, ".candidates[].content.parts[].text")
		var resp geminiResponse
		json.Unmarshal(r.body, &resp)
		if resp.ModelVersion != offline.ModelVersion || resp.Candidates[0].FinishReason != "STOP" || resp.Candidates[0].Content.Role != "model" {
			t.Errorf("response = %+v", resp)
		}
		u := resp.UsageMetadata
		if u.PromptTokenCount == 0 || u.CandidatesTokenCount == 0 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount {
			t.Errorf("usage = %+v", u)
		}
	})
	t.Run("sse", func(t *testing.T) {
		examples := append(sseEvents(t, readExample(t, "sse_text_STOP__firebase_googleai.sse")),
			sseEvents(t, readExample(t, "sse_functionCall_thoughtSignature__firebase_googleai.sse"))...)
		want := keyPathsOf(t, examples...)
		for _, req := range []string{"What's the capital of France?", tour.Request} {
			r := do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiStreamURL, geminiBody(req))
			if ct := r.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			events := sseEvents(t, r.body)
			for i, ev := range events {
				got := keyPathsOf(t, ev)
				if !subset(got, want) {
					t.Errorf("event %d: extra key paths %q", i, missing(got, want))
				}
				if final := got[".candidates[].finishReason"]; final != (i == len(events)-1) {
					t.Errorf("event %d of %d has finishReason = %v", i, len(events), final)
				}
			}
		}
	})
	t.Run("malformed function call", func(t *testing.T) {
		malformed, _ := lessons.ByName("malformed")
		var resp struct {
			Candidates []struct {
				Content struct {
					Parts []any `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
		}
		r := do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody(malformed.Request))
		if err := json.Unmarshal(r.body, &resp); err != nil || len(resp.Candidates) != 1 {
			t.Fatalf("%s: %v", r.body, err)
		}
		if c := resp.Candidates[0]; c.FinishReason != "MALFORMED_FUNCTION_CALL" || len(c.Content.Parts) != 0 {
			t.Errorf("candidate = %+v", c)
		}
	})
}

func TestOllamaShapesMatchRecordedResponses(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "list_files"}}}
	// Ollama servers since 2025 add "id" to tool calls and always write
	// function.index (see wire-examples INDEX.md); the docs' examples predate both.
	newer := map[string]bool{".message.tool_calls[].id": true, ".message.tool_calls[].function.index": true}
	union := func(a, b map[string]bool) map[string]bool {
		out := map[string]bool{}
		for k := range a {
			out[k] = true
		}
		for k := range b {
			out[k] = true
		}
		return out
	}
	t.Run("stream", func(t *testing.T) {
		chunk := keyPathsOf(t, readExample(t, "chat_stream_chunk.json"))
		toolChunk := union(keyPathsOf(t, readExample(t, "chat_tools_stream_chunk_toolcall.json")), newer)
		final := keyPathsOf(t, readExample(t, "chat_tools_stream_final.json"))
		// Without --sim-latency no time is spent generating: eval_duration
		// is 0, and a real server omits it then (omitempty in api.Metrics).
		delete(final, ".eval_duration")
		for _, body := range []string{ollamaBody("What's the capital of France?", nil), ollamaBody(tour.Request, map[string]any{"tools": tools})} {
			lines := ndjsonLines(t, do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, body).body)
			for i, l := range lines {
				got := keyPathsOf(t, l)
				switch {
				case i == len(lines)-1:
					if !sameKeys(got, final) {
						t.Errorf("final line key paths %q, want exactly %q", keys(got), keys(final))
					}
				case got[".message.tool_calls"]:
					if !subset(got, toolChunk) {
						t.Errorf("tool call line: extra key paths %q", missing(got, toolChunk))
					}
				default:
					if !subset(got, chunk) {
						t.Errorf("chunk line: extra key paths %q", missing(got, chunk))
					}
				}
			}
		}
	})
	t.Run("single object", func(t *testing.T) {
		want := union(keyPathsOf(t, readExample(t, "chat_tools_nonstream_response.json")), newer)
		got := keyPathsOf(t, do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, ollamaBody(tour.Request, map[string]any{"tools": tools, "stream": false})).body)
		if !subset(got, want) {
			t.Errorf("extra key paths %q", missing(got, want))
		}
		requirePaths(t, got, ".done_reason", ".total_duration", ".load_duration", ".prompt_eval_count", ".prompt_eval_duration",
			".eval_count", ".message.tool_calls[].function.arguments")
		if got[".eval_duration"] {
			t.Error("eval_duration is 0 without --sim-latency and must be omitted, as Ollama omits it")
		}
	})
	t.Run("json mode content is the JSON reply", func(t *testing.T) {
		var resp api.ChatResponse
		json.Unmarshal(do(t, backend.SimulatedTransport(offline.Config{}), "POST", ollamaChatURL, ollamaBody(tour.Request, map[string]any{"format": "json", "stream": false})).body, &resp)
		var decision map[string]any
		if err := json.Unmarshal([]byte(resp.Message.Content), &decision); err != nil {
			t.Fatalf("content %q is not JSON: %v", resp.Message.Content, err)
		}
		if decision["thought"] == nil || decision["tool_call"] == nil || len(resp.Message.ToolCalls) != 0 {
			t.Errorf("content = %s", resp.Message.Content)
		}
	})
}

func sameKeys(a, b map[string]bool) bool { return subset(a, b) && subset(b, a) }

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// geminiResponse is a generateContent response as these tests read it.
type geminiResponse struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
			Role string `json:"role"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
}

// geminiError is the Gemini API's error body.
type geminiError struct {
	Error struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Status  string           `json:"status"`
		Details []map[string]any `json:"details"`
	} `json:"error"`
}
