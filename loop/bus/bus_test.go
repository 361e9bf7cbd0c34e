package bus

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// queue is an engine's way in and out, without the engine: the test plays
// the output step.
type queue struct {
	mu      sync.Mutex
	events  []loop.Event
	out     loop.OutputFunc
	source  string
	current *loop.Event
}

func (q *queue) Event() *loop.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.current
}

func (q *queue) Submit(ev loop.Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.events = append(q.events, ev)
}

func (q *queue) Attach(source string, fn loop.OutputFunc) { q.source, q.out = source, fn }

func (q *queue) event(t *testing.T, i int) loop.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		q.mu.Lock()
		n := len(q.events)
		q.mu.Unlock()
		if n > i {
			q.mu.Lock()
			defer q.mu.Unlock()
			return q.events[i]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("event %d never queued", i)
	return loop.Event{}
}

// dial connects an SDK client named name to b over memory.
func dial(t *testing.T, b *Bus, name string) *mcp.ClientSession {
	t.Helper()
	return dialEliciting(t, b, name, nil)
}

// dialEliciting is dial with an elicitation handler.
func dialEliciting(t *testing.T, b *Bus, name string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	go b.Serve(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "2"}, &mcp.ClientOptions{ElicitationHandler: elicit}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type answer struct {
	res *mcp.CallToolResult
	err error
}

func callAsync(ctx context.Context, cs *mcp.ClientSession, request string) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"request": request}})
		ch <- answer{res, err}
	}()
	return ch
}

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestEachAnswerGoesToItsOwnCaller: two callers queue; the first cancels
// while waiting. The output step's answer to the first goes to nobody (and
// does not hang the step), the second caller gets its own answer, not the
// first's; a secret in the answer is masked; every frame is in the wire log
// under the bus's name.
func TestEachAnswerGoesToItsOwnCaller(t *testing.T) {
	q := &queue{}
	wire := &tools.WireLog{}
	b := New(Options{Version: "t", Secrets: []string{"sk-test-0123456789abcdef"}})
	b.Bind(q, wire)
	if q.source != Source || q.out == nil {
		t.Fatalf("Bind attached %q", q.source)
	}
	first, second := dial(t, b, "first"), dial(t, b, "second")

	cctx, cancel := context.WithCancel(context.Background())
	a := callAsync(cctx, first, "one")
	evA := q.event(t, 0)
	bAns := callAsync(context.Background(), second, "two")
	evB := q.event(t, 1)
	if evA.Source != Source || evA.Type != EventType || evA.Data != "one" || evA.From != "first 2 on the MCP bus" || evA.Ref == evB.Ref {
		t.Fatalf("events %+v, %+v", evA, evB)
	}
	cancel()
	if got := <-a; got.err == nil {
		t.Fatalf("the cancelled call returned %+v", got.res)
	}
	// The server hears of the cancellation (notifications/cancelled) a
	// moment after the client gives up.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b.mu.Lock()
		_, waiting := b.calls[evA.Ref]
		b.mu.Unlock()
		if !waiting {
			break
		}
	}

	done := make(chan struct{})
	go func() { q.out(loop.Output{Target: Source, Ref: evA.Ref, Text: "for one"}); close(done) }()
	select {
	case <-done:
	case <-time.After(sentWait / 2):
		t.Fatal("answering a caller that left held up the output step")
	}
	q.out(loop.Output{Target: Source, Ref: evB.Ref, Text: "for two, key sk-test-0123456789abcdef"})
	got := <-bAns
	if got.err != nil || got.res.IsError || !strings.HasPrefix(text(got.res), "for two") || strings.Contains(text(got.res), "sk-test-0123456789abcdef") {
		t.Fatalf("second caller got %q (%v), want its own answer with the key masked", text(got.res), got.err)
	}
	var methods []string
	for _, f := range wire.Drain() {
		if f.Server != Peer {
			t.Errorf("frame from %q", f.Server)
		}
		methods = append(methods, f.Dir+" "+f.Method)
	}
	// The answer's frame was written before the output step returned.
	if last := methods[len(methods)-1]; last != "send tools/call" {
		t.Errorf("last frame %q, want the answer sent (frames %v)", last, methods)
	}
}

