package telemetry

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/providers"
)

// record is a transition as the exporter keeps it: the record without its
// HTTP bodies (only what the spans say of each exchange), so a queue of
// them costs little whatever the payloads weigh.
type record struct {
	loop.Transition
	exchanges []exchange
}

// exchange is what an HTTP span says of one captured exchange.
type exchange struct {
	method, url, err string
	status           int
	ttfb, total      time.Duration
	firstChunk       time.Duration // 0: no chunk arrived
	divergence       string
}

// compact copies what the spans need; it runs on the engine's goroutine, so
// it only copies references and a few numbers per exchange.
func compact(t loop.Transition) record {
	r := record{Transition: t}
	for _, x := range t.Exchanges {
		ex := exchange{method: x.Method, url: x.URL, err: x.Err, status: x.Status, ttfb: x.TTFB, total: x.Total, divergence: x.Divergence}
		if len(x.Chunks) > 0 {
			ex.firstChunk = x.Chunks[0].Offset
		}
		r.exchanges = append(r.exchanges, ex)
	}
	r.Exchanges, r.Pending, r.Parse, r.ExchangesAt = nil, nil, nil, nil
	return r
}

// tracker turns one run's transitions into spans. Only the exporter's
// worker goroutine touches it.
type tracker struct {
	e    *Exporter
	run  Run
	mask *providers.Masker

	agent     trace.Span // the event being handled: invoke_agent
	agentCtx  context.Context
	server    trace.Span // an mcp_bus event's tools/call ask_agent, around agent
	tool      trace.Span // the tool call being handled: execute_tool
	toolCtx   context.Context
	toolKey   string // the tool span's tool name, to match its MCP frames
	callStart time.Time
	halted    string // the error kind that sent the run to HALTED
	last      time.Time
	lastSeq   int
	history   []history.Message // what the model has been sent (content only)
	mcp       map[string]*mcpCall
}

func newTracker(e *Exporter, r Run) *tracker {
	return &tracker{e: e, run: r, mask: e.masker(r.Secrets), mcp: map[string]*mcpCall{}}
}

// take makes the spans one transition ends or starts.
func (tr *tracker) take(t record) {
	if t.Seq <= tr.lastSeq {
		tr.forked(t.Time)
	}
	tr.lastSeq = t.Seq
	start := tr.last
	if start.IsZero() || start.After(t.Time) {
		start = t.Time
	}
	tr.last = t.Time
	tr.frames(t, start)
	switch {
	case t.Edge == loop.EdgeNewEvent:
		tr.startAgent(t)
	case t.Edge == loop.EdgeContextReady:
		tr.callStart = t.Time
	case t.LLM != nil:
		tr.inference(t)
	case t.Edge == loop.EdgeMaxIterations:
		tr.halted = string(loop.EdgeMaxIterations)
	case t.Decision != nil:
		tr.decided(t, start)
	case t.Edge == loop.EdgeUserApproval, t.Edge == loop.EdgeUserDenial:
		tr.answered(t)
	case t.Edge == loop.EdgeToolSuccess, t.Edge == loop.EdgeToolFailure:
		tr.ran(t)
	case t.Edge == loop.EdgeDelivered:
		tr.endAgent(t, "")
	case t.Edge == loop.EdgeReported:
		tr.endAgent(t, tr.halted)
	}
	tr.remember(t)
}

// remember keeps what the model will be sent next (content only).
func (tr *tracker) remember(t record) {
	if !tr.e.settings.Content {
		return
	}
	added := history.WithoutNotes(t.Added)
	if want := t.HistoryLen - t.Notes - len(added); want >= 0 && want < len(tr.history) {
		tr.history = tr.history[:want] // a fork or an abandoned event cut the conversation
	}
	tr.history = append(tr.history, added...)
}

// forked ends what a fork left open: those steps are no longer the run's.
func (tr *tracker) forked(at time.Time) { tr.endOpen(at, keyAbandoned) }

// finish ends every span still open when the exporter closes.
func (tr *tracker) finish(at time.Time) {
	tr.endOpen(at, keyUnfinished)
	for _, c := range tr.mcp {
		c.span.SetAttributes(keyUnfinished.Bool(true))
		c.span.End(trace.WithTimestamp(at))
	}
	clear(tr.mcp)
}

