package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// DefaultMaxIterations is how many provider calls one event may take before
// the loop halts.
const DefaultMaxIterations = 10

// DefaultSystemPrompt is what the model is told about its job.
const DefaultSystemPrompt = `You are a coding agent working inside a sandboxed project folder (the workspace).
Use the tools to look at and change files and to run commands; every path is relative to the workspace.
Work step by step: call a tool, read its result, then decide the next step.
If a tool result is an error or a denial, read it carefully and adapt instead of repeating the same call.
When the task is done, answer the person in plain language and make no further tool calls.`

// unknownToolRule names the decision for a call to a tool that does not
// exist: the security layer refuses to dispatch it.
const unknownToolRule = "unknown-tool"

// ErrIdle is returned by Step when the engine waits for an event and the
// queue is empty: there is no transition to take.
var ErrIdle = errors.New("idle: no event to process")

// ErrBusy is returned by Step when another Step is still running.
var ErrBusy = errors.New("a step is already running")

// Config wires an Engine. Provider, Tools and Person are required.
type Config struct {
	Provider Provider
	// Backend says how the provider is reached: "live", "offline" or
	// "replay". It appears in the trace.
	Backend string
	// BackendReason says why that backend was chosen ("no GEMINI_API_KEY is
	// set", "--offline"); the trace carries it with every provider call.
	BackendReason string
	Tools         *tools.Registry
	Workspace     PathChecker
	Policy        *Policy // nil: DefaultPolicy()
	Person        Person
	// MaxIterations is the number of provider calls per event; 0 means
	// DefaultMaxIterations.
	MaxIterations int
	System        string // "" means DefaultSystemPrompt
	Retry         RetryPolicy
	// Now and Sleep are the engine's clock; tests replace them.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, if set, hears about each retry as it happens (on the
	// goroutine running Step), before the engine waits.
	OnRetry func(Retry)
	// OnNotice, if set, hears everything a step tells while it runs:
	// retries, the request going out, the response's chunks (see Notice).
	OnNotice func(Notice)
	// OnTransition, if set, receives every transition record at the end of
	// its Step (on the goroutine running Step): --trace uses it.
	OnTransition func(Transition)
	// Run names this run in compare mode; every transition record carries
	// it. Empty for a single run.
	Run string
	// Dialect is the provider's dialect: a fork onto another names what
	// it leaves.
	Dialect Dialect
	// OnFork, if set, receives the record of each fork (the trace's line
	// for it).
	OnFork func(ForkRecord)
	// Secrets are literal values (the API keys) masked in everything the
	// engine records. The wire capture masks the payloads; this covers the
	// rest, e.g. a command that prints the key from /proc/$PPID/environ, or a
	// model that repeats it.
	Secrets []string
}

// RetryPolicy bounds the retries of transient provider errors (429, 5xx,
// connection reset). The wait doubles from Initial up to Max unless the
// service names a delay (Retry-After, RetryInfo), which is honoured as long
// as it is no longer than MaxWait.
type RetryPolicy struct {
	MaxRetries int           // 0 means 3; negative means none
	Initial    time.Duration // 0 means 1s
	Max        time.Duration // 0 means 8s
	MaxWait    time.Duration // 0 means 60s
}

func (r RetryPolicy) withDefaults() RetryPolicy {
	if r.MaxRetries == 0 {
		r.MaxRetries = 3
	}
	if r.MaxRetries < 0 {
		r.MaxRetries = 0
	}
	if r.Initial == 0 {
		r.Initial = time.Second
	}
	if r.Max == 0 {
		r.Max = 8 * time.Second
	}
	if r.MaxWait == 0 {
		r.MaxWait = 60 * time.Second
	}
	return r
}

