package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// Issue 19 item 5: a reply's native copy — kept in the session and sent
// back to the model unchanged — is masked like its text: the key itself,
// the key \u-escaped, the key in a tool call's arguments. So is each
// step's exchange (the payload pane, the session), and what the model is
// sent next holds no key.
func TestReplyNativeCopyAndExchangesAreMasked(t *testing.T) {
	const key = "sk-live-Xq7Wm2Rb9Tz4Kp6Nd3Hs8Jv5"
	var esc strings.Builder
	for _, r := range key {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	args := json.RawMessage(`{"path":"` + key + `.txt"}`)
	native := json.RawMessage(`{"role":"model","parts":[{"text":"` + esc.String() + `"},{"functionCall":{"name":"read_file","args":{"path":"` + key + `.txt"}}}]}`)
	body := []byte(`{"candidates":[{"content":` + string(native) + `}]}`)
	p := &scriptedProvider{replies: []reply{
		{resp: &providers.Response{
			Message:   history.Message{Role: history.RoleAssistant, ToolCalls: []history.ToolCall{{Name: "read_file", Args: args}}, Native: &history.Native{Provider: "gemini", Data: native}},
			Exchanges: []providers.Exchange{{Method: "POST", URL: "http://x/", RequestBody: []byte(`{"k":"` + key + `"}`), Status: 200, ResponseBody: body}},
		}},
		text("done"),
	}}
	read := &fakeTool{name: "read_file", result: tools.Result{Content: "the file says " + key}}
	reg, err := tools.NewRegistry(read)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Provider: p, Tools: reg, Person: &scriptedPerson{}, Workspace: sandbox{}, Backend: "offline",
		Secrets: []string{key}, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "go"})
	var ts []Transition
	for range 50 {
		tr, err := e.Step(context.Background())
		if err != nil {
			break
		}
		ts = append(ts, tr)
	}
	leak := func(where string, b []byte) {
		t.Helper()
		if strings.Contains(string(b), key[5:25]) || strings.Contains(strings.ToLower(string(b)), esc.String()[30:90]) {
			t.Errorf("%s holds the key: %s", where, b)
		}
	}
	for _, m := range e.History() {
		b, _ := json.Marshal(m)
		leak("the history", b)
	}
	for _, tr := range ts {
		b, _ := json.Marshal(tr)
		leak("a transition", b)
		for _, x := range tr.Exchanges {
			leak("an exchange's request", x.RequestBody)
			leak("an exchange's response", x.ResponseBody)
		}
	}
	if len(p.seen) < 2 {
		t.Fatalf("the model was called %d times", len(p.seen))
	}
	b, _ := json.Marshal(p.seen[1])
	leak("the next request to the model", b)
}

// The live view of a response (what the payload pane shows while the reply
// streams) is masked too: a key split across two NDJSON chunks is never
// shown, whole or in pieces, and the rest of the stream is.
func TestLiveWireIsMasked(t *testing.T) {
	const key = "sk-live-Xq7Wm2Rb9Tz4Kp6Nd3Hs8Jv5"
	line := func(content string) []byte {
		b, _ := json.Marshal(map[string]any{"message": map[string]string{"role": "assistant", "content": content}, "done": false})
		return append(b, '\n')
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pieces := []string{}
		for i := range 20 {
			pieces = append(pieces, fmt.Sprintf("word%d ", i))
		}
		pieces = append(pieces, "the key is "+key[:12], key[12:]+" and more")
		for i := range 20 {
			pieces = append(pieces, fmt.Sprintf("tail%d ", i))
		}
		for _, p := range pieces {
			w.Write(line(p))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	f := newFixture(t, 0)
	f.engine.cfg.Provider = &wireProvider{client: &http.Client{Transport: providers.NewTransport(nil)}, url: srv.URL, calls: 1}
	f.engine.mask = providers.NewMasker(key)
	f.engine.requests = f.engine.mask.Conversation()
	var shown strings.Builder
	f.engine.SetOnNotice(func(n Notice) {
		if c, ok := n.(WireChunk); ok {
			shown.Write(c.Chunk.Data)
		}
	})
	f.run(t, "hi")
	s := shown.String()
	if strings.Contains(s, key[:12]) || strings.Contains(s, key[12:]) || !strings.Contains(s, "[REDACTED]") {
		t.Fatalf("the live view shows the key or masked nothing:\n%s", s)
	}
	if !strings.Contains(s, "word0") || !strings.Contains(s, "tail3") {
		t.Fatalf("the live view lost the stream:\n%s", s)
	}
}
