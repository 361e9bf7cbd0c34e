package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
)

// events feeds n events (new_event, then delivered: 2 transitions, one
// invoke_agent span each) to a run of exp.
func events(exp *telemetry.Exporter, n int) {
	f := exp.Observe(telemetry.Run{Provider: "gcp.gemini", Operation: "generate_content", Model: "m"})
	now := time.Now()
	for i := 0; i < n; i++ {
		f.Transition(loop.Transition{Seq: 2*i + 1, Time: now, From: loop.WaitingForEvent, To: loop.AssemblingContext, Edge: loop.EdgeNewEvent,
			Event: &loop.Event{Source: "cli", Type: "user_input", Data: "hi"}})
		f.Transition(loop.Transition{Seq: 2*i + 2, Time: now, From: loop.DeliveringOutput, To: loop.WaitingForEvent, Edge: loop.EdgeDelivered,
			Output: &loop.Output{Target: "cli", Text: "hello"}})
	}
}

func start(t *testing.T, endpoint string, l telemetry.Limits) *telemetry.Exporter {
	t.Helper()
	s, err := telemetry.Resolve(endpoint, false, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	exp, err := telemetry.Start(s, "test", l)
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

// A collector that takes the connection and never answers: the export
// gives up at its deadline and every span is counted as dropped, with the
// reason.
func TestHangingCollector(t *testing.T) {
	hang := hangingListener(t)
	defer hang.Close()
	exp := start(t, "http://"+hang.Addr().String(), telemetry.Limits{Export: 200 * time.Millisecond, Interval: 10 * time.Millisecond})
	events(exp, 50)
	deadline := time.Now().Add(10 * time.Second)
	for exp.Stats().DroppedTotal() < 50 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s := exp.Close(context.Background())
	if s.Sent != 0 || s.DroppedTotal() != 50 || s.Pending != 0 || s.Dropped[0].Reason != telemetry.ReasonTimeout {
		t.Errorf("stats %+v, want all 50 spans dropped because the collector did not answer in time", s)
	}
}

// Close waits for a hanging collector only as long as its context allows
// — not the export's own deadline (30s here) — and what was not taken is
// dropped at exit. Handing over transitions never waited at all: were it
// to, events would not return before the export deadline.
func TestCloseIsBounded(t *testing.T) {
	hang := hangingListener(t)
	defer hang.Close()
	exp := start(t, "http://"+hang.Addr().String(), telemetry.Limits{Export: 30 * time.Second, Interval: 10 * time.Millisecond})
	began := time.Now()
	events(exp, 50)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s := exp.Close(ctx)
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("feeding and closing took %v: something waited for the collector's 30s deadline", d)
	}
	if s.Sent != 0 || s.DroppedTotal() != 50 || s.Pending != 0 || s.Dropped[len(s.Dropped)-1].Reason != telemetry.ReasonExit {
		t.Errorf("final stats %+v, want all 50 spans dropped at exit", s)
	}
}

// Nothing listens: the spans are dropped as refused.
func TestRefusingCollector(t *testing.T) {
	exp := start(t, refusingURL(t), telemetry.Limits{Export: time.Second, Interval: 10 * time.Millisecond})
	events(exp, 3)
	s := exp.Close(context.Background())
	if s.Sent != 0 || s.DroppedTotal() != 3 || s.Dropped[0].Reason != telemetry.ReasonRefused {
		t.Errorf("stats %+v, want 3 spans dropped because the collector refused the connection", s)
	}
}

// A collector that answers 401 (a missing token): the reason names it.
func TestRejectingCollector(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no token", http.StatusUnauthorized)
	}))
	defer srv.Close()
	exp := start(t, srv.URL, telemetry.Limits{})
	events(exp, 2)
	s := exp.Close(context.Background())
	if s.DroppedTotal() != 2 || s.Dropped[0].Reason != telemetry.ReasonRejected || s.Dropped[0].Detail != "HTTP 401" {
		t.Errorf("stats %+v, want 2 dropped, rejected with HTTP 401", s)
	}
}

// More spans than the queue holds while the collector hangs: the rest are
// dropped as the queue being full, never waited for.
func TestQueueFull(t *testing.T) {
	hang := hangingListener(t)
	defer hang.Close()
	exp := start(t, "http://"+hang.Addr().String(), telemetry.Limits{Queue: 4, Batch: 2, Export: 5 * time.Second, Interval: time.Millisecond})
	events(exp, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s := exp.Close(ctx)
	var full int64
	for _, d := range s.Dropped {
		if d.Reason == telemetry.ReasonQueueFull {
			full = d.Count
		}
	}
	if full == 0 || s.DroppedTotal() != 40 {
		t.Errorf("stats %+v, want some of the 40 dropped because the queue was full, and all 40 accounted for", s)
	}
}

// A transition handed over after Close is counted, not lost silently.
func TestAfterClose(t *testing.T) {
	srv := httptest.NewServer(&collector{})
	defer srv.Close()
	exp := start(t, srv.URL, telemetry.Limits{})
	exp.Close(context.Background())
	events(exp, 1)
	if s := exp.Stats(); s.DroppedTotal() != 2 || s.Dropped[0].Reason != telemetry.ReasonExit {
		t.Errorf("stats %+v, want 2 transitions dropped at exit", s)
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flag    string
		content bool
		env     map[string]string
		want    string // the endpoint; "" off
		from    string
		err     string // part of the error
	}{
		{name: "off", want: ""},
		{name: "flag base", flag: "http://localhost:4318", want: "http://localhost:4318/v1/traces", from: "--otlp"},
		{name: "flag with path", flag: "https://cloud.example/api/public/otel", want: "https://cloud.example/api/public/otel/v1/traces"},
		{name: "flag already traces", flag: "http://localhost:6006/v1/traces", want: "http://localhost:6006/v1/traces"},
		{name: "base variable", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, want: "http://c:4318/v1/traces", from: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "traces variable as is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/custom"}, want: "http://b:2/custom", from: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{name: "flag wins", flag: "http://f:3", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1"}, want: "http://f:3/v1/traces", from: "--otlp"},
		{name: "sdk disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_SDK_DISABLED": "true"}, want: ""},
		{name: "exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_TRACES_EXPORTER": "none"}, want: ""},
		{name: "flag despite disabled", flag: "http://f:3", env: map[string]string{"OTEL_SDK_DISABLED": "true"}, want: "http://f:3/v1/traces"},
		{name: "not a URL", flag: "localhost:4318", err: "want an http:// or https:// URL"},
		{name: "credentials in URL", flag: "http://u:p@c:4318", err: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "grpc", flag: "http://c:4317", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: "not grpc"},
		{name: "content alone", content: true, err: "--otlp-content goes with --otlp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := telemetry.Resolve(tc.flag, tc.content, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || s.Endpoint != tc.want || tc.from != "" && s.From != tc.from {
				t.Errorf("Resolve = %+v, %v; want endpoint %q from %q", s, err, tc.want, tc.from)
			}
		})
	}
}

// The collector's credentials in OTEL_EXPORTER_OTLP_HEADERS are secrets.
func TestHeaderSecrets(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20cGs6c2s=,x-tenant=ab"}
	got := telemetry.HeaderSecrets(func(k string) string { return env[k] })
	if len(got) != 1 || got[0] != "Basic cGs6c2s=" {
		t.Errorf("HeaderSecrets = %q, want the Authorization value (x-tenant is too short to mask)", got)
	}
}