// Engine is the agent loop. Only Step changes its state; Submit and Attach
// may be called from any goroutine.
type Engine struct {
	cfg   Config
	specs []history.ToolSpec
	mask  *providers.Masker
	// requests masks the request bodies of the exchanges, each the last
	// one and a few more messages: what they share is searched once.
	requests *providers.Conversation

	mu        sync.Mutex // guards queue, submitted, outputs and dialect
	queue     []Event
	submitted []Event // every event queued, in order (the queue is its tail)
	outputs   map[string]OutputFunc

	stepping sync.Mutex // held for the duration of one Step

	state     State
	seq       int
	event     *Event // the event being processed
	iteration int
	log       history.Log
	request   providers.Request // assembled context, sent in AWAITING_LLM_RESPONSE
	pending   []PendingCall     // this iteration's tool calls
	current   int               // index into pending
	toolOut   *history.ToolResult
	feedback  string // RECORDING_ERROR text for a malformed response
	failure   *ErrorRecord
	final     string
	// fault is the kind of the unusable reply fed back last, until a usable
	// one comes: the same kind again halts (see read). lastStop is the
	// stop reason of the event's last reply, for the HALTED message.
	fault    string
	lastStop string
	taken    int // events taken from the queue so far
	// refused lists the tool calls of this event that were denied, for
	// its Output (Output.Refused).
	refused []string

	// checkpoints[k] is the engine as it was after step k (0: at the
	// start): time travel reads them, Fork returns to one.
	checkpoints []Checkpoint
	// journal keeps the session on disk (nil: no session).
	journal *Journal
	// recovered is set on resume after a crash in the middle of a step: the
	// model call is sent again (resent) or the tool is recorded as
	// interrupted without running it again.
	recovered State
	// edited marks the assembled context as replaced by a what-if edit;
	// edit says what changed from the context as assembled (editBase,
	// editSystem), for the transition that sends it.
	edited     bool
	edit       *ContextEdit
	editBase   []history.Message
	editSystem string
	// dialect is the dialect of the provider in use (guarded by mu).
	dialect Dialect
	// notes counts the RoleNote messages in the history (see sendable).
	notes int
	// answer is the person's answer to the pending confirmation, found in
	// the session after a crash: it is not asked again.
	answer *Approval
	// interrupted is set when a tool was cancelled while it ran: the rest
	// of its batch is recorded as not run, never approved or run.
	interrupted bool
}

