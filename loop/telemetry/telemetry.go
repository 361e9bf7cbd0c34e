// Package telemetry sends what a run does to an OpenTelemetry collector as
// GenAI spans (semantic conventions v1.41.0): an invoke_agent span for each
// event's whole loop, an inference span per model call with an HTTP span per
// attempt under it, an execute_tool span per tool call carrying the security
// layer's verdict, and MCP spans for the frames exchanged with MCP servers.
//
// It hears the engine's transitions and nothing else, through a function a
// run subscribes (Exporter.Observe) — the engine does not know it exists.
// That function only queues; spans are made on the exporter's goroutine and
// sent from another, both bounded, so a collector that refuses, hangs or
// crawls costs the run nothing: what cannot be sent is dropped and counted
// with its reason (Stats), and the front ends say so. Content (messages,
// system instructions, tool arguments and results) goes out only when asked
// (--otlp-content), masked like everything glassbox records.
// docs/standards.md is the reference: every attribute written, and how to
// reach Jaeger, Phoenix or Langfuse.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// whose GenAI and MCP names glassbox writes. The GenAI conventions are still
// "Development": names change between versions, so one is pinned.
const SemconvVersion = "1.41.0"

// scopeName names glassbox's instrumentation scope on every span.
const scopeName = "github.com/glassbox-dev/glassbox/loop/telemetry"

// tracesPath is what OTLP/HTTP appends to a base endpoint.
const tracesPath = "/v1/traces"

// Settings say where spans go and what they carry.
type Settings struct {
	// Endpoint is the full OTLP/HTTP traces URL (…/v1/traces); "" means
	// export is off.
	Endpoint string
	// From says what asked for export: "--otlp", or the variable.
	From string
	// Content puts messages, system instructions, tool definitions, tool
	// arguments and results on the spans (--otlp-content), masked.
	Content bool
	// ServiceName is the resource's service.name (OTEL_SERVICE_NAME, else
	// "glassbox").
	ServiceName string
	// JSON sends OTLP/HTTP JSON instead of protobuf
	// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json).
	JSON bool
	// Secrets are masked in every attribute, on top of the run's own.
	Secrets []string
}

// Enabled says export was asked for.
func (s Settings) Enabled() bool { return s.Endpoint != "" }

