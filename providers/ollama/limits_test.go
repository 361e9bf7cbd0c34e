package ollama

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/providers"
)

// Every request carries a bounded num_predict unless the user gives one
// (--num-predict N) or asks for none (-1); it is in the request body the
// payload pane shows. --stream=false sends "stream": false.
func TestRequestBoundsTheReply(t *testing.T) {
	for _, tt := range []struct {
		name   string
		call   providers.CallOptions
		want   any // num_predict in the body; nil: absent
		stream any // "stream" in the body; nil: absent
	}{
		{"default", providers.CallOptions{}, float64(DefaultNumPredict), nil},
		{"the user's bound", providers.CallOptions{NumPredict: 256}, float64(256), nil},
		{"no bound", providers.CallOptions{NumPredict: -1}, nil, nil},
		{"unary", providers.CallOptions{Unary: true}, float64(DefaultNumPredict), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				json.Unmarshal(b, &body)
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.Write(doneLine(t, "It is sunny.", "stop", 4))
			}))
			defer srv.Close()
			p, err := New(Config{Host: srv.URL, ToolMode: ToolModeNative, Call: tt.call})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Call(context.Background(), weatherRequest())
			if err != nil || resp.Message.Text != "It is sunny." {
				t.Fatalf("Call: %v", err)
			}
			opts, _ := body["options"].(map[string]any)
			if opts["num_predict"] != tt.want || body["stream"] != tt.stream {
				t.Errorf("options %v, stream %v; want num_predict %v, stream %v", opts, body["stream"], tt.want, tt.stream)
			}
			if tt.want != nil && !strings.Contains(string(resp.Exchanges[0].RequestBody), `"num_predict":`) {
				t.Errorf("the recorded request (the payload pane's) lacks num_predict")
			}
		})
	}
	if _, err := New(Config{Call: providers.CallOptions{NumPredict: -5}}); err == nil {
		t.Error("num_predict -5 was accepted")
	}
}

// An Ollama that goes silent — after the headers (a model that never
// starts), or in the middle of its NDJSON — is a stalled call: a transport
// failure naming the limit, retried by the loop. The Ollama client hides
// the read error; the provider reads it from the captured exchange.
func TestStalledOllama(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []wireStep
	}{
		{"after the headers", nil},
		{"mid-stream", tokens(t, "The", " weather")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.WriteHeader(http.StatusOK)
				for _, s := range tt.steps {
					w.Write(s.data)
				}
				w.(http.Flusher).Flush()
				select { // silent until the client gives up
				case <-r.Context().Done():
				case <-release:
				}
			}))
			defer srv.Close()
			defer close(release)
			p, err := New(Config{Host: srv.URL, ToolMode: ToolModeNative, Call: providers.CallOptions{Limits: providers.Limits{Stall: 50 * time.Millisecond}}})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Call(context.Background(), weatherRequest())
			pe := providers.AsError(err)
			if pe == nil || pe.Kind != providers.KindNetwork || !pe.Transient() || !strings.Contains(pe.Message, "the call stalled: no byte arrived for 50ms (the --stall limit)") {
				t.Fatalf("error = %v, want a transient stall naming the limit", err)
			}
			if resp == nil || len(resp.Exchanges) != 1 || len(resp.Exchanges[0].Chunks) != len(tt.steps) {
				t.Errorf("response %+v, want the exchange with the %d lines that came", resp, len(tt.steps))
			}
		})
	}
}

// Two unusable replies that broke the same rule name the same Fault, so the
// loop's halt rule sees the same failure; other rules name other faults.
func TestFaultsNameTheKindOfFailure(t *testing.T) {
	p, err := New(Config{ToolMode: ToolModeJSON})
	if err != nil {
		t.Fatal(err)
	}
	fault := func(content, doneReason string, incomplete bool) string {
		resp := &providers.Response{FinishReason: doneReason}
		p.readJSONReply(resp, api.Message{Role: "assistant", Content: content}, incomplete)
		if resp.Malformed == "" {
			t.Fatalf("%q was usable", content)
		}
		return resp.Fault
	}
	a := fault(`{"thought": "x", "tool_call": {"name": "read_file", "input": {"path": 1,}}}`, "stop", false)
	b := fault(`{"thought": "a longer thought", "tool_call": {"name": "list_files", "input": {,}}}`, "stop", false)
	if a != b || !strings.HasPrefix(a, "unusable the same way: invalid JSON") {
		t.Errorf("faults %q and %q, want the same invalid-JSON fault", a, b)
	}
	if c := fault(`{"thought": "x"}`, "stop", false); c == a {
		t.Errorf("a reply with neither tool_call nor response has fault %q, the same as invalid JSON", c)
	}
	if d := fault(`{"thought": "`, "", true); d != "stopped by Ollama's repeat limit" {
		t.Errorf("repeat stop fault = %q", d)
	}
	if e := fault(`{"thought": "x", "tool_`, "length", false); !strings.Contains(e, "token limit") {
		t.Errorf("cut reply fault = %q", e)
	}
}