// New builds an engine in WAITING_FOR_EVENT.
func New(cfg Config) (*Engine, error) {
	if cfg.Provider == nil || cfg.Tools == nil || cfg.Person == nil {
		return nil, errors.New("loop.New: Provider, Tools and Person are required")
	}
	if cfg.Policy == nil {
		cfg.Policy = DefaultPolicy()
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	if cfg.System == "" {
		cfg.System = DefaultSystemPrompt
	}
	if cfg.Backend == "" {
		cfg.Backend = "live"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	cfg.Retry = cfg.Retry.withDefaults()
	mask := providers.NewMasker(cfg.Secrets...)
	e := &Engine{
		cfg:      cfg,
		mask:     mask,
		requests: mask.Conversation(),
		specs:    cfg.Tools.Specs(),
		outputs:  map[string]OutputFunc{},
		state:    WaitingForEvent,
		dialect:  cfg.Dialect,
	}
	e.checkpoints = []Checkpoint{e.checkpoint()}
	e.SetOnNotice(cfg.OnNotice)
	return e, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Submit queues an event. It is safe to call while a Step runs. With a
// session, the event is on disk before Submit returns: what a person typed
// survives a crash even before the engine takes it.
func (e *Engine) Submit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queue = append(e.queue, ev)
	e.submitted = append(e.submitted, ev)
	if e.journal != nil {
		e.journal.submitted(len(e.submitted), ev)
	}
}

// Attach sets the output handler for an event source. The answer to an
// event, or the report of why it halted, goes to its source's handler.
func (e *Engine) Attach(source string, fn OutputFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outputs[source] = fn
}

// QueueLen is the number of events waiting.
func (e *Engine) QueueLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

// State is the current state. Read it only between Steps.
func (e *Engine) State() State { return e.state }

// Idle reports whether the engine waits for an event with none queued.
func (e *Engine) Idle() bool { return e.state == WaitingForEvent && e.QueueLen() == 0 }

// Event is the event the engine works on, or worked on last (nil before
// the first). Read it between Steps, or during one from the goroutine
// running it (a Person asked to confirm, a tool): the MCP bus asks the
// caller of the event in progress.
func (e *Engine) Event() *Event {
	if e.event == nil {
		return nil
	}
	ev := *e.event
	return &ev
}

// Iteration is the number of provider calls made for the current event.
func (e *Engine) Iteration() int { return e.iteration }

// MaxIterations is the configured iteration limit.
func (e *Engine) MaxIterations() int { return e.cfg.MaxIterations }

// History returns the conversation so far. Read it only between Steps.
func (e *Engine) History() []history.Message { return e.log.Messages() }

// Provider returns the configured provider.
func (e *Engine) Provider() Provider { return e.cfg.Provider }

// Backend returns how the provider is reached ("live", "offline", "replay").
func (e *Engine) Backend() string { return e.cfg.Backend }

// Tools returns the tool definitions the model sees.
func (e *Engine) Tools() []history.ToolSpec { return e.specs }

// Step performs exactly one transition and returns its record. It returns
// ErrIdle when there is nothing to do, ErrBusy when called concurrently, and
// ctx's error when the person cancelled an approval wait or an in-flight
// provider call: then no transition was taken and the next Step tries again.
// A tool cancelled while it runs is different: it may have changed the
// workspace already, so it is recorded (tool_failure, kind "interrupted").
func (e *Engine) Step(ctx context.Context) (Transition, error) {
	if !e.stepping.TryLock() {
		return Transition{}, ErrBusy
	}
	defer e.stepping.Unlock()

	from := e.state
	t := Transition{From: from, Iteration: e.iteration}
	if e.journal != nil {
		e.journal.begin(e)
	}
	edge, err := e.advance(ctx, &t)
	if err != nil {
		return Transition{}, err
	}
	to, ok := Target(from, edge)
	if !ok {
		// Unreachable by construction; TestEveryEdge walks the table.
		return Transition{}, fmt.Errorf("engine bug: no edge %q from %s", edge, from)
	}
	e.state = to
	e.seq++
	t.Seq, t.Run = e.seq, e.cfg.Run
	t.Time = e.cfg.Now()
	t.To = to
	t.Edge = edge
	t.Iteration = e.iteration
	t.HistoryLen, t.Notes = e.log.Len(), e.notes
	t.Pending = append([]PendingCall(nil), e.pending...)
	t.QueueLen = e.QueueLen()
	// The MCP frames that passed since the last step (a tool call's, a
	// server's notifications, the handshake before the first step).
	t.MCP = e.takeFrames()
	cp := e.checkpoint()
	e.checkpoints = append(e.checkpoints, cp)
	if e.journal != nil {
		e.journal.commit(e, &t, cp)
	}
	if e.cfg.OnTransition != nil {
		e.cfg.OnTransition(t)
	}
	return t, nil
}

// SetOnRetry replaces Config.OnRetry. Call it before stepping, never while a
// Step runs: the TUI uses it to show a retry while the engine waits.
func (e *Engine) SetOnRetry(fn func(Retry)) { e.cfg.OnRetry = fn }

// advance runs the work of the current state and names the edge it takes.
// It mirrors the seed's loop: THINK in AWAITING_LLM_RESPONSE, ACT in
// EXECUTING_TOOL, OBSERVE in RECORDING_RESULT / RECORDING_ERROR.
func (e *Engine) advance(ctx context.Context, t *Transition) (Edge, error) {
	switch e.state {
	case WaitingForEvent:
		return e.takeEvent(t)
	case AssemblingContext:
		return e.assemble(t), nil
	case AwaitingLLMResponse:
		return e.think(ctx, t)
	case CheckingPolicy:
		return e.checkPolicy(t), nil
	case AwaitingUserConfirmation:
		return e.confirm(ctx, t)
	case ExecutingTool:
		return e.act(ctx, t)
	case RecordingResult, RecordingError:
		return e.observe(t), nil
	case DeliveringOutput:
		return e.deliver(t), nil
	case Halted:
		return e.report(t), nil
	}
	return "", fmt.Errorf("engine bug: unknown state %q", e.state)
}

func (e *Engine) takeEvent(t *Transition) (Edge, error) {
	e.mu.Lock()
	if len(e.queue) == 0 {
		e.mu.Unlock()
		return "", ErrIdle
	}
	ev := e.queue[0]
	e.queue = e.queue[1:]
	e.taken++
	e.mu.Unlock()

	e.event = &ev
	e.iteration = 0
	e.pending = nil
	e.failure = nil
	e.fault, e.lastStop = "", ""
	e.refused = nil
	msg := history.Message{Role: history.RoleUser, Text: ev.Data}
	e.log.Append(msg)
	// The record masks a key the person pasted, as the cassette does; the
	// model still gets the request as typed.
	rec := ev
	rec.Data = e.mask.Mask(ev.Data)
	t.Event = &rec
	msg.Text = rec.Data
	t.Added = []history.Message{msg}
	return EdgeNewEvent, nil
}

func (e *Engine) assemble(t *Transition) Edge {
	if e.iteration >= e.cfg.MaxIterations {
		e.failure = &ErrorRecord{Kind: "max_iterations", Message: fmt.Sprintf(
			"stopped after %s without a final answer (the iteration limit; raise it with --max-iterations)", Count(e.cfg.MaxIterations, "model call"))}
		e.failure.Message = e.withLastStop(e.failure.Message)
		t.Error = e.failure
		return EdgeMaxIterations
	}
	e.iteration++
	e.pending = nil
	e.current = 0
	e.interrupted = false
	e.request = providers.Request{
		System:   e.cfg.System,
		Messages: e.sendable(),
		Tools:    e.specs,
	}
	return EdgeContextReady
}

// think is one provider call, with retries for transient failures.
func (e *Engine) think(ctx context.Context, t *Transition) (Edge, error) {
	rec := &LLMRecord{Provider: e.cfg.Provider.Name(), Backend: e.cfg.Backend, BackendReason: e.cfg.BackendReason, Model: e.cfg.Provider.Model(),
		Resent: e.recovered == AwaitingLLMResponse}
	t.LLM = rec
	t.Edited = e.edited
	if e.edit != nil && (e.edit.System || len(e.edit.Messages) > 0) {
		t.Edit = e.edit
	}
	var exchanges []providers.Exchange
	first := time.Now()
	ctx = e.watchWire(ctx)
	for attempt := 0; ; attempt++ {
		start := time.Now()
		resp, err := e.cfg.Provider.Call(ctx, e.request)
		rec.LatencyMS = time.Since(start).Milliseconds()
		rec.TotalMS = time.Since(first).Milliseconds()
		exchanges = e.recordExchanges(t, rec, resp, exchanges)
		if err == nil && resp == nil {
			err = &providers.Error{Kind: providers.KindOther, Message: "the provider returned neither a response nor an error (a bug in the provider)"}
		}
		if err == nil {
			e.recovered = ""
			e.clearEdit()
			return e.read(resp, t), nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err() // cancelled by the person: stay, re-send on the next Step
		}
		pe := providers.AsError(err)
		if pe.Status != 0 {
			rec.HTTPStatus = pe.Status
		}
		wait, retry, why := e.retryWait(attempt, pe)
		if !retry {
			e.gaveUp(t, pe, why)
			return EdgeLLMFailure, nil
		}
		if err := e.retryAfter(ctx, rec, attempt, pe, wait); err != nil {
			return "", err
		}
	}
}

// recordExchanges adds the HTTP exchanges of one attempt (resp's, when
// there is a response) to the step's, with their replay divergences and
// the last status, every one masked over what the capture masked: every
// secret the run knows, a streamed body searched as the whole it adds up
// to.
func (e *Engine) recordExchanges(t *Transition, rec *LLMRecord, resp *providers.Response, exchanges []providers.Exchange) []providers.Exchange {
	if resp != nil {
		exchanges = append(exchanges, resp.Exchanges...)
		for _, x := range resp.Exchanges {
			if x.Divergence != "" {
				rec.Divergences = append(rec.Divergences, e.mask.Mask(x.Divergence))
			}
		}
		if n := len(resp.Exchanges); n > 0 {
			rec.HTTPStatus = resp.Exchanges[n-1].Status
		}
	}
	t.Exchanges = exchanges
	for i := range t.Exchanges {
		t.Exchanges[i] = e.mask.ExchangeIn(t.Exchanges[i], e.requests)
	}
	return exchanges
}

// gaveUp records a model call that will not be tried again: the
// provider's error (why it is not retried, how many retries were made),
// as a message and as a sentence for a front end in another language.
func (e *Engine) gaveUp(t *Transition, pe *providers.Error, why error) {
	// said is msg as a sentence (nil when the provider's message is none).
	msg, said := e.mask.Mask(pe.Error()), e.maskSaid(pe)
	if why != nil {
		msg += " " + why.Error()
		if said != nil {
			said = sentence.Errorf("%w %w", said, why)
		}
	}
	if n := len(t.LLM.Retries); n > 0 {
		msg = fmt.Sprintf("%s (gave up after %s)", msg, Count(n, "retry"))
		retries := sentence.Errorf("%d retries", n)
		if n == 1 {
			retries = sentence.Errorf("%d retry", n)
		}
		if said != nil {
			said = sentence.Errorf("%w (gave up after %w)", said, retries)
		}
	}
	msg = e.withLastStop(msg)
	e.failure = &ErrorRecord{Kind: "llm_failure", Message: msg, Said: e.withLastStopSaid(said)}
	t.Error = e.failure
	e.recovered = ""
	e.clearEdit()
}

// retryAfter records a retry of the model call and waits before it.
func (e *Engine) retryAfter(ctx context.Context, rec *LLMRecord, attempt int, pe *providers.Error, wait time.Duration) error {
	r := Retry{Attempt: attempt + 1, Status: pe.Status, Reason: e.mask.Mask(pe.Error()), WaitMS: wait.Milliseconds(), LatencyMS: rec.LatencyMS}
	rec.Retries = append(rec.Retries, r)
	if e.cfg.OnRetry != nil {
		e.cfg.OnRetry(r)
	}
	if e.cfg.OnNotice != nil {
		e.cfg.OnNotice(r)
	}
	return e.cfg.Sleep(ctx, wait)
}

// maskSaid is err's sentence with its values masked as Message is (nil
// when err is not a sentence): a front end may say it in another language.
func (e *Engine) maskSaid(err error) error {
	s, ok := err.(sentence.Said)
	if !ok {
		return nil
	}
	format, args := s.Sentence()
	if format == "" {
		return nil
	}
	masked := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case error:
			if m := e.maskSaid(v); m != nil {
				masked[i] = m
			} else {
				masked[i] = e.mask.Mask(v.Error())
			}
		case string:
			masked[i] = e.mask.Mask(v)
		case fmt.Stringer:
			masked[i] = e.mask.Mask(v.String())
		default:
			masked[i] = a // numbers: nothing to mask
		}
	}
	return sentence.Errorf(format, masked...)
}

