package tap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/ollama"
	"github.com/glassbox-dev/glassbox/providers/openai"
)

// recordingUpstream is the emulator behind a server that keeps every
// request body it was sent: what really left the tap.
type recordingUpstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newRecordingUpstream(t *testing.T) *recordingUpstream {
	u := &recordingUpstream{}
	h := backend.Simulation(offline.Config{})
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, string(b))
		u.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *recordingUpstream) received() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies...)
}

// The secret keys the clients send: forwarded upstream, masked everywhere.
const (
	geminiKey = "AIzaSyTapTestKey0123456789abcdefghijk"
	openAIKey = "sk-tap-test-key-0123456789abcdefghijkl"
)

// realClients are the clients the tests call through the tap with:
// glassbox's own providers, each on its real client (genai, ollama/api,
// providers/openai's).
var realClients = []struct {
	name string
	open func(t *testing.T, base string) provider
}{
	{"genai", func(t *testing.T, base string) provider {
		p, err := gemini.New(context.Background(), gemini.Config{APIKey: geminiKey, BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
	{"ollama/api", func(t *testing.T, base string) provider {
		p, err := ollama.New(ollama.Config{Host: base, ToolMode: ollama.ToolModeNative})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
	{"providers/openai", func(t *testing.T, base string) provider {
		p, err := openai.New(openai.Config{BaseURL: base + "/v1", APIKey: openAIKey})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
}

// Done when (issue 30): the real genai, ollama/api and providers/openai clients,
// through the tap to an in-process service, stepped: the request held, a
// what-if edit of it, the reply held, then c lets the agent run to its
// answer with nothing held. Each client streams (SSE, NDJSON).
func TestStepRealClients(t *testing.T) {
	for _, cl := range realClients {
		t.Run(cl.name, func(t *testing.T) {
			up := newRecordingUpstream(t)
			var recorded []providers.Exchange
			var recMu sync.Mutex
			x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Stepping, OnExchange: func(e providers.Exchange) {
				recMu.Lock()
				recorded = append(recorded, e)
				recMu.Unlock()
			}})
			p := cl.open(t, x.URL)
			ask := history.Message{Role: history.RoleUser, Text: "list the files"}
			req := providers.Request{System: "You are glassbox's test agent.", Messages: []history.Message{ask}, Tools: glassboxTools()}

			// The request is held before it goes; what-if edits it.
			type answer struct {
				resp *providers.Response
				err  error
			}
			got := make(chan answer, 1)
			go func() { r, err := p.Call(context.Background(), req); got <- answer{r, err} }()
			h := x.held(t, 1)[0]
			if h.Kind != tap.HeldRequest || !h.Editable || !bytes.Contains(h.Exchange.RequestBody, []byte("list the files")) {
				t.Fatalf("hold %+v", h)
			}
			if len(up.received()) != 0 {
				t.Fatal("a held request reached the service")
			}
			body, ok := x.Body(h.ID)
			if !ok {
				t.Fatal("no body to edit")
			}
			if err := x.Edit(h.ID, bytes.Replace(body, []byte("list the files"), []byte("read hello.py"), 1)); err != nil {
				t.Fatal(err)
			}
			if h = x.held(t, 1)[0]; h.Edit == nil || !bytes.Contains(h.Exchange.RequestBody, []byte("read hello.py")) {
				t.Fatalf("the hold does not show the edit: %+v", h)
			}
			x.Step()

			// The reply is held before the agent gets it.
			if h = x.held(t, 1)[0]; h.Kind != tap.HeldReply {
				t.Fatalf("hold %+v", h)
			}
			if rs := up.received(); len(rs) != 1 || !strings.Contains(rs[0], "read hello.py") || strings.Contains(rs[0], "list the files") {
				t.Fatalf("the service was sent %q", rs)
			}
			select {
			case a := <-got:
				t.Fatalf("the agent got its reply while it was held: %+v", a)
			default:
			}
			x.Step()
			a := <-got
			if a.err != nil || len(a.resp.ToolCalls()) != 1 || a.resp.ToolCalls()[0].Name != "read_file" {
				t.Fatalf("reply %+v, %v: want read_file (the edited request)", a.resp, a.err)
			}
			steps := x.waitEdges(t, "new_event context_ready tool_call")
			if !steps[2].Edited || steps[2].Edit == nil || !strings.Contains(steps[2].Edit.Summary(), "the request") ||
				!bytes.Contains(steps[2].Exchanges[0].RequestBody, []byte("read hello.py")) {
				t.Fatalf("the step that sent the edit: edited %v, edit %+v", steps[2].Edited, steps[2].Edit)
			}

			// c: the agent runs to its answer, nothing held. It sends its
			// own history (it never knew of the edit).
			x.Continue()
			msgs := []history.Message{ask, a.resp.Message, result(a.resp.ToolCalls()[0], "print('hello')\n")}
			for range 3 {
				resp, err := p.Call(context.Background(), providers.Request{System: req.System, Messages: msgs, Tools: req.Tools})
				if err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, resp.Message)
				if len(resp.ToolCalls()) == 0 {
					break
				}
				msgs = append(msgs, result(resp.ToolCalls()[0], "hello.py\nREADME.md\n"))
			}
			if last := msgs[len(msgs)-1]; last.Role != history.RoleAssistant || !strings.Contains(last.Text, "hello.py") {
				t.Fatalf("no answer: %+v", last)
			}
			x.waitEdges(t, "new_event context_ready tool_call allow* tool_success* observed context_ready tool_call "+
				"allow* tool_success* observed context_ready final_answer delivered*")
			if hs := x.Now().Holds; len(hs) != 0 {
				t.Fatalf("held while running: %+v", hs)
			}

			// The keys went upstream and are nowhere in what glassbox keeps.
			recMu.Lock()
			defer recMu.Unlock()
			if len(recorded) != 3 {
				t.Fatalf("%d exchanges recorded, want 3", len(recorded))
			}
			everything, _ := json.Marshal(struct {
				Steps    any
				Recorded any
				Notes    any
			}{x.steps(), recorded, x.notes()})
			for _, key := range []string{geminiKey, openAIKey} {
				if bytes.Contains(everything, []byte(key)) {
					t.Errorf("the key %s… is in what the tap recorded", key[:8])
				}
			}
		})
	}
}

// The key is forwarded upstream as the agent sent it, and masked in what
// the tap keeps — in a header, the ?key= parameter, a bearer token, and
// when the service quotes it back in its reply.
func TestAgentKeyForwardedAndMasked(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Goog-Api-Key")+"|"+r.URL.Query().Get("key")+"|"+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"API key %s not valid","status":"INVALID_ARGUMENT"}}`, r.URL.Query().Get("key")+r.Header.Get("X-Goog-Api-Key"))
	}))
	defer up.Close()
	var recorded []providers.Exchange
	x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Running, OnExchange: func(e providers.Exchange) { recorded = append(recorded, e) }})
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	for _, c := range []struct{ header, query string }{{geminiKey, ""}, {"", geminiKey + "Q"}} {
		req, _ := http.NewRequest("POST", x.URL+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
		if c.header != "" {
			req.Header.Set("X-Goog-Api-Key", c.header)
		}
		if c.query != "" {
			req.URL.RawQuery = "key=" + c.query
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(answer), "API key "+c.header+c.query+" not valid") {
			t.Fatalf("the agent got %d %s: the reply must come back as it came", resp.StatusCode, answer)
		}
	}
	x.waitEdges(t, "new_event context_ready llm_failure reported* new_event context_ready llm_failure reported*")
	mu.Lock()
	if seen[0] != geminiKey+"||" || seen[1] != "|"+geminiKey+"Q|" {
		t.Fatalf("the service saw %q", seen)
	}
	mu.Unlock()
	everything, _ := json.Marshal(struct{ Steps, Recorded, Notes any }{x.steps(), recorded, x.notes()})
	if bytes.Contains(everything, []byte(geminiKey)) {
		t.Fatalf("the key is in what the tap keeps: %s", everything)
	}
	if !bytes.Contains(everything, []byte("API key [REDACTED] not valid")) {
		t.Fatalf("the quoted key is not masked in the reply: %s", everything)
	}
	if s := strings.Join(x.Secrets(), " "); !strings.Contains(s, geminiKey) {
		t.Fatalf("the key seen is not among the secrets: %q", s)
	}
}
