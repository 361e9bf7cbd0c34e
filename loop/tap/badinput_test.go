package tap_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
)

// post sends body to the tap at path and returns the status and reply.
func post(t *testing.T, url, path, body string) (int, string, error) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

const geminiBody = `{"contents":[{"role":"user","parts":[{"text":"list the files"}]}],"tools":[{"functionDeclarations":[{"name":"list_files","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}]}`

// A path no family serves gets a 404 that names the three families, and
// the call is shown as one glassbox could not read, with a note.
func TestUnknownPath(t *testing.T) {
	x := startTap(t, tap.Options{Upstream: offlineUpstream(t).URL, Mode: tap.Stepping})
	status, body, err := post(t, x.URL, "/v1/responses", `{"model":"m","input":"hi"}`)
	if err != nil || status != 404 {
		t.Fatalf("%d %s %v", status, body, err)
	}
	for _, want := range []string{"POST /v1/responses", "gemini: /v1beta/models/{model}:generateContent", "openai: /v1/chat/completions", "ollama: /api/chat"} {
		if !strings.Contains(body, want) {
			t.Errorf("the 404 does not say %q: %s", want, body)
		}
	}
	steps := x.waitEdges(t, "new_event context_ready llm_failure reported*")
	if steps[2].Error == nil || steps[2].Error.Kind != "unread_call" {
		t.Fatalf("error %+v", steps[2].Error)
	}
	if n := x.notes(); len(n) != 1 || !strings.Contains(n[0], "POST /v1/responses, which no API family serves") {
		t.Fatalf("notes %q", n)
	}
	if hs := x.Now().Holds; len(hs) != 0 {
		t.Fatalf("a call the tap answered itself is held: %+v", hs)
	}
}

// A read-only call around the model calls passes through untouched and
// makes no step.
func TestPassThrough(t *testing.T) {
	x := startTap(t, tap.Options{Upstream: offlineUpstream(t).URL, Mode: tap.Stepping})
	resp, err := http.Get(x.URL + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"models"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if s := x.steps(); len(s) != 0 || len(x.Now().Holds) != 0 {
		t.Fatalf("steps %s, holds %v", edges(s), x.Now().Holds)
	}
}

// A service that refuses the connection: the agent gets a 502 saying so,
// and the call is shown failed.
func TestUpstreamRefuses(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String()
	l.Close()
	x := startTap(t, tap.Options{Upstream: closed, Mode: tap.Running})
	status, body, err := post(t, x.URL, "/v1beta/models/m:generateContent", geminiBody)
	if err != nil || status != 502 || !strings.Contains(body, "did not answer") || !strings.Contains(body, "refused") {
		t.Fatalf("%d %s %v", status, body, err)
	}
	steps := x.waitEdges(t, "new_event context_ready llm_failure reported*")
	if !strings.Contains(steps[2].Error.Message, "refused") {
		t.Fatalf("error %+v", steps[2].Error)
	}
}

// A service that cuts its stream in the middle: the agent's stream is cut
// at the same place (what arrived, then the connection ends), and the
// call is shown cut — whether the tap streamed the reply or held it.
func TestUpstreamCutsTheStream(t *testing.T) {
	first := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}` + "\r\n\r\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer up.Close()
	for _, mode := range []tap.Mode{tap.Running, tap.Stepping} {
		x := startTap(t, tap.Options{Upstream: up.URL, Mode: mode})
		got := make(chan string, 1)
		go func() {
			resp, err := http.Post(x.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(geminiBody))
			if err != nil {
				got <- "error " + err.Error()
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			got <- fmt.Sprintf("%d %q %v", resp.StatusCode, b, err)
		}()
		if mode == tap.Stepping {
			x.held(t, 1)
			x.Step()
			if h := x.held(t, 1); h[0].Kind != tap.HeldReply || h[0].Exchange.Err == "" {
				t.Fatalf("held reply %+v", h[0])
			}
			x.Step()
		}
		answer := <-got
		if !strings.HasPrefix(answer, "200 ") || !strings.Contains(answer, "Hel") || !strings.Contains(answer, "unexpected EOF") {
			t.Fatalf("mode %d: the agent got %s; want the first event, then the cut", mode, answer)
		}
		steps := x.waitEdges(t, "new_event context_ready llm_failure reported*")
		if !strings.Contains(steps[2].Error.Message, "cut off") {
			t.Fatalf("error %+v", steps[2].Error)
		}
	}
}

// A request body over the limit goes upstream whole; the tap keeps and
// shows its first part, says its size, and does not offer it to what-if.
func TestOversizeRequest(t *testing.T) {
	var got int
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = len(b)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`)
	}))
	defer up.Close()
	var recorded []providers.Exchange
	x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Stepping, Keep: 1024, OnExchange: func(e providers.Exchange) { recorded = append(recorded, e) }})
	big := strings.Replace(geminiBody, "list the files", strings.Repeat("words ", 1000), 1)
	done := make(chan int, 1)
	go func() { s, _, _ := post(t, x.URL, "/v1beta/models/m:generateContent", big); done <- s }()
	h := x.held(t, 1)[0]
	if h.Editable || len(h.Exchange.RequestBody) != 1024 || h.Exchange.RequestSize != int64(len(big)) {
		t.Fatalf("hold: editable %v, kept %d, size %d", h.Editable, len(h.Exchange.RequestBody), h.Exchange.RequestSize)
	}
	if _, ok := x.Body(h.ID); ok {
		t.Fatal("what-if offers a body kept cut")
	}
	if err := x.Edit(h.ID, []byte(geminiBody)); err == nil {
		t.Fatal("an edit of a body kept cut was taken")
	}
	x.Continue()
	if s := <-done; s != 200 || got != len(big) {
		t.Fatalf("status %d; the service got %d of %d bytes", s, got, len(big))
	}
	waitFor(t, "the exchange", func() bool { return len(x.steps()) >= 4 })
	if n := x.notes(); len(n) == 0 || !strings.Contains(n[0], fmt.Sprintf("a request body of %d bytes", len(big))) {
		t.Fatalf("notes %q", n)
	}
}