// retryWait decides whether a failed call is retried and after how long;
// when a transient failure is not retried, why says so.
func (e *Engine) retryWait(attempt int, pe *providers.Error) (wait time.Duration, retry bool, why error) {
	p := e.cfg.Retry
	if !pe.Transient() || attempt >= p.MaxRetries {
		return 0, false, nil
	}
	if pe.RetryAfter > 0 {
		if pe.RetryAfter > p.MaxWait {
			if pe.RetryAfter >= providers.MaxRetryAfter {
				// read as the cap: it may have named far more
				return 0, false, sentence.Errorf("(the service asked to wait at least %s, longer than the %s glassbox will wait)", pe.RetryAfter, p.MaxWait)
			}
			return 0, false, sentence.Errorf("(the service asked to wait %s, longer than the %s glassbox will wait)", pe.RetryAfter, p.MaxWait)
		}
		return pe.RetryAfter, true, nil
	}
	wait = p.Initial << attempt
	if wait > p.Max || wait <= 0 {
		wait = p.Max
	}
	return wait, true, nil
}

// read turns a provider response into the next edge.
func (e *Engine) read(resp *providers.Response, t *Transition) Edge {
	msg, parse := e.masked(resp)
	msg.Role = history.RoleAssistant
	t.Parse = parse
	rec := t.LLM
	rec.StopReason = string(resp.StopReason)
	rec.FinishReason = resp.FinishReason
	rec.Text = msg.Text
	rec.Thought = msg.Thought
	rec.ToolCalls = msg.ToolCalls
	rec.Usage = resp.Usage
	rec.ServerMS = resp.Duration.Milliseconds()
	e.log.Append(msg)
	t.Added = []history.Message{msg}

	if resp.Malformed != "" {
		rec.StopReason = ""
		if resp.StopReason == providers.StopMaxTokens || resp.StopReason == providers.StopIncomplete {
			rec.StopReason = string(resp.StopReason) // why the reply could not be used
		}
		e.lastStop = stopWords(string(resp.StopReason), resp.FinishReason)
		fault, words := faultOf(resp)
		if fault == e.fault {
			// The same failure twice in a row: feeding it back once more
			// would only repeat it, up to the iteration limit.
			e.fault = ""
			e.failure = &ErrorRecord{Kind: KindRepeatedFailure, Message: fmt.Sprintf(
				"2 replies in a row were %s, so the loop stopped feeding the failure back", words)}
			e.failure.Message = e.withLastStop(e.failure.Message)
			t.Error = e.failure
			return EdgeLLMFailure
		}
		e.fault = fault
		e.feedback = e.mask.Mask(resp.Malformed)
		t.Error = &ErrorRecord{Kind: "malformed_response", Message: e.feedback}
		return EdgeMalformedResponse
	}
	e.fault = ""
	if len(msg.ToolCalls) > 0 {
		rec.StopReason = string(providers.StopToolUse)
		e.lastStop = stopWords(rec.StopReason, resp.FinishReason)
		e.pending = make([]PendingCall, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			e.pending[i] = PendingCall{Call: c, Status: CallPending}
		}
		e.current = 0
		return EdgeToolCall
	}
	rec.StopReason = string(providers.StopEndTurn)
	e.lastStop = stopWords(rec.StopReason, resp.FinishReason)
	e.final = msg.Text
	if strings.TrimSpace(e.final) == "" {
		e.final = fmt.Sprintf("(the model returned no text; finish reason %s)", orDash(resp.FinishReason))
	}
	if resp.StopReason == providers.StopMaxTokens {
		rec.StopReason = string(providers.StopMaxTokens)
		e.final += fmt.Sprintf("\n\n[cut off at the token limit: finish reason %s]", orDash(resp.FinishReason))
	}
	return EdgeFinalAnswer
}

