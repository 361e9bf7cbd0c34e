package loop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// scriptedProvider answers each call with the next scripted reply.
type scriptedProvider struct {
	replies []reply
	calls   int
	seen    []providers.Request
}

type reply struct {
	resp *providers.Response
	err  error
}

func (p *scriptedProvider) Name() string  { return "fake" }
func (p *scriptedProvider) Model() string { return "fake-1" }
func (p *scriptedProvider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	p.seen = append(p.seen, req)
	if p.calls >= len(p.replies) {
		return nil, errors.New("script exhausted")
	}
	r := p.replies[p.calls]
	p.calls++
	return r.resp, r.err
}

func text(s string) reply {
	return reply{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant, Text: s}, FinishReason: "STOP"}}
}

func calls(cs ...history.ToolCall) reply {
	return reply{resp: &providers.Response{Message: history.Message{Role: history.RoleAssistant, ToolCalls: cs}, FinishReason: "STOP"}}
}

func call(name, args string) history.ToolCall {
	return history.ToolCall{Name: name, Args: json.RawMessage(args)}
}

// fakeTool records its runs and answers with a fixed result.
type fakeTool struct {
	name   string
	result tools.Result
	err    error
	runs   int
}

// Spec declares the attributes of the built-in tool of the same name, so
// the built-in policy treats the fake as it would the real one.
func (f *fakeTool) Spec() history.ToolSpec {
	spec := history.ToolSpec{Name: f.name, Description: "fake", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Path: true}}}
	if real, ok := tools.Default(nil, nil, 0).Get(f.name); ok {
		spec.Attrs = real.Spec().Attrs
	}
	return spec
}
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	f.runs++
	return f.result, f.err
}

// scriptedPerson answers confirmations from a list.
type scriptedPerson struct {
	approvals []Approval
	asked     []ConfirmRequest
}

func (p *scriptedPerson) Confirm(ctx context.Context, req ConfirmRequest) (Approval, error) {
	p.asked = append(p.asked, req)
	if len(p.approvals) == 0 {
		return Deny, errors.New("no answer scripted")
	}
	a := p.approvals[0]
	p.approvals = p.approvals[1:]
	return a, nil
}
func (p *scriptedPerson) Ask(ctx context.Context, q tools.Question) (string, error) {
	return "yes", nil
}

// sandbox treats absolute paths and .. as outside the workspace.
type sandbox struct{}

func (sandbox) Inside(p string) bool { return !strings.HasPrefix(p, "/") && !strings.Contains(p, "..") }

type fixture struct {
	engine   *Engine
	provider *scriptedProvider
	person   *scriptedPerson
	read     *fakeTool
	write    *fakeTool
	outputs  []Output
}