// TestRefusedAndHaltedRunsAreErrorResults: what the policy or the person
// refused, and a halt, reach the caller as isError with the reason.
func TestRefusedAndHaltedRunsAreErrorResults(t *testing.T) {
	q := &queue{}
	b := New(Options{})
	b.Bind(q, nil)
	cs := dial(t, b, "c")
	for i, tc := range []struct {
		out  loop.Output
		want []string
	}{
		{loop.Output{Text: "I could not.", Refused: []string{"write_file denied by rule path-outside-workspace: /etc is outside"}},
			[]string{"refused", "rule path-outside-workspace", "I could not."}},
		{loop.Output{Text: "the iteration limit (2 model calls for one request) was reached", Halted: true},
			[]string{"halted", "iteration limit"}},
	} {
		ans := callAsync(context.Background(), cs, "do it")
		ev := q.event(t, i)
		tc.out.Ref, tc.out.Target = ev.Ref, Source
		q.out(tc.out)
		got := <-ans
		if got.err != nil || !got.res.IsError {
			t.Fatalf("result %+v (%v), want an error result", got.res, got.err)
		}
		for _, w := range tc.want {
			if !strings.Contains(text(got.res), w) {
				t.Errorf("result %q lacks %q", text(got.res), w)
			}
		}
	}
	// Arguments that are not a request are the caller's mistake, said as such.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"text": "hi"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), `{"request"`) {
		t.Fatalf("bad arguments: %+v %v", res, err)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7777": true, "127.1.2.3:1": true, "[::1]:7777": true, "localhost:7777": true,
		"0.0.0.0:7777": false, ":7777": false, "[::]:7777": false, "192.0.2.1:7777": false, "example.com:80": false,
		"[::ffff:127.0.0.1]:7777": true,
	} {
		got, err := Loopback(addr)
		if err != nil || got != want {
			t.Errorf("Loopback(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	for _, bad := range []string{"7777", "127.0.0.1", "127.0.0.1:", ""} {
		if _, err := Loopback(bad); err == nil {
			t.Errorf("Loopback(%q) accepted", bad)
		}
	}
}

// TestTheRunningRequestsCallerIsAsked: a confirmation goes to the client
// whose request the engine is running, never to another caller waiting in
// the queue; when that caller has gone, nobody is asked and the call is
// denied with the reason; a request that did not come from the bus has no
// caller to ask.
func TestTheRunningRequestsCallerIsAsked(t *testing.T) {
	q := &queue{}
	b := New(Options{})
	b.Bind(q, nil)
	var mu sync.Mutex
	asked := map[string]int{}
	answering := func(name, decision string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked[name]++
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
		}
	}
	first := dialEliciting(t, b, "first", answering("first", "allow once"))
	second := dialEliciting(t, b, "second", answering("second", "deny"))
	cctx, cancel := context.WithCancel(context.Background())
	a := callAsync(cctx, first, "one")
	evA := q.event(t, 0)
	bAns := callAsync(context.Background(), second, "two")
	evB := q.event(t, 1)
	defer func() { q.out(loop.Output{Target: Source, Ref: evB.Ref, Text: "done"}); <-bAns }()

	req := loop.ConfirmRequest{Call: history.ToolCall{Name: "write_file", Args: []byte(`{"path":"x"}`)}, Decision: loop.Decision{Rule: "confirm-writes"}}
	q.mu.Lock()
	q.current = &evB
	q.mu.Unlock()
	if got, err := b.Person().Confirm(context.Background(), req); err != nil || got != loop.Deny {
		t.Fatalf("second's request: %v, %v; want second's deny", got, err)
	}
	q.mu.Lock()
	q.current = &evA
	q.mu.Unlock()
	if got, err := b.Person().Confirm(context.Background(), req); err != nil || got != loop.AllowOnce {
		t.Fatalf("first's request: %v, %v; want first's allow", got, err)
	}
	cancel()
	<-a
	// The server hears of the cancellation (notifications/cancelled) a
	// moment after the client gives up.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := b.caller(); errors.Is(err, ErrCallerGone) {
			break
		}
	}
	if got, err := b.Person().Confirm(context.Background(), req); got != loop.Deny || !errors.Is(err, ErrCallerGone) {
		t.Fatalf("first gone: %v, %v; want deny with ErrCallerGone", got, err)
	}
	q.mu.Lock()
	q.current = &loop.Event{Source: "cli", Type: "user_input", Data: "typed"}
	q.mu.Unlock()
	if _, err := b.Person().Confirm(context.Background(), req); !errors.Is(err, ErrNoPerson) {
		t.Fatalf("a typed request: %v, want ErrNoPerson", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked["first"] != 1 || asked["second"] != 1 {
		t.Fatalf("asked %v, want each caller once, for its own request", asked)
	}
}

// TestHTTPRefusesAForeignHost: over HTTP the bus answers a client on this
// machine, and refuses a request whose Host is another name (DNS
// rebinding: a web page that makes a browser post to 127.0.0.1). The
// refused request is seen (its frame is kept) and gets no answer frame.
func TestHTTPRefusesAForeignHost(t *testing.T) {
	q := &queue{}
	wire := &tools.WireLog{}
	b := New(Options{})
	b.Bind(q, wire)
	srv := httptest.NewServer(b.Handler())
	defer srv.Close()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(host string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(initialize))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("evil.example:80"); code != http.StatusForbidden {
		t.Errorf("a foreign Host got %d, want 403", code)
	}
	if code := post(strings.TrimPrefix(srv.URL, "http://")); code != http.StatusOK {
		t.Errorf("this machine got %d, want 200", code)
	}
	var methods []string
	for _, f := range wire.Drain() {
		methods = append(methods, f.Dir+" "+f.Method)
	}
	if got := strings.Join(methods, ", "); got != "recv initialize, recv initialize, send initialize" {
		t.Errorf("frames %s, want both requests and one answer", got)
	}
}

// TestAnOlderBussEventAnswersNobody: an event queued by another bus (a
// resumed session's, whose caller is gone) never reaches a caller of this
// one, though its ref was "bus-1" and this bus also counts from 1.
func TestAnOlderBussEventAnswersNobody(t *testing.T) {
	older, q := New(Options{}), &queue{}
	older.Bind(&queue{}, nil)
	b := New(Options{})
	b.Bind(q, nil)
	cs := dial(t, b, "new")
	ans := callAsync(context.Background(), cs, "mine")
	ev := q.event(t, 0)
	if older.id == b.id || !strings.Contains(ev.Ref, b.id) {
		t.Fatalf("refs are not this bus's own: %q (ids %s, %s)", ev.Ref, older.id, b.id)
	}
	q.out(loop.Output{Target: Source, Ref: "bus-1", Text: "the old answer"})
	q.out(loop.Output{Target: Source, Ref: "bus-" + older.id + "-1", Text: "the old answer"})
	q.out(loop.Output{Target: Source, Ref: ev.Ref, Text: "mine"})
	if got := <-ans; got.err != nil || text(got.res) != "mine" {
		t.Fatalf("the caller got %q (%v), want its own answer", text(got.res), got.err)
	}
}

// TestAskUserGoesToTheCaller: the agent's ask_user question reaches the
// running request's caller through elicitation, options as the answer's
// choices; a caller that declines gives no answer.
func TestAskUserGoesToTheCaller(t *testing.T) {
	q := &queue{}
	b := New(Options{})
	b.Bind(q, nil)
	var offered []any
	reply := "blue"
	cs := dialEliciting(t, b, "asker", func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		schema, _ := r.Params.RequestedSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		answer, _ := props["answer"].(map[string]any)
		offered, _ = answer["enum"].([]any)
		if reply == "" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": reply}}, nil
	})
	ans := callAsync(context.Background(), cs, "ask me")
	ev := q.event(t, 0)
	q.mu.Lock()
	q.current = &ev
	q.mu.Unlock()
	got, err := b.Person().Ask(context.Background(), tools.Question{Text: "Which colour?", Options: []string{"red", "blue"}})
	if err != nil || got != "blue" || len(offered) != 2 {
		t.Fatalf("Ask = %q, %v (offered %v); want the caller's blue from red and blue", got, err, offered)
	}
	reply = ""
	if got, err := b.Person().Ask(context.Background(), tools.Question{Text: "Again?"}); err == nil {
		t.Fatalf("a declined question answered %q", got)
	}
	q.out(loop.Output{Target: Source, Ref: ev.Ref, Text: "done"})
	<-ans
}

