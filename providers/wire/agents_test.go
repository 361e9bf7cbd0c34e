package wire_test

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Captured is one exchange of a real agent (testdata/agents/README.md says
// how each was captured).
func captured(t *testing.T, dir, n string) providers.Exchange {
	t.Helper()
	meta := read(t, "agents/"+dir+"/"+n+".meta")
	line, _, _ := bytes.Cut(meta, []byte("\n"))
	method, target, _ := strings.Cut(string(line), " ")
	x := providers.Exchange{Method: method, URL: "http://127.0.0.1" + target, Status: 200,
		RequestHeaders: map[string][]string{}, ResponseHeaders: map[string][]string{"Content-Type": {"text/event-stream"}},
		RequestBody: read(t, "agents/"+dir+"/"+n+".request.json"), ResponseBody: read(t, "agents/"+dir+"/"+n+".response")}
	sc := bufio.NewScanner(bytes.NewReader(meta))
	sc.Scan()
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		x.RequestHeaders[k] = []string{v}
	}
	return x
}

func decodeExchange(t *testing.T, x providers.Exchange) (*wire.Request, *wire.Response) {
	t.Helper()
	c, route, ok := backend.Wire().Detect(x.Method, x.URL)
	if !ok || route != wire.ModelCall {
		t.Fatalf("%s %s is not a model call", x.Method, x.URL)
	}
	req := decode(t, x.URL, x.RequestBody)
	return req, c.DecodeResponse(req, x)
}

// Gemini CLI 0.61's two calls for "list the files here": its system
// prompt, 16 tools with their JSON Schemas, a first user turn in two
// parts, then its own call and the result it sent back.
func TestGeminiCLIRequests(t *testing.T) {
	req, resp := decodeExchange(t, captured(t, "geminicli", "001"))
	if req.Dialect != "gemini" || req.Model != "gemini-2.5-flash" || !req.Stream || len(req.Tools) != 16 {
		t.Fatalf("%s %s stream %v, %d tools", req.Dialect, req.Model, req.Stream, len(req.Tools))
	}
	if !strings.HasPrefix(req.System, "[Gemini CLI 0.61.0's system prompt") || len(req.Messages) != 1 ||
		!strings.HasSuffix(req.Messages[0].Text, "\nlist the files here") {
		t.Fatalf("system %q, messages %+v", req.System, req.Messages)
	}
	if got := outline(req); !strings.HasPrefix(got, "input system tool:update_topic tool:list_directory") ||
		!strings.HasSuffix(got, "tool:activate_skill settings:generationConfig") {
		t.Fatalf("outline %s", got)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "list_directory" || string(resp.ToolCalls[0].Args) != `{"dir_path": "."}` || !resp.Complete {
		t.Fatalf("reply %+v", resp)
	}

	req, resp = decodeExchange(t, captured(t, "geminicli", "002"))
	if got := roles(req.Messages); got != "user assistant→list_directory tool←list_directory" {
		t.Fatalf("messages %s", got)
	}
	call, res := req.Messages[1].ToolCalls[0], req.Messages[2].Result
	if call.ID == "" || res.CallID != call.ID || !strings.Contains(res.Content, "hello.py (15 bytes)") {
		t.Fatalf("call %+v result %+v", call, res)
	}
	if n := req.Messages[1].Native; n == nil || !bytes.Contains(n.Data, []byte(`"thoughtSignature":"skip_thought_signature_validator"`)) {
		t.Fatalf("the model turn is not kept as written: %+v", n)
	}
	if req.Input != 2 || resp.Text != "The folder holds hello.py and README.md." || resp.Usage.Cached != 8192 || !resp.Usage.CachedReported {
		t.Fatalf("input %d, reply %+v", req.Input, resp)
	}
}

// opencode 1.18's three calls: a title with no tools, then the agent's
// own call with 10 tools, then the result of its read.
func TestOpencodeRequests(t *testing.T) {
	req, resp := decodeExchange(t, captured(t, "opencode", "001"))
	if got := outline(req); got != "settings:model settings:max_tokens system input input settings:stream settings:stream_options" {
		t.Fatalf("outline %s", got)
	}
	if resp.Text != "Listing the files" || resp.FinishReason != "stop" || !resp.Complete || !resp.Stream {
		t.Fatalf("reply %+v", resp)
	}
	req, resp = decodeExchange(t, captured(t, "opencode", "002"))
	if req.Dialect != "openai" || len(req.Tools) != 10 || req.Tools[4].Name != "read" || !bytes.Contains(req.Tools[4].Schema, []byte(`"filePath"`)) {
		t.Fatalf("%s, tools %d", req.Dialect, len(req.Tools))
	}
	// The call's arguments came in two pieces.
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_1" || string(resp.ToolCalls[0].Args) != `{"filePath": "/work/agents/wire/proj/hello.py"}` ||
		resp.FinishReason != "tool_calls" || resp.Usage.Input != 7200 {
		t.Fatalf("reply %+v", resp)
	}
	req, _ = decodeExchange(t, captured(t, "opencode", "003"))
	if got := roles(req.Messages); got != "user assistant→read tool←read" {
		t.Fatalf("messages %s", got)
	}
	if r := req.Messages[2].Result; r.CallID != "call_1" || !strings.Contains(r.Content, `1: print("hello")`) {
		t.Fatalf("result %+v", r)
	}
}

// What is not a model call is told apart by its path.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		method, target, family string
		route                  wire.Route
	}{
		{"POST", "/v1beta/models/gemini-2.5-flash:generateContent", "gemini", wire.ModelCall},
		{"POST", "http://x/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "gemini", wire.ModelCall},
		{"POST", "/v1beta/models/gemini-2.5-flash:countTokens", "gemini", wire.PassThrough},
		{"GET", "/v1beta/models", "gemini", wire.PassThrough},
		{"POST", "/v1/chat/completions", "openai", wire.ModelCall},
		{"POST", "/v1beta/openai/chat/completions", "openai", wire.ModelCall},
		{"GET", "/v1/models", "openai", wire.PassThrough},
		{"POST", "/api/chat", "ollama", wire.ModelCall},
		{"POST", "/api/generate", "ollama", wire.ModelCall},
		{"GET", "/api/tags", "ollama", wire.PassThrough},
		{"POST", "/api/show", "ollama", wire.PassThrough},
		{"POST", "/v1/responses", "", wire.NotMine},
		{"GET", "/api/chat", "", wire.NotMine},
	} {
		c, route, ok := backend.Wire().Detect(tc.method, tc.target)
		if c.Family != tc.family || route != tc.route || ok != (tc.family != "") {
			t.Errorf("%s %s: %q %d %v, want %q %d", tc.method, tc.target, c.Family, route, ok, tc.family, tc.route)
		}
	}
}