func newFixture(t *testing.T, maxIter int, replies ...reply) *fixture {
	t.Helper()
	f := &fixture{
		provider: &scriptedProvider{replies: replies},
		person:   &scriptedPerson{},
		read:     &fakeTool{name: "read_file", result: tools.Result{Content: "file text"}},
		write:    &fakeTool{name: "write_file", result: tools.Result{Content: "wrote 3 bytes"}},
	}
	reg, err := tools.NewRegistry(f.read, f.write)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{
		Provider: f.provider, Tools: reg, Person: f.person, Workspace: sandbox{},
		MaxIterations: maxIter, Backend: "offline",
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Attach("cli", func(o Output) { f.outputs = append(f.outputs, o) })
	f.engine = e
	return f
}

// run submits one event and steps until the engine is idle, returning the
// edges taken.
func (f *fixture) run(t *testing.T, input string) ([]Edge, []Transition) {
	t.Helper()
	f.engine.Submit(Event{Source: "cli", Type: "user_input", Data: input})
	var edges []Edge
	var ts []Transition
	for i := 0; i < 200; i++ {
		tr, err := f.engine.Step(context.Background())
		if errors.Is(err, ErrIdle) {
			return edges, ts
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if want, ok := Target(tr.From, tr.Edge); !ok || want != tr.To {
			t.Fatalf("transition %s --%s--> %s is not in the table", tr.From, tr.Edge, tr.To)
		}
		edges = append(edges, tr.Edge)
		ts = append(ts, tr)
	}
	t.Fatal("engine did not become idle within 200 steps")
	return nil, nil
}

var (
	start  = []Edge{EdgeNewEvent, EdgeContextReady}
	finish = []Edge{EdgeContextReady, EdgeFinalAnswer, EdgeDelivered}
)

func seq(parts ...[]Edge) []Edge { return slices.Concat(parts...) }

func TestTransitions(t *testing.T) {
	transient := &providers.Error{Kind: providers.KindRateLimit, Status: 429, Message: "rate limited", RetryAfter: 2 * time.Second}
	tests := []struct {
		name      string
		maxIter   int
		replies   []reply
		approvals []Approval
		readFails bool
		want      []Edge
	}{
		{name: "final answer at once", replies: []reply{text("hi")},
			want: []Edge{EdgeNewEvent, EdgeContextReady, EdgeFinalAnswer, EdgeDelivered}},
		{name: "allowed tool then answer", replies: []reply{calls(call("read_file", `{"path":"a.txt"}`)), text("done")},
			want: seq(start, []Edge{EdgeToolCall, EdgeAllow, EdgeToolSuccess, EdgeObserved}, finish)},
		{name: "policy deny for a path outside", replies: []reply{calls(call("read_file", `{"path":"/etc/passwd"}`)), text("denied")},
			want: seq(start, []Edge{EdgeToolCall, EdgeDeny, EdgeObserved}, finish)},
		{name: "unknown tool is denied", replies: []reply{calls(call("open_file", `{"path":"a"}`)), text("sorry")},
			want: seq(start, []Edge{EdgeToolCall, EdgeDeny, EdgeObserved}, finish)},
		{name: "confirmation approved", replies: []reply{calls(call("write_file", `{"path":"a"}`)), text("ok")}, approvals: []Approval{AllowOnce},
			want: seq(start, []Edge{EdgeToolCall, EdgeConfirmRequired, EdgeUserApproval, EdgeToolSuccess, EdgeObserved}, finish)},
		{name: "confirmation denied", replies: []reply{calls(call("write_file", `{"path":"a"}`)), text("ok")}, approvals: []Approval{Deny},
			want: seq(start, []Edge{EdgeToolCall, EdgeConfirmRequired, EdgeUserDenial, EdgeObserved}, finish)},
		{name: "tool failure", readFails: true, replies: []reply{calls(call("read_file", `{"path":"x"}`)), text("it failed")},
			want: seq(start, []Edge{EdgeToolCall, EdgeAllow, EdgeToolFailure, EdgeObserved}, finish)},
		{name: "three calls in one response", replies: []reply{calls(call("read_file", `{"path":"a"}`), call("read_file", `{"path":"/x"}`), call("read_file", `{"path":"b"}`)), text("all")},
			want: seq(start, []Edge{EdgeToolCall, EdgeAllow, EdgeToolSuccess, EdgeNextToolCall, EdgeDeny, EdgeNextToolCall, EdgeAllow, EdgeToolSuccess, EdgeObserved}, finish)},
		{name: "malformed then repaired", replies: []reply{{resp: &providers.Response{Malformed: "no JSON object found"}}, text("fixed")},
			want: seq(start, []Edge{EdgeMalformedResponse, EdgeObserved}, finish)},
		{name: "final provider error", replies: []reply{{err: &providers.Error{Kind: providers.KindAuth, Status: 400, Message: "bad key"}}},
			want: seq(start, []Edge{EdgeLLMFailure, EdgeReported})},
		{name: "transient error retried then answered", replies: []reply{{err: transient}, text("after retry")},
			want: []Edge{EdgeNewEvent, EdgeContextReady, EdgeFinalAnswer, EdgeDelivered}},
		{name: "retries exhausted", replies: []reply{{err: transient}, {err: transient}, {err: transient}, {err: transient}},
			want: seq(start, []Edge{EdgeLLMFailure, EdgeReported})},
		{name: "iteration limit", maxIter: 2, replies: []reply{calls(call("read_file", `{"path":"a"}`)), calls(call("read_file", `{"path":"a"}`))},
			want: seq(start, []Edge{EdgeToolCall, EdgeAllow, EdgeToolSuccess, EdgeObserved},
				[]Edge{EdgeContextReady, EdgeToolCall, EdgeAllow, EdgeToolSuccess, EdgeObserved}, []Edge{EdgeMaxIterations, EdgeReported})},
	}
	covered := map[Arc]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.maxIter, tc.replies...)
			f.person.approvals = tc.approvals
			if tc.readFails {
				f.read.result = tools.Result{Content: "no such file: x", IsError: true}
			}
			edges, ts := f.run(t, "do it")
			if !slices.Equal(edges, tc.want) {
				t.Fatalf("edges\n got %v\nwant %v", edges, tc.want)
			}
			for _, tr := range ts {
				covered[Arc{tr.From, tr.Edge, tr.To}] = true
			}
			if len(f.outputs) != 1 {
				t.Fatalf("outputs = %d, want exactly 1 to the event's source", len(f.outputs))
			}
		})
	}
	for _, a := range Table {
		if !covered[a] {
			t.Errorf("no test takes %s --%s--> %s", a.From, a.Edge, a.To)
		}
	}
}