// Issue 28 finding 6: over HTTP (--mcp-listen) the bus answers only a
// caller holding this start's token — the SDK's own streamable client,
// given the endpoint with the token as its password, asks and is
// answered — and refuses one without it, or with another start's; a
// refused request is no frame of the bus.
func TestListenNeedsThisStartsToken(t *testing.T) {
	q := &queue{}
	wire := &tools.WireLog{}
	b := New(Options{})
	b.Bind(q, wire)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	on, err := b.Listen(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(Options{}).Listen(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if on.Token == "" || on.Token == other.Token || len(on.Token) < 20 {
		t.Fatalf("tokens %q and %q", on.Token, other.Token)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "1"}, nil)
	for _, endpoint := range []string{on.Endpoint(), strings.Replace(on.EndpointWithToken(), on.Token, other.Token, 1)} {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			cs.Close()
			t.Errorf("%s: connected without this start's token", endpoint)
		}
	}
	if frames := wire.Drain(); len(frames) != 0 {
		t.Errorf("refused requests left %d frames", len(frames))
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: on.EndpointWithToken(), MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	defer cs.Close()
	ans := callAsync(ctx, cs, "hello")
	ev := q.event(t, 0)
	q.out(loop.Output{Target: Source, Ref: ev.Ref, Text: "hi there"})
	if got := <-ans; got.err != nil || text(got.res) != "hi there" {
		t.Fatalf("answer %q, %v", text(got.res), got.err)
	}
}