// Resolve reads where spans go: --otlp URL (flagURL) first, then
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is), then
// OTEL_EXPORTER_OTLP_ENDPOINT (a base: /v1/traces is appended). --otlp is a
// base too, unless its path already ends in /v1/traces. Without the flag,
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn the variables
// off. A URL that is not http(s)://HOST…, or a protocol other than OTLP over
// HTTP, is an error.
func Resolve(flagURL string, content bool, getenv func(string) string) (Settings, error) {
	s := Settings{Content: content, ServiceName: strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))}
	if s.ServiceName == "" {
		s.ServiceName = "glassbox"
	}
	raw, base := strings.TrimSpace(flagURL), true
	s.From = "--otlp"
	if raw == "" {
		if off(getenv) {
			return Settings{}, nil
		}
		for _, v := range []struct {
			name string
			base bool
		}{{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", false}, {"OTEL_EXPORTER_OTLP_ENDPOINT", true}} {
			if raw = strings.TrimSpace(getenv(v.name)); raw != "" {
				s.From, base = v.name, v.base
				break
			}
		}
	}
	if raw == "" {
		if content {
			return Settings{}, sentence.Errorf("--otlp-content goes with --otlp URL (or OTEL_EXPORTER_OTLP_ENDPOINT): it says what the spans carry, not where they go")
		}
		return Settings{}, nil
	}
	endpoint, err := endpointURL(raw, base)
	if err != nil {
		return Settings{}, sentence.Errorf("%s %q: %w", s.From, raw, err)
	}
	s.Endpoint = endpoint
	switch p := strings.TrimSpace(firstSet(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")); p {
	case "", "http/protobuf":
	case "http/json":
		s.JSON = true
	default:
		return Settings{}, sentence.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: glassbox sends OTLP over HTTP (http/protobuf or http/json), not %s", p, p)
	}
	s.Secrets = HeaderSecrets(getenv)
	return s, nil
}

func off(getenv func(string) string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none")
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// endpointURL checks raw and makes it the traces URL: a base gets
// /v1/traces appended to its path unless the path already ends so.
func endpointURL(raw string, base bool) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", sentence.Errorf("want an http:// or https:// URL with a host, such as http://localhost:4318")
	}
	if u.User != nil {
		return "", sentence.Errorf("put credentials in OTEL_EXPORTER_OTLP_HEADERS, not in the URL")
	}
	if base && !strings.HasSuffix(strings.TrimRight(u.Path, "/"), tracesPath) {
		u.Path = strings.TrimRight(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}

// HeaderSecrets are the values of OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_EXPORTER_OTLP_TRACES_HEADERS (key=value,…): a collector's
// credentials, masked wherever they might appear.
func HeaderSecrets(getenv func(string) string) []string {
	var out []string
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, kv := range strings.Split(getenv(name), ",") {
			_, v, ok := strings.Cut(kv, "=")
			if v, err := url.QueryUnescape(strings.TrimSpace(v)); ok && err == nil && len(v) >= 4 {
				out = append(out, v)
			}
		}
	}
	return out
}

// Limits bound what the exporter holds and how long it waits. The zero
// value means the defaults (Defaults).
type Limits struct {
	// Steps is how many transitions may wait to be turned into spans.
	Steps int
	// Queue is how many ended spans may wait to be sent; Batch how many go
	// in one request; Interval how often a partial batch goes.
	Queue    int
	Batch    int
	Interval time.Duration
	// Export bounds one request to the collector, retries included.
	Export time.Duration
}

// Defaults are the limits of a real run.
var Defaults = Limits{Steps: 4096, Queue: 2048, Batch: 256, Interval: time.Second, Export: 10 * time.Second}

func (l Limits) orDefaults() Limits {
	d := Defaults
	if l.Steps > 0 {
		d.Steps = l.Steps
	}
	if l.Queue > 0 {
		d.Queue = l.Queue
	}
	if l.Batch > 0 {
		d.Batch = l.Batch
	}
	if l.Interval > 0 {
		d.Interval = l.Interval
	}
	if l.Export > 0 {
		d.Export = l.Export
	}
	return d
}

// Exporter sends the transitions of every run that subscribes (Observe) to
// one collector. One serves the whole process: every run of compare mode,
// every learner of a room.
type Exporter struct {
	settings Settings
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	box      *outbox
	stats    *counters

	steps  chan step
	quit   chan struct{}
	done   chan struct{}
	closed atomic.Bool
	once   sync.Once

	mu       sync.Mutex
	trackers []*tracker // every run subscribed, for Close to end their spans
}

// Start builds the exporter for s (Enabled) and starts its goroutines.
// version is glassbox's, for service.version. Nothing is sent until a
// subscribed run takes a step.
func Start(s Settings, version string, limits Limits) (*Exporter, error) {
	if !s.Enabled() {
		return nil, errors.New("telemetry.Start: no endpoint")
	}
	l := limits.orDefaults()
	status := &statusTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	opts := []otlptracehttp.Option{
		otlptracehttp.WithEndpointURL(s.Endpoint),
		otlptracehttp.WithHTTPClient(&http.Client{Transport: status, Timeout: l.Export}),
		// A failed request is tried again briefly; the outbox's deadline
		// (Limits.Export) bounds the whole.
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: l.Export}),
	}
	if s.JSON {
		opts = append(opts, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attribute.String("service.name", s.ServiceName), attribute.String("service.version", version)),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME
		resource.WithTelemetrySDK(),
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("OTLP resource: %w", err)
	}
	stats := &counters{}
	box := newOutbox(exp, l, stats, status)
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(box), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	e := &Exporter{
		settings: s,
		provider: tp,
		tracer:   tp.Tracer(scopeName, trace.WithInstrumentationVersion(version), trace.WithSchemaURL("https://opentelemetry.io/schemas/"+SemconvVersion)),
		box:      box,
		stats:    stats,
		steps:    make(chan step, l.Steps),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	stats.endpoint = redactedEndpoint(s.Endpoint)
	go e.work()
	return e, nil
}

