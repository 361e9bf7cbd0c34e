package tap_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/offline"
)

// tapped is a tap serving on a loopback port, and everything it has told.
type tapped struct {
	*tap.Tap
	URL  string // http://127.0.0.1:PORT
	Addr string

	mu     sync.Mutex
	events []tap.Event
	last   tap.News
}

// startTap serves a tap with opt until the test ends, collecting its news.
func startTap(t *testing.T, opt tap.Options) *tapped {
	t.Helper()
	tp, err := tap.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { tp.Serve(ctx, l); close(served) }()
	x := &tapped{Tap: tp, URL: "http://" + l.Addr().String(), Addr: l.Addr().String()}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			n, ok := tp.Next(ctx)
			if !ok {
				return
			}
			x.mu.Lock()
			x.events = append(x.events, n.Events...)
			x.last = n
			x.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-served; <-read })
	return x
}

// offlineUpstream is the built-in emulator on a real port: an in-process
// service speaking the three families' documented wire formats.
func offlineUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(backend.Simulation(offline.Config{}))
	t.Cleanup(srv.Close)
	return srv
}

// waitFor waits until ok holds, or fails the test after a deadline.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// held waits for n holds and returns them.
func (x *tapped) held(t *testing.T, n int) []tap.Hold {
	t.Helper()
	var hs []tap.Hold
	waitFor(t, "holds", func() bool { hs = x.Now().Holds; return len(hs) == n })
	return hs
}

// steps are the steps told so far.
func (x *tapped) steps() []loop.Transition {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []loop.Transition
	for _, e := range x.events {
		if e.Step != nil {
			out = append(out, *e.Step)
		}
	}
	return out
}

// notes are the notes told so far, in English.
func (x *tapped) notes() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for _, e := range x.events {
		if e.Note != nil {
			out = append(out, e.Note.Error())
		}
	}
	return out
}

// edges are the steps' edges, inferred ones marked with *.
func edges(ts []loop.Transition) string {
	var out []string
	for _, t := range ts {
		e := string(t.Edge)
		if t.Inferred != "" {
			e += "*"
		}
		out = append(out, e)
	}
	return strings.Join(out, " ")
}

// waitEdges waits until the steps' edges are want.
func (x *tapped) waitEdges(t *testing.T, want string) []loop.Transition {
	t.Helper()
	var got []loop.Transition
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = x.steps()
		if edges(got) == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("edges\n got %s\nwant %s\nnotes %q", edges(got), want, x.notes())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// glassboxTools are two of glassbox's own tools, as a request declares them.
func glassboxTools() []history.ToolSpec {
	return []history.ToolSpec{
		{Name: "list_files", Description: "List the files in a folder of the workspace.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "read_file", Description: "Read a file of the workspace.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	}
}

// result is the next request's tool result for call.
func result(call history.ToolCall, content string) history.Message {
	return history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: call.ID, Name: call.Name, Content: content}}
}

// provider is what the tests call through the tap: glassbox's own
// providers, each on its real client (genai, ollama/api, openai-go).
type provider interface {
	Call(ctx context.Context, req providers.Request) (*providers.Response, error)
}
