package outside_test

import (
	"reflect"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// asCall is what a trace of messages would say of x: its request and
// reply decoded, with no bytes.
func asCall(t *testing.T, x providers.Exchange) outside.Call {
	t.Helper()
	c, _, ok := backend.Wire().Detect(x.Method, x.URL)
	if !ok {
		t.Fatalf("no codec for %s", x.URL)
	}
	req, err := c.DecodeRequest(x.URL, x.RequestBody)
	if err != nil {
		t.Fatal(err)
	}
	resp := c.DecodeResponse(req, x)
	req.Segments, req.Size = nil, 0
	return outside.Call{Request: req, Response: resp, Status: x.Status, Duration: x.Total}
}

// A call known by its messages steps as its bytes do: the same edges,
// events, messages, records and history lengths; only the payload (the
// exchange) is missing.
func TestCallStepsAsItsExchange(t *testing.T) {
	for _, tc := range []struct {
		agent string
		n     []string
	}{{"geminicli", []string{"001", "002"}}, {"opencode", []string{"001", "002", "003"}}} {
		t.Run(tc.agent, func(t *testing.T) {
			var xs []providers.Exchange
			for _, n := range tc.n {
				xs = append(xs, agentExchange(t, tc.agent, n))
			}
			want := feed(outside.New(outside.Options{Source: "open", Backend: "file"}), xs...)
			b := outside.New(outside.Options{Source: "open", Backend: "file"})
			var got []loop.Transition
			for _, x := range xs {
				got = append(got, b.Call(asCall(t, x))...)
			}
			if edges(got) != edges(want) {
				t.Fatalf("edges\n got %s\nwant %s", edges(got), edges(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				if len(g.Exchanges) != 0 {
					t.Fatalf("step %d carries %d exchanges; a call of messages has none", g.Seq, len(g.Exchanges))
				}
				w.Exchanges, w.Time = nil, g.Time
				if !reflect.DeepEqual(w, g) {
					t.Fatalf("step %d\n got %+v\nwant %+v", g.Seq, g, w)
				}
			}
		})
	}
}

// A call the trace holds no reply to fails with that said; a call that
// arrives while an exchange's reply is awaited is stepped after it.
func TestCallWithoutReplyAndQueued(t *testing.T) {
	x1, x2 := agentExchange(t, "geminicli", "001"), agentExchange(t, "geminicli", "002")
	b := outside.New(outside.Options{})
	c := asCall(t, x1)
	c.Response = nil
	got := b.Call(c)
	if e := edges(got); e != "new_event context_ready llm_failure reported*" {
		t.Fatalf("edges %s", e)
	}
	if msg := got[2].Error.Message; msg != "the trace holds no reply to this call" {
		t.Fatalf("error %q", msg)
	}

	b = outside.New(outside.Options{})
	if steps := b.Request(x1); len(steps) != 2 || b.State() != loop.AwaitingLLMResponse {
		t.Fatalf("request: %s", edges(steps))
	}
	if steps := b.Call(asCall(t, x2)); steps != nil {
		t.Fatalf("a call stepped while a reply was awaited: %s", edges(steps))
	}
	got = b.Response(x1)
	want := "tool_call allow* tool_success* observed context_ready final_answer delivered*"
	if e := edges(got); e != want {
		t.Fatalf("edges\n got %s\nwant %s", e, want)
	}
}