func TestRetriesAreRecorded(t *testing.T) {
	rl := &providers.Error{Kind: providers.KindRateLimit, Status: 429, Message: "slow down", RetryAfter: 40 * time.Second}
	unavailable := &providers.Error{Kind: providers.KindUnavailable, Status: 503, Message: "overloaded"}
	f := newFixture(t, 0, reply{err: rl}, reply{err: unavailable}, text("ok"))
	var waits []time.Duration
	f.engine.cfg.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	var heard []Retry
	f.engine.cfg.OnRetry = func(r Retry) { heard = append(heard, r) }
	_, ts := f.run(t, "hi")
	llm := ts[2].LLM
	if len(llm.Retries) != 2 || len(heard) != 2 {
		t.Fatalf("retries = %+v, heard %d", llm.Retries, len(heard))
	}
	// RetryInfo's 40s is honoured; the second retry, a 503 naming no
	// delay, backs off exponentially: 1s << 1.
	if !slices.Equal(waits, []time.Duration{40 * time.Second, 2 * time.Second}) {
		t.Fatalf("waits = %v", waits)
	}
	if llm.Retries[0].Status != 429 || llm.Retries[1].Status != 503 {
		t.Fatalf("statuses = %+v", llm.Retries)
	}
}

func TestRetryAfterLongerThanMaxWaitFails(t *testing.T) {
	rl := &providers.Error{Kind: providers.KindRateLimit, Status: 429, Message: "quota", RetryAfter: 10 * time.Minute}
	f := newFixture(t, 0, reply{err: rl})
	edges, ts := f.run(t, "hi")
	if edges[2] != EdgeLLMFailure || !strings.Contains(ts[2].Error.Message, "asked to wait 10m0s") {
		t.Fatalf("edges %v, error %+v", edges, ts[2].Error)
	}
}

func TestSessionGrantIsExact(t *testing.T) {
	w := func(args string) reply { return calls(call("write_file", args)) }
	f := newFixture(t, 0,
		w(`{"path":"a"}`), w(`{ "path" : "a" }`), w(`{"path":"b"}`), text("done"))
	f.person.approvals = []Approval{AllowSession, AllowOnce}
	_, ts := f.run(t, "write twice")
	decisions := policyDecisions(ts)
	want := []string{"REQUIRE_USER_CONFIRMATION/changes-need-approval", "ALLOW/session-grant", "REQUIRE_USER_CONFIRMATION/changes-need-approval"}
	if !slices.Equal(decisions, want) {
		t.Fatalf("decisions\n got %v\nwant %v", decisions, want)
	}
	if len(f.person.asked) != 2 {
		t.Fatalf("person asked %d times, want 2", len(f.person.asked))
	}
}

// policyDecisions lists the security layer's decisions in ts as
// VERDICT/rule.
func policyDecisions(ts []Transition) []string {
	var decisions []string
	for _, tr := range ts {
		if tr.From == CheckingPolicy {
			decisions = append(decisions, string(tr.Decision.Verdict)+"/"+tr.Decision.Rule)
		}
	}
	return decisions
}