// endOpen ends the tool, event and server spans still open, marked with
// why (glassbox.abandoned, glassbox.unfinished).
func (tr *tracker) endOpen(at time.Time, why attribute.Key) {
	for _, s := range []trace.Span{tr.tool, tr.agent, tr.server} {
		if s != nil {
			s.SetAttributes(why.Bool(true))
			s.End(trace.WithTimestamp(at))
		}
	}
	tr.tool, tr.agent, tr.server = nil, nil, nil
}

// common are the attributes every GenAI span of the run carries.
func (tr *tracker) common(op string) []attribute.KeyValue {
	kv := []attribute.KeyValue{keyOperation.String(op), keyProvider.String(tr.run.Provider)}
	if tr.run.Name != "" {
		kv = append(kv, keyRun.String(tr.run.Name))
	}
	if tr.run.Conversation != "" {
		kv = append(kv, keyConversation.String(tr.run.Conversation))
	}
	return kv
}

// parentCtx is where the next span hangs: the tool call, else the event,
// else a new trace.
func (tr *tracker) parentCtx() context.Context {
	switch {
	case tr.tool != nil:
		return tr.toolCtx
	case tr.agent != nil:
		return tr.agentCtx
	}
	return context.Background()
}

// startAgent opens invoke_agent for the event the run took. An event from
// the MCP bus is a tools/call of ask_agent glassbox serves: an MCP server
// span around it.
func (tr *tracker) startAgent(t record) {
	tr.forked(t.Time) // an event left open (a lost transition) ends here
	tr.halted = ""
	ctx := context.Background()
	attrs := append(tr.common("invoke_agent"), keyAgentName.String(agentName), keyRequestModel.String(tr.run.Model))
	if ev := t.Event; ev != nil {
		attrs = append(attrs, keyEventSource.String(ev.Source))
		if ev.Ref != "" {
			attrs = append(attrs, keyEventRef.String(tr.mask.Mask(ev.Ref)))
		}
		if ev.Source == bus.Source {
			sattrs := []attribute.KeyValue{keyMCPMethod.String("tools/call"), keyToolName.String(bus.ToolName), keyOperation.String("execute_tool")}
			if ev.Ref != "" {
				sattrs = append(sattrs, keyRPCID.String(tr.mask.Mask(ev.Ref)))
			}
			ctx, tr.server = tr.e.tracer.Start(ctx, "tools/call "+bus.ToolName, trace.WithTimestamp(t.Time), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(sattrs...))
		}
		if tr.e.settings.Content {
			attrs = append(attrs, keyInputMessages.String(tr.messagesJSON([]history.Message{{Role: history.RoleUser, Text: ev.Data}})))
		}
	}
	tr.agentCtx, tr.agent = tr.e.tracer.Start(ctx, "invoke_agent "+agentName, trace.WithTimestamp(t.Time), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// endAgent closes invoke_agent: delivered, or halted with why.
func (tr *tracker) endAgent(t record, halted string) {
	if tr.agent == nil {
		return
	}
	if o := t.Output; o != nil {
		tr.agent.SetAttributes(keyOutputTarget.String(o.Target))
		if tr.e.settings.Content && !o.Halted {
			tr.agent.SetAttributes(keyOutputMessages.String(tr.outputJSON(history.Message{Role: history.RoleAssistant, Text: o.Text}, "stop")))
		}
	}
	if halted != "" {
		tr.agent.SetAttributes(keyErrorType.String(halted), keyHaltedBy.String(halted))
		msg := ""
		if t.Output != nil {
			msg = tr.mask.Mask(t.Output.Text)
		}
		tr.agent.SetStatus(codes.Error, msg)
	}
	tr.agent.End(trace.WithTimestamp(t.Time))
	if tr.server != nil {
		if halted != "" {
			tr.server.SetAttributes(keyErrorType.String("tool_error"))
			tr.server.SetStatus(codes.Error, halted)
		}
		tr.server.End(trace.WithTimestamp(t.Time))
	}
	tr.agent, tr.server, tr.halted = nil, nil, ""
}

// inference is one model call: its span from the moment the context was
// ready, and an HTTP span per attempt under it.
func (tr *tracker) inference(t record) {
	r := t.LLM
	start := tr.callStart
	if start.IsZero() || start.After(t.Time) {
		start = t.Time.Add(-time.Duration(r.TotalMS) * time.Millisecond)
	}
	tr.callStart = time.Time{}
	op := tr.run.Operation
	attrs := append(tr.common(op), keyRequestModel.String(r.Model), keyBackend.String(r.Backend), keyIteration.Int(t.Iteration))
	if tr.run.Stream {
		attrs = append(attrs, keyStream.Bool(true))
	}
	if host, port, ok := hostPort(t.exchanges); ok {
		attrs = append(attrs, keyServerAddress.String(host), keyServerPort.Int(port))
	}
	ctx, span := tr.e.tracer.Start(tr.parentCtx(), op+" "+r.Model, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	span.SetAttributes(tr.outcome(t)...)
	if tr.e.settings.Content {
		span.SetAttributes(tr.contentOf(t)...)
	}
	if kind := failure(t); kind != "" {
		span.SetAttributes(keyErrorType.String(kind))
		msg := ""
		if t.Error != nil {
			msg = tr.mask.Mask(t.Error.Message)
			span.SetAttributes(keyMessage.String(msg))
		}
		span.SetStatus(codes.Error, msg)
		if t.Edge == loop.EdgeLLMFailure {
			tr.halted = kind
		}
	}
	tr.attempts(ctx, t, start)
	span.End(trace.WithTimestamp(t.Time))
}

// outcome are the response's attributes: finish reason, tokens, timings.
func (tr *tracker) outcome(t record) []attribute.KeyValue {
	r := t.LLM
	var kv []attribute.KeyValue
	if r.FinishReason != "" {
		kv = append(kv, keyFinishReasons.StringSlice([]string{r.FinishReason}))
	}
	if r.StopReason != "" {
		kv = append(kv, keyStopReason.String(r.StopReason))
	}
	if t.Edge != loop.EdgeLLMFailure {
		kv = append(kv, keyInputTokens.Int(r.Usage.InputTokens), keyOutputTokens.Int(r.Usage.OutputTokens))
		if r.Usage.ThoughtsTokens > 0 {
			kv = append(kv, keyReasoning.Int(r.Usage.ThoughtsTokens))
		}
	}
	if n := len(t.exchanges); n > 0 && t.exchanges[n-1].firstChunk > 0 && tr.run.Stream {
		kv = append(kv, keyFirstChunk.Float64(t.exchanges[n-1].firstChunk.Seconds()))
	}
	kv = append(kv, keyTotalDuration.Float64(float64(r.TotalMS)/1000))
	if len(r.Retries) > 0 {
		kv = append(kv, keyRetries.Int(len(r.Retries)))
	}
	if t.Edited {
		kv = append(kv, keyEdited.Bool(true))
	}
	if r.Resent {
		kv = append(kv, keyResent.Bool(true))
	}
	return kv
}

// failure is error.type of a model call that failed: the last HTTP status
// when the service answered with one, else glassbox's error kind.
func failure(t record) string {
	switch t.Edge {
	case loop.EdgeLLMFailure:
		if s := t.LLM.HTTPStatus; s >= 400 {
			return strconv.Itoa(s)
		}
		if t.Error != nil && t.Error.Kind != "" {
			return t.Error.Kind
		}
		return "llm_failure"
	case loop.EdgeMalformedResponse:
		return "malformed_response"
	}
	return ""
}

// attempts are the HTTP spans of a call, one per exchange, laid out in
// time: each attempt took its Total, then the retry's wait.
func (tr *tracker) attempts(ctx context.Context, t record, start time.Time) {
	at := start
	for i, x := range t.exchanges {
		if at.After(t.Time) {
			at = t.Time // the recorded waits were not all waited (a test's clock)
		}
		end := at.Add(x.total)
		if end.After(t.Time) {
			end = t.Time
		}
		attrs := []attribute.KeyValue{keyHTTPMethod.String(x.method), keyURLFull.String(tr.mask.Mask(x.url))}
		if host, port, ok := hostPort(t.exchanges[i : i+1]); ok {
			attrs = append(attrs, keyServerAddress.String(host), keyServerPort.Int(port))
		}
		if i > 0 {
			attrs = append(attrs, keyHTTPResend.Int(i))
		}
		if x.status > 0 {
			attrs = append(attrs, keyHTTPStatus.Int(x.status))
		}
		if x.ttfb > 0 {
			attrs = append(attrs, keyTTFB.Float64(x.ttfb.Seconds()))
		}
		if x.divergence != "" {
			attrs = append(attrs, keyDivergence.String(tr.mask.Mask(x.divergence)))
		}
		var wait time.Duration
		if i < len(t.LLM.Retries) {
			rt := t.LLM.Retries[i]
			wait = time.Duration(rt.WaitMS) * time.Millisecond
			attrs = append(attrs, keyRetryReason.String(tr.mask.Mask(rt.Reason)), keyRetryWait.Float64(wait.Seconds()))
		}
		_, span := tr.e.tracer.Start(ctx, x.method, trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		switch {
		case x.status >= 400:
			span.SetAttributes(keyErrorType.String(strconv.Itoa(x.status)))
			span.SetStatus(codes.Error, "")
		case x.err != "":
			span.SetAttributes(keyErrorType.String("_OTHER"))
			span.SetStatus(codes.Error, tr.mask.Mask(x.err))
		}
		span.End(trace.WithTimestamp(end))
		at = end.Add(wait)
	}
}

// hostPort is the server of the first exchange with a URL.
func hostPort(xs []exchange) (string, int, bool) {
	for _, x := range xs {
		u, err := url.Parse(x.url)
		if err != nil || u.Hostname() == "" {
			continue
		}
		port, _ := strconv.Atoi(u.Port())
		if port == 0 {
			port = map[string]int{"http": 80, "https": 443}[u.Scheme]
		}
		return u.Hostname(), port, true
	}
	return "", 0, false
}

// decided is the security layer's answer on a tool call: the execute_tool
// span opens with the policy check, and a denial ends it.
func (tr *tracker) decided(t record, start time.Time) {
	tr.endTool(start, "", "") // one left open by a lost transition
	call, d := t.Tool, t.Decision
	if call == nil {
		return
	}
	server := tr.mcpServerOf(call.Name)
	toolType := "function" // run by glassbox itself
	if server != "" {
		toolType = "extension" // run by an MCP server
	}
	attrs := append(tr.common("execute_tool"), keyToolName.String(call.Name), keyToolType.String(toolType),
		keyVerdict.String(string(d.Verdict)), keyRule.String(d.Rule), keyRuleReason.String(tr.mask.Mask(d.Reason)))
	if call.ID != "" {
		attrs = append(attrs, keyToolCallID.String(call.ID))
	}
	if tr.e.settings.Content {
		attrs = append(attrs, keyToolArgs.String(string(tr.mask.MaskJSON(call.Args))))
	}
	if server != "" {
		attrs = append(attrs, tr.mcpToolAttrs(server)...)
	}
	tr.toolCtx, tr.tool = tr.e.tracer.Start(tr.parentCtx(), "execute_tool "+call.Name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	tr.toolKey = call.Name
	if t.Edge == loop.EdgeDeny {
		tr.endTool(t.Time, "policy_denied", tr.errorText(t))
	}
}

// answered is the person's answer to a confirmation.
func (tr *tracker) answered(t record) {
	if tr.tool == nil {
		return
	}
	if t.Edge == loop.EdgeUserApproval {
		tr.tool.SetAttributes(keyApproval.String("approved"))
		return
	}
	tr.tool.SetAttributes(keyApproval.String("denied"))
	tr.endTool(t.Time, "user_denied", tr.errorText(t))
}

// ran is the tool's outcome: the execute_tool span ends.
func (tr *tracker) ran(t record) {
	if tr.tool == nil {
		return
	}
	if r := t.Result; r != nil {
		tr.tool.SetAttributes(keyToolDuration.Float64(float64(r.DurationMS) / 1000))
		if r.Sandbox != "" {
			tr.tool.SetAttributes(keySandbox.String(r.Sandbox))
		}
		if tr.e.settings.Content {
			tr.tool.SetAttributes(keyToolResult.String(tr.mask.Mask(r.Content)))
		}
	}
	if t.Edge == loop.EdgeToolFailure {
		kind := "tool_failure"
		if t.Error != nil && t.Error.Kind != "" {
			kind = t.Error.Kind
		}
		tr.endTool(t.Time, kind, tr.errorText(t))
		return
	}
	tr.endTool(t.Time, "", "")
}

func (tr *tracker) errorText(t record) string {
	if t.Error == nil {
		return ""
	}
	return tr.mask.Mask(t.Error.Message)
}

// endTool ends the execute_tool span, with error.type kind when it failed.
func (tr *tracker) endTool(at time.Time, kind, msg string) {
	if tr.tool == nil {
		return
	}
	if kind != "" {
		tr.tool.SetAttributes(keyErrorType.String(kind))
		tr.tool.SetStatus(codes.Error, msg)
	}
	tr.tool.End(trace.WithTimestamp(at))
	tr.tool, tr.toolCtx, tr.toolKey = nil, nil, ""
}