// KindRepeatedFailure is the error kind of a HALTED reached because the same
// unusable reply came back twice in a row.
const KindRepeatedFailure = "repeated_failure"

// faultOf is the kind of an unusable reply, for comparing two of them, and
// the words that name it. A provider names it (Response.Fault); otherwise
// the stop and finish reasons stand for it.
func faultOf(resp *providers.Response) (key, words string) {
	stop := string(resp.StopReason)
	if resp.Fault != "" {
		return stop + "\x00" + resp.Fault, resp.Fault
	}
	return stop + "\x00" + resp.FinishReason, fmt.Sprintf("unusable the same way (stop reason %s, finish reason %s)", orDash(stop), orDash(resp.FinishReason))
}

// stopWords is a reply's stop reason with the provider's own finish reason.
func stopWords(stop, finish string) string {
	return fmt.Sprintf("%s (finish reason %s)", orDash(stop), orDash(finish))
}

// withLastStopSaid is withLastStop for the sentence of a message (nil
// stays nil).
func (e *Engine) withLastStopSaid(said error) error {
	if said == nil {
		return nil
	}
	if e.lastStop == "" {
		return sentence.Errorf("%w; no reply came back for this request", said)
	}
	return sentence.Errorf("%w; the last reply's stop reason: %s", said, e.lastStop)
}

