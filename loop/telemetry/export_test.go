package telemetry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
)

// collector is an in-process OTLP/HTTP receiver: it decodes each export
// request with the OTLP protobuf types, as a real collector does.
type collector struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource []*commonpb.KeyValue
	scope    string
	schema   string
	requests int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests++
	for _, rs := range req.ResourceSpans {
		c.resource = rs.GetResource().GetAttributes()
		for _, ss := range rs.ScopeSpans {
			c.scope, c.schema = ss.GetScope().GetName(), ss.GetSchemaUrl()
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (c *collector) all() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// yes approves every confirmation and answers no question.
type yes struct{}

func (yes) Confirm(context.Context, loop.ConfirmRequest) (loop.Approval, error) {
	return loop.AllowOnce, nil
}
func (yes) Ask(context.Context, tools.Question) (string, error) { return "", errors.New("no answer") }

// request is a lesson's request, in English.
func request(t testing.TB, name string) string {
	lesson, ok := lessons.ByName(name)
	if !ok {
		t.Fatalf("no lesson %s", name)
	}
	return lesson.RequestIn("en")
}

// lessonRun opens an offline run of provider exporting to endpoint, feeds
// it the requests, one event each, and steps it until idle after each. env
// is what the run and the exporter read of the environment.
func lessonRun(t *testing.T, provider, endpoint string, content bool, env map[string]string, requests ...string) (*telemetry.Exporter, []loop.Transition) {
	t.Helper()
	var events []loop.Event
	for _, req := range requests {
		events = append(events, loop.Event{Source: "cli", Type: "user_input", Data: req})
	}
	return eventRun(t, runSpec{provider: provider, endpoint: endpoint, content: content, env: env}, events...)
}

// runSpec is how eventRun opens its run.
type runSpec struct {
	provider, endpoint string
	content            bool
	env                map[string]string
	mcp                []string
	session            string // a session file to keep
}

func eventRun(t *testing.T, spec runSpec, events ...loop.Event) (*telemetry.Exporter, []loop.Transition) {
	t.Helper()
	getenv := func(k string) string { return spec.env[k] }
	c := agentrun.Defaults(true)
	c.Provider, c.Offline, c.Lang, c.Version, c.MCP = spec.provider, true, "en", "test", spec.mcp
	c.ApplyEnv(getenv)
	c.OTLP, c.OTLPContent, c.Session = spec.endpoint, spec.content, spec.session
	c.Sleep = func(context.Context, time.Duration) error { return nil } // the retry waits
	if err := c.StartTelemetry(getenv); err != nil {
		t.Fatal(err)
	}
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return yes{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agentrun.CloseAll(runs) })
	e := runs[0].Engine
	var steps []loop.Transition
	for _, ev := range events {
		e.Attach(ev.Source, func(loop.Output) {})
		e.Submit(ev)
		for {
			tr, err := e.Step(context.Background())
			if errors.Is(err, loop.ErrIdle) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			steps = append(steps, tr)
		}
	}
	return c.Telemetry, steps
}

// attrs reads a span's attributes as text, numbers as their digits.
func attrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[kv.Key] = value(kv.Value)
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return itoa(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_DoubleValue:
		if x.DoubleValue > 0 {
			return "positive"
		}
		return "0"
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, value(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "?"
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// tree indexes spans by id and names each span's parent.
type tree struct {
	byID map[string]*tracepb.Span
}

func newTree(spans []*tracepb.Span) tree {
	t := tree{byID: map[string]*tracepb.Span{}}
	for _, s := range spans {
		t.byID[string(s.SpanId)] = s
	}
	return t
}

func (t tree) parent(s *tracepb.Span) *tracepb.Span { return t.byID[string(s.ParentSpanId)] }

func named(spans []*tracepb.Span, name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestExportSpanTree runs four lessons — tool calls (tour), a denial
// (path-escape), a retry (rate-limit) and an llm_failure (outage) —
// through the real SDK to an in-process OTLP/HTTP receiver, and checks the
// span tree and the attributes the conventions and docs/standards.md name.
func TestExportSpanTree(t *testing.T) {
	for _, tc := range []struct {
		provider string
		withIDs  bool // the dialect's tool calls carry ids
	}{{"gemini", false}, {"openai", true}} {
		t.Run(tc.provider, func(t *testing.T) { testSpanTree(t, tc.provider, tc.withIDs) })
	}
}

func testSpanTree(t *testing.T, provider string, withIDs bool) {
	d, ok := backend.Lookup(provider)
	if !ok {
		t.Fatalf("no dialect %s", provider)
	}
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	exp, _ := lessonRun(t, provider, srv.URL, false, map[string]string{"OTEL_SERVICE_NAME": "room-7"},
		request(t, "tour"), request(t, "path-escape"), request(t, "rate-limit"), request(t, "outage"))
	stats := exp.Close(context.Background())
	if stats.DroppedTotal() != 0 || stats.Sent == 0 {
		t.Fatalf("stats = %+v, want every span sent", stats)
	}
	spans := col.all()
	if int64(len(spans)) != stats.Sent {
		t.Errorf("the collector got %d spans, the exporter counted %d sent", len(spans), stats.Sent)
	}
	if col.scope != "github.com/glassbox-dev/glassbox/loop/telemetry" || col.schema != "https://opentelemetry.io/schemas/1.41.0" {
		t.Errorf("scope %q schema %q", col.scope, col.schema)
	}
	res := map[string]string{}
	for _, kv := range col.resource {
		res[kv.Key] = value(kv.Value)
	}
	if res["service.name"] != "room-7" || res["service.version"] != "test" {
		t.Errorf("resource = %v, want service.name from OTEL_SERVICE_NAME and glassbox's version", res)
	}
	tr := newTree(spans)

	agents := named(spans, "invoke_agent glassbox")
	if len(agents) != 4 {
		t.Fatalf("%d invoke_agent spans, want one per event (4)", len(agents))
	}
	for _, a := range agents {
		at := attrs(a)
		if a.Kind != tracepb.Span_SPAN_KIND_INTERNAL || a.ParentSpanId != nil || at["gen_ai.operation.name"] != "invoke_agent" ||
			at["gen_ai.provider.name"] != d.GenAI.Provider || at["gen_ai.agent.name"] != "glassbox" || at["glassbox.event.source"] != "cli" {
			t.Errorf("invoke_agent span: kind %v parent %x attrs %v", a.Kind, a.ParentSpanId, at)
		}
		if _, ok := at["gen_ai.input.messages"]; ok {
			t.Error("content on a span without --otlp-content")
		}
	}

	calls := named(spans, d.GenAI.Operation+" "+d.DefaultModel)
	if len(calls) < 5 {
		t.Fatalf("%d inference spans, want one per model call (at least 5)", len(calls))
	}
	var retried, failed *tracepb.Span
	for _, s := range calls {
		at := attrs(s)
		if p := tr.parent(s); p == nil || p.Name != "invoke_agent glassbox" || s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("inference span not a CLIENT child of invoke_agent: kind %v parent %v", s.Kind, p)
		}
		for _, k := range []string{"gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "server.address", "gen_ai.request.stream"} {
			if at[k] == "" {
				t.Errorf("inference span lacks %s: %v", k, at)
			}
		}
		if at["glassbox.retries"] != "" && at["error.type"] == "" {
			retried = s
		}
		if at["error.type"] != "" {
			failed = s
		}
		if at["error.type"] == "" && (at["gen_ai.usage.input_tokens"] == "" || at["gen_ai.usage.output_tokens"] == "" ||
			at["gen_ai.response.finish_reasons"] == "" || at["gen_ai.response.time_to_first_chunk"] != "positive") {
			t.Errorf("a successful call's span lacks usage, finish reasons or time to first chunk: %v", at)
		}
	}

	// The retry: the call's span has an HTTP span per attempt, the first
	// answered 429 and the second marked as a resend.
	if retried == nil {
		t.Fatal("no inference span with glassbox.retries (rate-limit lesson)")
	}
	var attempts []map[string]string
	for _, s := range spans {
		if string(s.ParentSpanId) == string(retried.SpanId) && s.Name == "POST" {
			attempts = append(attempts, attrs(s))
		}
	}
	if len(attempts) < 2 || attempts[0]["http.response.status_code"] != "429" || attempts[0]["error.type"] != "429" ||
		attempts[0]["glassbox.retry.reason"] == "" || attempts[1]["http.request.resend_count"] != "1" || attempts[1]["http.response.status_code"] != "200" {
		t.Errorf("attempts of the retried call = %v", attempts)
	}

	// The failure: error.type is the last status; the event's span says it halted.
	if failed == nil {
		t.Fatal("no failed inference span (outage lesson)")
	}
	if fa := attrs(failed); fa["error.type"] != "503" || failed.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("failed call: status %v attrs %v", failed.Status, fa)
	}
	if p := tr.parent(failed); p == nil || attrs(p)["error.type"] != "503" || p.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the halted event's invoke_agent span does not carry the failure: %v", p)
	}

	// Tool calls: each under its event, with the policy's verdict and rule.
	tools := 0
	var denied *tracepb.Span
	for _, s := range spans {
		if !strings.HasPrefix(s.Name, "execute_tool ") {
			continue
		}
		tools++
		at := attrs(s)
		if s.Kind != tracepb.Span_SPAN_KIND_INTERNAL || tr.parent(s) == nil || tr.parent(s).Name != "invoke_agent glassbox" ||
			at["gen_ai.operation.name"] != "execute_tool" || "execute_tool "+at["gen_ai.tool.name"] != s.Name ||
			(at["gen_ai.tool.call.id"] == "") == withIDs || at["glassbox.policy.verdict"] == "" || at["glassbox.policy.rule"] == "" {
			t.Errorf("execute_tool span %s: kind %v attrs %v", s.Name, s.Kind, at)
		}
		if at["glassbox.policy.verdict"] == "DENY" {
			denied = s
		}
	}
	if tools < 3 {
		t.Errorf("%d execute_tool spans, want the tour's and the denied one", tools)
	}
	if denied == nil {
		t.Fatal("no execute_tool span with verdict DENY (path-escape lesson)")
	}
	if at := attrs(denied); at["error.type"] != "policy_denied" || denied.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("denied call: status %v attrs %v", denied.Status, at)
	}
	// Every span of one event is in the event's trace.
	for _, s := range spans {
		if p := tr.parent(s); p != nil && string(p.TraceId) != string(s.TraceId) {
			t.Errorf("span %s is in another trace than its parent", s.Name)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano {
			t.Errorf("span %s ends before it starts", s.Name)
		}
	}
}

// TestExportContentMasked: with --otlp-content the inference span carries
// the system instructions, the messages and the tool definitions in the
// conventions' JSON shape, the tool span its arguments and result — and a
// key that was typed into the request never leaves, there or anywhere.
func TestExportContentMasked(t *testing.T) {
	const key = "AIzaSyD-secret-value-for-the-test-0123456789"
	const header = "Basic c2VjcmV0LWhlYWRlci12YWx1ZQ==" // the collector's credentials
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	env := map[string]string{"GEMINI_API_KEY": key, "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=" + url.QueryEscape(header)}
	session := filepath.Join(t.TempDir(), "s-20261128.jsonl")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	exp, steps := eventRun(t, runSpec{provider: "gemini", endpoint: srv.URL, content: true, env: env, session: session},
		loop.Event{Source: "cli", Type: "user_input", Data: "list the files and read README.md; my key is " + key + " and " + header})
	if len(steps) == 0 {
		t.Fatal("no steps")
	}
	exp.Close(context.Background())
	spans := col.all()
	var sawInput, sawArgs bool
	for _, s := range spans {
		at := attrs(s)
		for k, v := range at {
			if strings.Contains(v, key) || strings.Contains(v, header) {
				t.Errorf("span %s attribute %s holds a secret", s.Name, k)
			}
		}
		if strings.HasPrefix(s.Name, "invoke_agent") && at["gen_ai.conversation.id"] != "s-20261128" {
			t.Errorf("gen_ai.conversation.id = %q, want the session's id", at["gen_ai.conversation.id"])
		}
		if strings.HasPrefix(s.Name, "generate_content") {
			if !strings.HasPrefix(at["gen_ai.input.messages"], `[{"role":"user","parts":[{"type":"text","content":`) ||
				!strings.Contains(at["gen_ai.system_instructions"], `"type":"text"`) ||
				!strings.Contains(at["gen_ai.tool.definitions"], `"name":"read_file"`) ||
				!strings.Contains(at["gen_ai.output.messages"], `"role":"assistant"`) {
				t.Errorf("inference content: %v", at)
			}
			sawInput = true
		}
		if strings.HasPrefix(s.Name, "execute_tool") {
			if at["gen_ai.tool.call.arguments"] == "" || at["gen_ai.tool.call.result"] == "" {
				t.Errorf("tool content: %v", at)
			}
			sawArgs = true
		}
	}
	if !sawInput || !sawArgs {
		t.Errorf("content spans: input %v tool %v", sawInput, sawArgs)
	}
}

// TestExportMCP: a tool an MCP server runs (the mcp-tool lesson, --mcp
// demo over stdio) carries the MCP page's attributes on its execute_tool
// span, the handshake's requests are MCP client spans, and an event that
// came over the MCP bus is held by the tools/call ask_agent server span.
func TestExportMCP(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	exp, _ := eventRun(t, runSpec{provider: "gemini", endpoint: srv.URL, mcp: []string{"demo"}},
		loop.Event{Source: bus.Source, Type: bus.EventType, Data: request(t, "mcp-tool"), Ref: "7"})
	exp.Close(context.Background())
	spans := col.all()
	tr := newTree(spans)
	var tool, initialize, list, server *tracepb.Span
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.Name, "execute_tool demo__"):
			tool = s
		case s.Name == "initialize":
			initialize = s
		case s.Name == "tools/list":
			list = s
		case s.Name == "tools/call ask_agent":
			server = s
		}
	}
	if tool == nil || initialize == nil || list == nil || server == nil {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("spans %q: want an execute_tool of the demo server, initialize, tools/list and tools/call ask_agent", names)
	}
	at := attrs(tool)
	if at["mcp.method.name"] != "tools/call" || at["jsonrpc.request.id"] == "" || at["network.transport"] != "pipe" ||
		at["gen_ai.tool.type"] != "extension" || at["glassbox.mcp.server"] != "demo" || at["glassbox.policy.verdict"] == "" {
		t.Errorf("the MCP tool's span: %v", at)
	}
	if ia := attrs(initialize); initialize.Kind != tracepb.Span_SPAN_KIND_CLIENT || ia["mcp.method.name"] != "initialize" ||
		ia["mcp.protocol.version"] == "" || ia["jsonrpc.request.id"] == "" || initialize.EndTimeUnixNano < initialize.StartTimeUnixNano {
		t.Errorf("initialize: kind %v attrs %v", initialize.Kind, ia)
	}
	sa := attrs(server)
	if server.Kind != tracepb.Span_SPAN_KIND_SERVER || sa["mcp.method.name"] != "tools/call" || sa["gen_ai.tool.name"] != "ask_agent" || sa["jsonrpc.request.id"] != "7" {
		t.Errorf("the bus's server span: kind %v attrs %v", server.Kind, sa)
	}
	agent := named(spans, "invoke_agent glassbox")
	if len(agent) != 1 || tr.parent(agent[0]) != server || attrs(agent[0])["glassbox.event.source"] != bus.Source {
		t.Errorf("invoke_agent is not under the bus's tools/call span")
	}
	if p := tr.parent(tool); p == nil || p.Name != "invoke_agent glassbox" {
		t.Errorf("the MCP tool's span is not under invoke_agent")
	}
}