// Concurrent calls: none is lost or reordered. Each is held in the order
// it arrived, released one by one, and each agent gets its own answer;
// every request is recorded once.
func TestConcurrentCalls(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		i := bytes.Index(b, []byte("call-"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"answer to %s"}]},"finishReason":"STOP"}]}`, b[i:i+7])
	}))
	defer up.Close()
	var mu sync.Mutex
	var recorded []string
	x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Stepping, OnExchange: func(e providers.Exchange) {
		mu.Lock()
		i := bytes.Index(e.RequestBody, []byte("call-"))
		recorded = append(recorded, string(e.RequestBody[i:i+7]))
		mu.Unlock()
	}})
	const n = 6
	answers := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		// Each call is sent once the one before it is held: the order
		// they arrive in is known.
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, b, _ := post(t, x.URL, "/v1beta/models/m:generateContent", strings.Replace(geminiBody, "list the files", fmt.Sprintf("call-%02d", i), 1))
			answers[i] = b
		}()
		x.held(t, i+1)
	}
	hs := x.Now().Holds
	for i, h := range hs {
		if want := fmt.Sprintf("call-%02d", i); !bytes.Contains(h.Exchange.RequestBody, []byte(want)) {
			t.Fatalf("hold %d is not %s", i, want)
		}
	}
	for released := 0; released < 2*n; released++ {
		waitFor(t, "a hold", func() bool { return len(x.Now().Holds) > 0 })
		x.Step()
	}
	wg.Wait()
	for i, a := range answers {
		if !strings.Contains(a, fmt.Sprintf("answer to call-%02d", i)) {
			t.Errorf("agent %d got %s", i, a)
		}
	}
	waitFor(t, "every exchange", func() bool { mu.Lock(); defer mu.Unlock(); return len(recorded) == n })
	seen := map[string]int{}
	for _, r := range recorded {
		seen[r]++
	}
	for i := range n {
		if k := fmt.Sprintf("call-%02d", i); seen[k] != 1 {
			t.Errorf("%s recorded %d times", k, seen[k])
		}
	}
	steps := x.steps()
	var finals int
	for _, s := range steps {
		if s.LLM != nil && s.LLM.Text != "" {
			finals++
		}
	}
	if finals != n {
		t.Fatalf("%d answers among the steps, want %d: %s", finals, n, edges(steps))
	}
}

// An agent that gives up on a held call is not left unseen: the hold ends
// with a note of how long it waited, and the call is shown failed; nothing
// was sent.
func TestAgentGivesUpWhileHeld(t *testing.T) {
	var calls int
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer up.Close()
	x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Stepping})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", x.URL+"/v1beta/models/m:generateContent", strings.NewReader(geminiBody))
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	x.held(t, 1)
	cancel()
	<-done
	x.held(t, 0)
	steps := x.waitEdges(t, "new_event context_ready llm_failure reported*")
	if !strings.Contains(steps[2].Error.Message, "gave up") {
		t.Fatalf("error %+v", steps[2].Error)
	}
	waitFor(t, "the note", func() bool { n := x.notes(); return len(n) == 1 && strings.Contains(n[0], "gave up waiting after") })
	if calls != 0 {
		t.Fatalf("the service was called %d times", calls)
	}
}

// An upstream that is the tap itself is refused before anything is
// served: every call would come back to the tap.
func TestUpstreamIsTheTap(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	tp, err := tap.New(tap.Options{Upstream: "http://" + l.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tp.Serve(ctx, l); err == nil || !strings.Contains(err.Error(), "the tap itself") {
		t.Fatalf("err %v", err)
	}
	tp.Close()
	for _, bad := range []string{"ftp://x", "localhost:11434", "http://"} {
		if _, err := tap.New(tap.Options{Upstream: bad}); err == nil || !strings.Contains(err.Error(), "--upstream "+bad) {
			t.Errorf("--upstream %s: %v", bad, err)
		}
	}
}