func TestToolResultsReachTheModel(t *testing.T) {
	f := newFixture(t, 0, calls(call("read_file", `{"path":"a"}`), call("read_file", `{"path":"/etc"}`)), text("done"))
	f.run(t, "read")
	second := f.provider.seen[1].Messages
	// user, assistant (2 calls), tool result, tool result (denial)
	if len(second) != 4 || second[2].Result == nil || second[3].Result == nil {
		t.Fatalf("messages sent on the second call: %+v", second)
	}
	if second[2].Result.Content != "file text" || second[2].Result.IsError {
		t.Errorf("first result = %+v", second[2].Result)
	}
	if !second[3].Result.IsError || !strings.Contains(second[3].Result.Content, "path-outside-workspace") {
		t.Errorf("denial = %+v", second[3].Result)
	}
}

func TestMalformedFeedbackReachesTheModel(t *testing.T) {
	f := newFixture(t, 0, reply{resp: &providers.Response{Malformed: "invalid JSON at offset 3"}}, text("fixed"))
	f.run(t, "go")
	msgs := f.provider.seen[1].Messages
	last := msgs[len(msgs)-1]
	if !last.Feedback || last.Text != "invalid JSON at offset 3" {
		t.Fatalf("last message = %+v", last)
	}
}

func TestCancelledConfirmationTakesNoTransition(t *testing.T) {
	f := newFixture(t, 0, calls(call("write_file", `{"path":"a"}`)))
	f.engine.cfg.Person = blockingPerson{}
	f.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "w"})
	ctx := context.Background()
	for f.engine.State() != AwaitingUserConfirmation {
		if _, err := f.engine.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.engine.Step(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if f.engine.State() != AwaitingUserConfirmation {
		t.Fatalf("state = %s, want AWAITING_USER_CONFIRMATION unchanged", f.engine.State())
	}
}

type blockingPerson struct{}

func (blockingPerson) Confirm(ctx context.Context, _ ConfirmRequest) (Approval, error) {
	<-ctx.Done()
	return Deny, ctx.Err()
}
func (blockingPerson) Ask(ctx context.Context, _ tools.Question) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func TestIdleAndQueue(t *testing.T) {
	f := newFixture(t, 0, text("one"), text("two"))
	if _, err := f.engine.Step(context.Background()); !errors.Is(err, ErrIdle) {
		t.Fatalf("err = %v, want ErrIdle", err)
	}
	f.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "first"})
	f.engine.Submit(Event{Source: "ui", Type: "user_input", Data: "second"})
	var uiOut []Output
	f.engine.Attach("ui", func(o Output) { uiOut = append(uiOut, o) })
	for range 8 {
		if _, err := f.engine.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !f.engine.Idle() {
		t.Fatalf("engine not idle after two events: %s", f.engine.State())
	}
	if len(f.outputs) != 1 || f.outputs[0].Text != "one" || len(uiOut) != 1 || uiOut[0].Text != "two" {
		t.Fatalf("outputs cli=%+v ui=%+v", f.outputs, uiOut)
	}
}

func TestUnknownToolIsNamed(t *testing.T) {
	f := newFixture(t, 0, calls(call("open_file", `{"path":"a"}`)), text("sorry"))
	_, ts := f.run(t, "x")
	d := ts[3]
	if d.Decision.Rule != "unknown-tool" || d.Error.Kind != "unknown_tool" || !strings.Contains(d.Error.Message, "read_file, write_file") {
		t.Fatalf("decision %+v error %+v", d.Decision, d.Error)
	}
}

func TestOnTransitionSeesEveryStep(t *testing.T) {
	f := newFixture(t, 0, text("hi"))
	var seen []Edge
	f.engine.cfg.OnTransition = func(tr Transition) { seen = append(seen, tr.Edge) }
	edges, _ := f.run(t, "x")
	if !slices.Equal(seen, edges) {
		t.Fatalf("observer saw %v, steps returned %v", seen, edges)
	}
}

func TestEmptyFinalAnswerSaysSo(t *testing.T) {
	r := reply{resp: &providers.Response{FinishReason: "SAFETY"}}
	f := newFixture(t, 0, r)
	f.run(t, "x")
	if got := f.outputs[0].Text; !strings.Contains(got, "SAFETY") {
		t.Fatalf("output = %q", got)
	}
}

