package tap_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
)

func breakpoints(t *testing.T, exprs ...string) []breakpoint.Breakpoint {
	t.Helper()
	bps, err := breakpoint.ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return bps
}

// geminiCLITurns is Gemini CLI's loop over several of its person's turns
// in one conversation, on its captured request and tools: each turn's
// calls until its answer. It reports each call's tools, and each answer.
func geminiCLITurns(t *testing.T, x *tapped, asks []string, out chan<- string) {
	req := capture(t, "geminicli", "001.request.json")
	first := req["contents"].([]any)[0].(map[string]any)
	parts := first["parts"].([]any)
	parts[len(parts)-1] = map[string]any{"text": asks[0]}
	contents := []any{first}
	header := http.Header{"Content-Type": {"application/json"}, "X-Goog-Api-Key": {geminiKey}}
	for i, ask := range asks {
		if i > 0 {
			contents = append(contents, map[string]any{"role": "user", "parts": []any{map[string]any{"text": ask}}})
		}
		for range 5 {
			req["contents"] = contents
			body, _ := json.Marshal(req)
			r := agentCall(t, x, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", header, body)
			if len(r.ToolCalls) == 0 {
				contents = append(contents, map[string]any{"role": "model", "parts": []any{map[string]any{"text": r.Text}}})
				out <- "answer: " + r.Text
				break
			}
			var model, results []any
			for _, call := range r.ToolCalls {
				var a map[string]any
				json.Unmarshal(call.Args, &a)
				out <- "call: " + call.Name
				model = append(model, map[string]any{"functionCall": map[string]any{"name": call.Name, "args": a}})
				results = append(results, map[string]any{"functionResponse": map[string]any{"name": call.Name, "response": map[string]any{"output": agentTool(t, call.Name, a)}}})
			}
			contents = append(contents, map[string]any{"role": "model", "parts": model}, map[string]any{"role": "user", "parts": results})
		}
	}
	close(out)
}

// Issue 30 §2: c with --break tool=run_shell_command lets an agent run
// until it wants a shell. Gemini CLI, on its own tools, with the built-in
// emulator upstream: its first two turns (a listing, a read) pass through
// without a hold; the reply that asks for run_shell_command is held, the
// tap steps again from there, and the agent goes on only as it is
// stepped.
func TestContinueUntilTheAgentWantsAShell(t *testing.T) {
	x := startTap(t, tap.Options{Upstream: tap.Offline, Mode: tap.Stepping, Breakpoints: breakpoints(t, "tool=run_shell_command")})
	x.Continue() // c
	got := make(chan string, 16)
	go geminiCLITurns(t, x, []string{"list the files here", "read hello.py", "run `python3 hello.py`"}, got)

	var seen []string
	for len(seen) < 4 { // the two turns, each a call and an answer
		seen = append(seen, <-got)
	}
	h := x.held(t, 1)[0]
	if h.ID != 1 || h.Kind != tap.HeldReply || h.Stop == nil || h.Stop.Breakpoint.String() != "tool=run_shell_command" || h.Stop.Index != 0 {
		t.Fatalf("the first hold: %+v (stop %+v); before it the agent did %q", h, h.Stop, seen)
	}
	if !strings.Contains(string(h.Exchange.ResponseBody), "run_shell_command") || x.Mode() != tap.Stepping {
		t.Fatalf("held reply %s, mode %v", h.Exchange.ResponseBody, x.Mode())
	}
	if s := strings.Join(seen, " | "); !strings.HasPrefix(s, "call: list_directory | answer: ") || !strings.Contains(s, "call: read_file | answer: ") {
		t.Fatalf("before the breakpoint: %s", s)
	}
	select {
	case s := <-got:
		t.Fatalf("the agent went on while its reply was held: %s", s)
	default:
	}

	// space: the reply goes; the agent runs its shell and calls again,
	// and that request is held (the tap steps now), with no breakpoint.
	x.Step()
	if s := <-got; s != "call: run_shell_command" {
		t.Fatalf("after the step: %s", s)
	}
	if h = x.held(t, 1)[0]; h.Kind != tap.HeldRequest || h.Stop != nil || !strings.Contains(string(h.Exchange.RequestBody), "hello\\n") {
		t.Fatalf("the next request: %+v", h)
	}
	x.Step()
	if h = x.held(t, 1)[0]; h.Kind != tap.HeldReply || h.Stop != nil {
		t.Fatalf("its reply: %+v", h)
	}
	x.Step()
	if s := <-got; !strings.HasPrefix(s, "answer: ") || !strings.Contains(s, "hello") {
		t.Fatalf("the answer: %s", s)
	}
}

// Breakpoints put in force while the tap runs (K in the glass box) hold
// the next call they match; taken out, they hold nothing.
func TestSetBreakpointsWhileRunning(t *testing.T) {
	x := startTap(t, tap.Options{Upstream: tap.Offline, Mode: tap.Running})
	x.SetBreakpoints(breakpoints(t, "edge=context_ready,bytes>1k"))
	if got := x.Breakpoints(); len(got) != 1 || got[0].String() != "edge=context_ready,bytes>1k" {
		t.Fatalf("in force: %v", got)
	}
	done := make(chan int, 1)
	go func() { s, _, _ := post(t, x.URL, "/v1beta/models/m:generateContent", geminiBody); done <- s }()
	if s := <-done; s != 200 {
		t.Fatalf("a small request: %d", s)
	}
	big := strings.Replace(geminiBody, "list the files", "list the files "+strings.Repeat("please ", 300), 1)
	go func() { s, _, _ := post(t, x.URL, "/v1beta/models/m:generateContent", big); done <- s }()
	h := x.held(t, 1)[0]
	if h.Kind != tap.HeldRequest || h.Stop == nil || h.Stop.Bytes == nil || *h.Stop.Bytes != len(big) {
		t.Fatalf("hold %v #%d, stop %+v", h.Kind, h.ID, h.Stop)
	}
	x.SetBreakpoints(nil)
	x.Continue()
	if s := <-done; s != 200 {
		t.Fatalf("the big request: %d", s)
	}
	go func() { s, _, _ := post(t, x.URL, "/v1beta/models/m:generateContent", big); done <- s }()
	if s := <-done; s != 200 || len(x.Now().Holds) != 0 {
		t.Fatalf("with no breakpoint: %d, holds %+v", s, x.Now().Holds)
	}
}

// The real genai, ollama/api and providers/openai clients, running (c)
// with a breakpoint on the final answer: the reply that asks for a tool
// streams through; the one that answers is held — read whole, its stream
// (SSE, NDJSON) delivered once it is stepped — and the client reads it
// as the service sent it.
func TestBreakpointHoldsRealClients(t *testing.T) {
	for _, cl := range realClients {
		t.Run(cl.name, func(t *testing.T) {
			up := offlineUpstream(t)
			x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Running, Breakpoints: breakpoints(t, "edge=final_answer")})
			p := cl.open(t, x.URL)
			ask := history.Message{Role: history.RoleUser, Text: "read hello.py"}
			req := providers.Request{System: "You are glassbox's test agent.", Messages: []history.Message{ask}, Tools: glassboxTools()}
			resp, err := p.Call(context.Background(), req)
			if err != nil || len(resp.ToolCalls()) != 1 || len(x.Now().Holds) != 0 {
				t.Fatalf("the first call: %+v %v, holds %+v", resp, err, x.Now().Holds)
			}
			msgs := []history.Message{ask, resp.Message, result(resp.ToolCalls()[0], "print('hello')\n")}
			type answer struct {
				resp *providers.Response
				err  error
			}
			got := make(chan answer, 1)
			go func() {
				r, err := p.Call(context.Background(), providers.Request{System: req.System, Messages: msgs, Tools: req.Tools})
				got <- answer{r, err}
			}()
			h := x.held(t, 1)[0]
			if h.Kind != tap.HeldReply || h.Stop == nil || h.Stop.Breakpoint.String() != "edge=final_answer" || x.Mode() != tap.Stepping {
				t.Fatalf("hold %+v, mode %v", h, x.Mode())
			}
			select {
			case a := <-got:
				t.Fatalf("the client had its answer while it was held: %+v %v", a.resp, a.err)
			default:
			}
			x.Step()
			a := <-got
			if a.err != nil || len(a.resp.ToolCalls()) != 0 || !strings.Contains(a.resp.Message.Text, "print") {
				t.Fatalf("the answer: %+v %v", a.resp, a.err)
			}
			x.waitEdges(t, "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*")
		})
	}
}