// withLastStop ends a HALTED message with the stop reason of the last
// reply of this request, so the report always says how the model last
// stopped.
func (e *Engine) withLastStop(msg string) string {
	msg = strings.TrimSuffix(msg, ".")
	if e.lastStop == "" {
		return msg + "; no reply came back for this request"
	}
	return msg + "; the last reply's stop reason: " + e.lastStop
}

// masked returns the reply's message and parse step with every secret value
// masked, leaving the provider's response untouched.
func (e *Engine) masked(resp *providers.Response) (history.Message, *providers.ParseStep) {
	msg := resp.Message
	msg.Text, msg.Thought = e.mask.Mask(msg.Text), e.mask.Mask(msg.Thought)
	if msg.Native != nil {
		// The reply as the provider wrote it is kept and sent back to the
		// model: a key in it (plain, \u-escaped, in a call's arguments)
		// is masked there too.
		native := *msg.Native
		native.Data = json.RawMessage(e.mask.MaskJSON(native.Data))
		msg.Native = &native
	}
	if len(msg.ToolCalls) > 0 {
		calls := make([]history.ToolCall, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			c.Args = json.RawMessage(e.mask.MaskJSON(c.Args))
			calls[i] = c
		}
		msg.ToolCalls = calls
	}
	var parse *providers.ParseStep
	if p := resp.Parse; p != nil {
		masked := *p
		masked.Raw, masked.Extracted = e.mask.Mask(p.Raw), e.mask.Mask(p.Extracted)
		masked.Error, masked.Outcome = e.mask.Mask(p.Error), e.mask.Mask(p.Outcome)
		parse = &masked
	}
	return msg, parse
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (e *Engine) call() *PendingCall { return &e.pending[e.current] }

func (e *Engine) checkPolicy(t *Transition) Edge {
	pc := e.call()
	call := pc.Call
	t.Tool = &call
	d := e.decide(call)
	pc.Decision = &d
	t.Decision = &d
	switch d.Verdict {
	case Allow:
		return EdgeAllow
	case DenyVerdict:
		e.denied(t, d)
		return EdgeDeny
	default:
		pc.Status = CallWaiting
		return EdgeConfirmRequired
	}
}

// decide is the security layer's decision on call.
func (e *Engine) decide(call history.ToolCall) Decision {
	tool, known := e.cfg.Tools.Get(call.Name)
	if !known {
		return Decision{Verdict: DenyVerdict, Rule: unknownToolRule, Reason: fmt.Sprintf(
			"there is no tool named %q; the tools are: %s", call.Name, strings.Join(e.cfg.Tools.Names(), ", "))}
	}
	spec := tool.Spec()
	return e.cfg.Policy.Check(call, &spec, e.cfg.Workspace)
}

// denied records the policy's denial of the current call for the model.
func (e *Engine) denied(t *Transition, d Decision) {
	pc := e.call()
	pc.Status = CallDenied
	e.toolOut = &history.ToolResult{CallID: pc.Call.ID, Name: pc.Call.Name, IsError: true,
		Content: fmt.Sprintf("DENIED by the security policy (rule %s): %s. Do not retry this call; choose another way or explain the limitation.", d.Rule, d.Reason)}
	e.refused = append(e.refused, e.mask.Mask(fmt.Sprintf("%s denied by rule %s: %s", pc.Call.Name, d.Rule, d.Reason)))
	kind := "policy_denied"
	if d.Rule == unknownToolRule {
		kind = "unknown_tool"
	}
	t.Error = &ErrorRecord{Kind: kind, Message: e.toolOut.Content}
}

func (e *Engine) confirm(ctx context.Context, t *Transition) (Edge, error) {
	pc := e.call()
	call := pc.Call
	t.Tool = &call
	// The call is decided again before anyone is asked: a decision read back
	// from a session file is not taken on trust. A denial stays a denial,
	// and a confirmation only a person may answer stays one, whatever the
	// file says.
	if d := e.decide(call); d.Verdict == DenyVerdict {
		t.Decision = &d
		pc.Decision = &d
		e.denied(t, d)
		return EdgeUserDenial, nil
	} else if d.Verdict == RequireConfirm || pc.Decision == nil {
		pc.Decision = &d
	}
	if err := ctx.Err(); err != nil {
		return "", err // cancelled before asking: nothing is approved
	}
	approval, err := e.ask(ctx, pc)
	if err != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	if approval == AllowSession && pc.Decision.NeedsPerson {
		approval = AllowOnce // no grant covers what the security layer cannot read
	}
	pc.Approval = &approval
	d := Decision{Verdict: pc.Decision.Verdict, Rule: pc.Decision.Rule, Reason: "person: " + approval.String(), NeedsPerson: pc.Decision.NeedsPerson}
	t.Decision = &d
	if approval == Deny {
		e.personDenied(t, pc, err)
		return EdgeUserDenial, nil
	}
	if approval == AllowSession {
		e.cfg.Policy.Grant(call)
	}
	pc.Status = CallPending
	return EdgeUserApproval, nil
}

// ask asks the person about the pending call pc (with the tool's preview
// of what it would do), or takes the answer saved before a crash. A person
// who cannot answer (EOF) denies; err says why.
func (e *Engine) ask(ctx context.Context, pc *PendingCall) (Approval, error) {
	if e.answer != nil {
		approval := *e.answer // answered before a crash
		e.answer = nil
		return approval, nil
	}
	req := ConfirmRequest{Call: pc.Call, Decision: *pc.Decision}
	if tool, ok := e.cfg.Tools.Get(pc.Call.Name); ok {
		if p, ok := tool.(tools.Previewer); ok {
			req.Preview = p.Preview(pc.Call.Args)
		}
	}
	approval, err := e.cfg.Person.Confirm(ctx, req)
	if err != nil {
		return Deny, err // the person could not answer (e.g. EOF): deny
	}
	if e.journal != nil {
		e.journal.answered(e.seq+1, approval)
	}
	return approval, nil
}

// personDenied records the person's denial of pc (or that no approval
// could be obtained: err) as the call's result, for the model.
func (e *Engine) personDenied(t *Transition, pc *PendingCall, err error) {
	call := pc.Call
	pc.Status = CallDenied
	reason := "The person denied this call."
	if err != nil {
		reason = fmt.Sprintf("No approval could be obtained (%v), so the call was denied.", err)
	}
	e.toolOut = &history.ToolResult{CallID: call.ID, Name: call.Name, IsError: true,
		Content: reason + " Do not run it again unless the person asks; explain or choose another way."}
	t.Error = &ErrorRecord{Kind: "user_denied", Message: reason}
	e.refused = append(e.refused, e.mask.Mask(fmt.Sprintf("%s: %s", call.Name, reason)))
}

// act runs the tool (ACT).
func (e *Engine) act(ctx context.Context, t *Transition) (Edge, error) {
	pc := e.call()
	call := pc.Call
	t.Tool = &call
	tool, _ := e.cfg.Tools.Get(call.Name) // known: CHECKING_POLICY denies unknown tools
	if err := ctx.Err(); err != nil {
		return "", err // cancelled before it started: it does not run
	}
	start := time.Now()
	var res tools.Result
	var err error
	if e.recovered == ExecutingTool && e.mayChangeFiles(call.Name) {
		// glassbox stopped while this tool ran: it may have done its work,
		// or part of it. Running it again could do it twice. (A tool that
		// changes nothing simply runs again.)
		e.recovered = ""
		err = errInterrupted
	} else {
		e.recovered = ""
		res, err = tool.Run(ctx, call.Args)
	}
	dur := time.Since(start).Milliseconds()
	res.Content = e.mask.Mask(res.Content)
	if err != nil {
		kind := "tool_failure"
		if ctx.Err() != nil || errors.Is(err, errInterrupted) {
			kind = "interrupted"
			e.interrupted = true
		}
		res = tools.Result{IsError: true, Content: e.mask.Mask(fmt.Sprintf("%s failed: %v", call.Name, err))}
		t.Error = &ErrorRecord{Kind: kind, Message: res.Content}
	}
	rr := &ResultRecord{Content: res.Content, IsError: res.IsError, DurationMS: dur, Sandbox: res.Sandbox}
	pc.Result = rr
	t.Result = rr
	e.toolOut = &history.ToolResult{CallID: call.ID, Name: call.Name, Content: res.Content, IsError: res.IsError}
	if res.IsError {
		pc.Status = CallFailed
		if t.Error == nil {
			t.Error = &ErrorRecord{Kind: "tool_failure", Message: firstLine(res.Content)}
		}
		return EdgeToolFailure, nil
	}
	pc.Status = CallDone
	return EdgeToolSuccess, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// observe adds the result (or the error) to the context (OBSERVE).
func (e *Engine) observe(t *Transition) Edge {
	var msg history.Message
	if e.toolOut != nil {
		msg = history.Message{Role: history.RoleTool, Result: e.toolOut}
		call := e.call().Call
		t.Tool = &call
		t.Result = &ResultRecord{Content: e.toolOut.Content, IsError: e.toolOut.IsError}
		e.toolOut = nil
		e.current++
	} else {
		// A malformed response: tell the model exactly what was wrong.
		msg = history.Message{Role: history.RoleUser, Text: e.feedback, Feedback: true}
		e.feedback = ""
	}
	e.log.Append(msg)
	t.Added = []history.Message{msg}
	if e.interrupted {
		t.Added = append(t.Added, e.skipRest()...)
	}
	if e.current < len(e.pending) {
		return EdgeNextToolCall
	}
	return EdgeObserved
}

// skipRest records the calls of the batch after an interrupted one as not
// run: a cancelled step approves nothing more and runs nothing more, even
// under --yes. The model still gets a result for every call it made.
func (e *Engine) skipRest() []history.Message {
	var added []history.Message
	for ; e.current < len(e.pending); e.current++ {
		pc := e.call()
		pc.Status = CallSkipped
		msg := history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: pc.Call.ID, Name: pc.Call.Name, IsError: true,
			Content: "Not run: the person interrupted an earlier call of this turn, so the rest of the turn was cancelled."}}
		e.log.Append(msg)
		added = append(added, msg)
	}
	return added
}

func (e *Engine) deliver(t *Transition) Edge {
	out := Output{Target: e.event.Source, Text: e.final, Ref: e.event.Ref, Refused: e.refused}
	t.Output = &out
	e.send(out)
	e.final = ""
	return EdgeDelivered
}

func (e *Engine) report(t *Transition) Edge {
	msg := "halted"
	if e.failure != nil {
		msg = e.failure.Message
		t.Error = e.failure
	}
	out := Output{Target: e.event.Source, Text: msg, Halted: true, Ref: e.event.Ref, Refused: e.refused}
	t.Output = &out
	e.send(out)
	e.failure = nil
	return EdgeReported
}

func (e *Engine) send(out Output) {
	e.mu.Lock()
	fn := e.outputs[out.Target]
	e.mu.Unlock()
	if fn != nil {
		fn(out)
	}
}