func TestHumanTraceNamesEveryTransition(t *testing.T) {
	f := newFixture(t, 0, calls(call("write_file", `{"path":"a"}`)), text("done"))
	f.person.approvals = []Approval{AllowOnce}
	_, ts := f.run(t, "go")
	for _, tr := range ts {
		line := Human(tr)
		if !strings.Contains(line, string(tr.Edge)) || !strings.HasPrefix(line, "[") {
			t.Errorf("line %q lacks its edge or tag", line)
		}
	}
	var b strings.Builder
	if err := WriteJSON(&b, ts[2]); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"seq", "time", "from", "to", "edge", "iteration", "llm"} {
		if _, ok := got[k]; !ok {
			t.Errorf("trace line lacks %q: %s", k, b.String())
		}
	}
	if got["edge"] != "tool_call" {
		t.Errorf("edge = %v", got["edge"])
	}
}

func TestServerDurationIsKeptBesideLatency(t *testing.T) {
	r := text("hi")
	r.resp.Duration = 1500 * time.Millisecond
	f := newFixture(t, 0, r)
	_, ts := f.run(t, "x")
	if got := ts[2].LLM.ServerMS; got != 1500 {
		t.Fatalf("server_ms = %d, want 1500", got)
	}
	if !strings.Contains(Human(ts[2]), "(server: 1500 ms)") {
		t.Fatalf("human line lacks the server time: %s", Human(ts[2]))
	}
	if !strings.Contains(Human(ts[1]), "(1 message + tool definitions)") {
		t.Fatalf("context line: %s", Human(ts[1]))
	}
}

