package loop

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// wireProvider makes each call a real HTTP request through the capture
// transport; the first attempt is told to retry (503).
type wireProvider struct {
	client *http.Client
	url    string
	calls  int
}

func (p *wireProvider) Name() string  { return "wire" }
func (p *wireProvider) Model() string { return "wire-1" }
func (p *wireProvider) Call(ctx context.Context, _ providers.Request) (*providers.Response, error) {
	p.calls++
	req, _ := http.NewRequestWithContext(ctx, "POST", fmt.Sprintf("%s/call/%d", p.url, p.calls), nil)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable {
		return nil, &providers.Error{Kind: providers.KindUnavailable, Status: 503, Message: "overloaded"}
	}
	return &providers.Response{Message: history.Message{Role: history.RoleAssistant, Text: string(body)}, FinishReason: "STOP"}, nil
}

// A step tells, through the one OnNotice, the request as it goes out, the
// response's pieces as they arrive and a retry before its wait, in the
// order they happen, without anything put in the step's context by the
// caller.
func TestOnNoticeHearsTheWireAndRetriesInOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/call/1" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("hel"))
		w.(http.Flusher).Flush()
		w.Write([]byte("lo"))
	}))
	defer srv.Close()
	f := newFixture(t, 0)
	f.engine.cfg.Provider = &wireProvider{client: &http.Client{Transport: providers.NewTransport(nil)}, url: srv.URL}
	f.engine.cfg.Sleep = func(context.Context, time.Duration) error { return nil }
	var heard []string
	f.engine.SetOnNotice(func(n Notice) {
		switch n := n.(type) {
		case WireRequest:
			heard = append(heard, "request "+n.Exchange.URL[len(srv.URL):])
		case WireChunk:
			heard = append(heard, "chunk "+string(n.Chunk.Data))
		case Retry:
			heard = append(heard, fmt.Sprintf("retry %d", n.Attempt))
		}
	})
	_, ts := f.run(t, "hi")
	if ts[2].Edge != EdgeFinalAnswer {
		t.Fatalf("edge %s", ts[2].Edge)
	}
	want := []string{"request /call/1", "retry 1", "request /call/2"}
	var got []string
	var body string
	for _, h := range heard {
		if len(h) > 6 && h[:6] == "chunk " {
			body += h[6:]
			continue
		}
		got = append(got, h)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || body != "hello" {
		t.Fatalf("heard %q (body %q), want %q and the body hello", heard, body, want)
	}
}