// A body that is not JSON, or stops, is refused with where; nothing panics.
func TestBadBodies(t *testing.T) {
	for _, body := range []string{``, `{`, `{"contents": [`, `{"contents": [}`, `[1,2]`, `{"a" 1}`, `{"a":1}}`, `{"contents":[{"parts":[{"text":"\"}]}]}`} {
		for _, c := range backend.Wire() {
			if _, err := c.DecodeRequest(c.Paths[0], []byte(body)); err == nil && body != `{"a":1}}` {
				t.Errorf("%s %q: no error", c.Family, body)
			} else if err == nil {
				t.Errorf("%s %q: trailing text accepted", c.Family, body)
			}
		}
	}
	for _, family := range []string{"openai", "ollama"} {
		c, _ := backend.Wire().Family(family)
		if _, err := c.DecodeRequest(c.Paths[0], []byte(`{"messages": "x"}`)); err == nil {
			t.Errorf("%s: messages that are not an array were accepted", family)
		}
	}
}

// A stream cut short says how: inside an event, without its last record,
// or on a transport failure.
func TestCutStreams(t *testing.T) {
	full := read(t, "examples/gemini/sse_text_STOP__firebase_googleai.sse")
	c, _ := backend.Wire().Family("gemini")
	sse := map[string][]string{"Content-Type": {"text/event-stream"}}
	events := bytes.SplitAfter(full, []byte("\r\n\r\n"))
	for _, tc := range []struct {
		name string
		body []byte
		err  string
		cut  string
	}{
		{"whole", full, "", ""},
		{"inside an event", full[:len(full)-40], "", wire.CutPartialRecord},
		{"without the last event", bytes.Join(events[:2], nil), "", wire.CutNoEnd},
		{"connection reset", bytes.Join(events[:1], nil), "read: connection reset by peer", wire.CutTransport},
	} {
		r := c.DecodeResponse(nil, providers.Exchange{Status: 200, ResponseHeaders: sse, ResponseBody: tc.body, Err: tc.err})
		if r.Cut != tc.cut || r.Complete != (tc.cut == "") || (tc.cut == "" && r.StopReason() != "end_turn") {
			t.Errorf("%s: cut %q complete %v", tc.name, r.Cut, r.Complete)
		}
		if tc.cut != "" && r.StopReason() != providers.StopIncomplete {
			t.Errorf("%s: stop reason %s", tc.name, r.StopReason())
		}
	}
}

var _ = history.RoleUser