func TestSecretsAreMaskedInEverythingRecorded(t *testing.T) {
	const key = "AIzaSy-secret-key-777"
	f := newFixture(t, 0,
		calls(call("read_file", `{"path":"`+key+`"}`)),
		reply{resp: &providers.Response{Message: history.Message{Text: "your key is " + key, Thought: "I saw " + key}}})
	f.engine.mask = providers.NewMasker(key, "ab")
	f.read.result = tools.Result{Content: "GEMINI_API_KEY=" + key}
	_, ts := f.run(t, "show me the environment; my key is "+key)
	if ts[0].Event == nil || strings.Contains(ts[0].Event.Data, key) || !strings.Contains(Human(ts[0]), "my key is [REDACTED]") {
		t.Fatalf("the prompt is not masked in the trace: %s", Human(ts[0]))
	}
	var all strings.Builder
	for _, tr := range ts {
		WriteJSON(&all, tr)
		all.WriteString(Human(tr))
		for _, m := range tr.Added {
			b, _ := json.Marshal(m)
			all.Write(b)
		}
	}
	for _, req := range f.provider.seen {
		b, _ := json.Marshal(req.Messages[1:]) // the first is the request as typed: the model gets it whole
		all.Write(b)
	}
	if strings.Contains(all.String(), key) {
		t.Fatal("the secret reached a transition, the history or the next request")
	}
	if !strings.Contains(all.String(), "GEMINI_API_KEY=[REDACTED]") {
		t.Fatal("the tool result was not masked where the key stood")
	}
	if got := providers.NewMasker("ab", "").Mask("ab cab"); got != "ab cab" {
		t.Fatalf("values shorter than four characters must not be masked: %q", got)
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nwith\ttabs", "plain text\nwith\ttabs"},
		{"title\x1b]0;PWNED\x07end", `title\x1b]0;PWNED\x07end`},
		{"bell\x07 del\x7f c1\u009b", `bell\x07 del\x7f c1\u009b`},
		{"bad \xff byte", `bad \xff byte`},
		{"日本語", "日本語"},
		{"file‮txt.exe", `file\u202etxt.exe`},
		{"⁦isolate⁩", `\u2066isolate\u2069`},
	}
	for _, tc := range tests {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	f := newFixture(t, 0, calls(call("read_file", `{"path":"a"}`)), text("done"))
	f.read.result = tools.Result{Content: "x\x1b]52;c;ZWNobw==\x07y"}
	_, ts := f.run(t, "read")
	for _, tr := range ts {
		if strings.ContainsRune(Human(tr), 0x1b) {
			t.Fatalf("an escape reached the human trace: %q", Human(tr))
		}
	}
}

func TestProviderReturningNothingIsAFailureNotAPanic(t *testing.T) {
	f := newFixture(t, 0, reply{})
	edges, ts := f.run(t, "x")
	if edges[2] != EdgeLLMFailure || !strings.Contains(ts[2].Error.Message, "neither a response nor an error") {
		t.Fatalf("edges %v, error %+v", edges, ts[2].Error)
	}
}

// blockingTool runs until its context ends, like a long command the person
// interrupts with Ctrl-C.
type blockingTool struct {
	started chan struct{}
	runs    int
}

func (b *blockingTool) Spec() history.ToolSpec {
	return history.ToolSpec{Name: "execute_command", Description: "blocks", Params: []history.ParamSpec{{Name: "command", Type: history.TypeString}},
		Attrs: history.Attributes{ChangesFiles: true, ReachesOut: true}}
}
func (b *blockingTool) Run(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	b.runs++
	close(b.started)
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}

// approveAll is --yes: it approves whatever it is asked, ignoring ctx.
type approveAll struct{ asked int }

func (a *approveAll) Confirm(context.Context, ConfirmRequest) (Approval, error) {
	a.asked++
	return AllowOnce, nil
}
func (a *approveAll) Ask(context.Context, tools.Question) (string, error) { return "yes", nil }

// TestInterruptStopsTheRestOfTheBatch is issue 12 item 5: after the first
// call of a four-call turn is interrupted, nothing more is approved or run,
// whether the next Steps get the cancelled context (headless, a signal) or
// a fresh one (the TUI's next step); every call still gets a result.
func TestInterruptStopsTheRestOfTheBatch(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		block := &blockingTool{started: make(chan struct{})}
		write := &fakeTool{name: "write_file", result: tools.Result{Content: "wrote"}}
		reg, err := tools.NewRegistry(block, write)
		if err != nil {
			t.Fatal(err)
		}
		person := &approveAll{}
		prov := &scriptedProvider{replies: []reply{
			calls(call("execute_command", `{"command":"sleep 100"}`), call("write_file", `{"path":"a"}`),
				call("write_file", `{"path":"b"}`), call("execute_command", `{"command":"true"}`)),
			text("ok"),
		}}
		policy, err := ParsePolicy(nil) // no rules: every call asks
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Provider: prov, Tools: reg, Person: person, Workspace: sandbox{}, Policy: policy})
		if err != nil {
			t.Fatal(err)
		}
		e.Submit(Event{Source: "cli", Type: "user_input", Data: "go"})
		ctx, cancel := context.WithCancel(context.Background())
		for e.State() != ExecutingTool {
			if _, err := e.Step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		go func() { <-block.started; cancel() }()
		tr, err := e.Step(ctx)
		if err != nil || tr.Error == nil || tr.Error.Kind != "interrupted" {
			t.Fatalf("the interrupted call: %+v, %v", tr, err)
		}
		if fresh {
			ctx = context.Background()
		}
		var added []history.Message
		for e.State() != AwaitingLLMResponse && e.State() != WaitingForEvent {
			tr, err := e.Step(ctx)
			if err != nil {
				t.Fatalf("fresh=%v: %v in %s", fresh, err, e.State())
			}
			added = append(added, tr.Added...)
		}
		if person.asked != 1 || write.runs != 0 || block.runs != 1 {
			t.Fatalf("fresh=%v: after the interrupt %d approvals were asked (want 1), write_file ran %d times, the command %d (want 0, 1)", fresh, person.asked, write.runs, block.runs)
		}
		if len(added) != 4 {
			t.Fatalf("fresh=%v: want a result for each of the 4 calls, got %d", fresh, len(added))
		}
		for _, m := range added[1:] {
			if !m.Result.IsError || !strings.Contains(m.Result.Content, "Not run") {
				t.Fatalf("fresh=%v: a later call's result: %+v", fresh, m.Result)
			}
		}
	}
}

func TestRetryAfterAtTheCapSaysAtLeast(t *testing.T) {
	rl := &providers.Error{Kind: providers.KindRateLimit, Status: 429, Message: "quota", RetryAfter: providers.MaxRetryAfter}
	f := newFixture(t, 0, reply{err: rl})
	edges, ts := f.run(t, "hi")
	if edges[2] != EdgeLLMFailure || !strings.Contains(ts[2].Error.Message, "asked to wait at least 24h0m0s, longer than the 1m0s glassbox will wait") {
		t.Fatalf("edges %v, error %+v", edges, ts[2].Error)
	}
}