// redactedEndpoint is the endpoint as a person may read it: no query.
func redactedEndpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// Settings are what the exporter was started with.
func (e *Exporter) Settings() Settings { return e.settings }

// Run describes a run that subscribes: what its spans say about it.
type Run struct {
	// Name is the run's name in compare mode ("" for a single run).
	Name string
	// Provider and Operation are the dialect's GenAI names
	// (gen_ai.provider.name, gen_ai.operation.name of a model call).
	Provider, Operation string
	Model               string
	// Conversation is the session's id (gen_ai.conversation.id).
	Conversation string
	// Stream says the model calls stream (gen_ai.request.stream).
	Stream bool
	// System and Tools are what every model call is told (content only).
	System string
	Tools  []history.ToolSpec
	// MCPServers are the run's MCP servers (--mcp), by name: a streamable
	// HTTP server's URL, "" for a stdio one.
	MCPServers map[string]string
	// Secrets are the run's own keys: masked in every attribute.
	Secrets []string
}

// Observe subscribes a run: its Feed takes the run's transitions.
func (e *Exporter) Observe(r Run) *Feed {
	tr := newTracker(e, r)
	e.mu.Lock()
	e.trackers = append(e.trackers, tr)
	e.mu.Unlock()
	return &Feed{e: e, tr: tr}
}

// Feed is one run's way in. Its methods only queue — they never wait —
// and are called from one goroutine at a time: the one stepping the run.
type Feed struct {
	e  *Exporter
	tr *tracker
}

// Transition hands over one transition of the run (loop.Config.OnTransition,
// or whatever feeds a front end: tap's inferred steps too). One that finds
// the queue full is dropped and counted (ReasonBehind).
func (f *Feed) Transition(t loop.Transition) { f.put(step{tr: f.tr, t: compact(t)}) }

// Seed gives the conversation so far, before the run's first transition
// here (a resumed session's): the content of its first model call starts
// from it.
func (f *Feed) Seed(msgs []history.Message) {
	f.put(step{tr: f.tr, seed: history.WithoutNotes(msgs), seeding: true})
}

func (f *Feed) put(s step) {
	if f.e.closed.Load() {
		f.e.stats.drop(ReasonExit, 1, "")
		return
	}
	select {
	case f.e.steps <- s:
	default:
		f.e.stats.drop(ReasonBehind, 1, "")
	}
}

// work turns queued transitions into spans until Close.
func (e *Exporter) work() {
	defer close(e.done)
	for {
		select {
		case s := <-e.steps:
			s.apply()
		case <-e.quit:
			for {
				select {
				case s := <-e.steps:
					s.apply()
				default:
					e.mu.Lock()
					for _, tr := range e.trackers {
						tr.finish(time.Now())
					}
					e.mu.Unlock()
					return
				}
			}
		}
	}
}

// Stats are how many spans went out and how many were dropped, and why.
func (e *Exporter) Stats() Stats { return e.stats.snapshot() }

// Close ends every span still open (an event still running is marked
// unfinished), sends what is queued, and stops. It waits until ctx ends at
// most: what the collector has not taken by then is counted as dropped at
// exit. It returns the final Stats.
func (e *Exporter) Close(ctx context.Context) Stats {
	e.once.Do(func() {
		e.closed.Store(true)
		close(e.quit)
		<-e.done
		for {
			select {
			case <-e.steps: // sent after the worker's last look
				e.stats.drop(ReasonExit, 1, "")
				continue
			default:
			}
			break
		}
		e.provider.Shutdown(ctx) // errors are counted in the stats
	})
	return e.Stats()
}

// step is one transition waiting to become spans (or a conversation to
// start from), and the run it is of.
type step struct {
	tr      *tracker
	t       record
	seed    []history.Message
	seeding bool
}

func (s step) apply() {
	if s.seeding {
		if s.tr.e.settings.Content {
			s.tr.history = s.seed
		}
		return
	}
	s.tr.take(s.t)
}

// masker masks with the settings' secrets and the run's.
func (e *Exporter) masker(run []string) *providers.Masker {
	return providers.NewMasker(append(append([]string(nil), e.settings.Secrets...), run...)...)
}
