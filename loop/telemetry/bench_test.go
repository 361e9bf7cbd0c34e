package telemetry_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// BenchmarkCollector times one event of the tour lesson (a list, a read,
// an answer: 9 spans, 3 model calls through the SDK and the capture) on
// one run, with export off, to a collector that answers, to one that
// refuses every connection, and to one that takes the connection and never
// answers. The conversation grows with every event, so compare the
// variants at the same -benchtime Nx, each in its own process, alternated
// (go test runs -count's repeats of one variant back to back). Besides
// ns/op it reports the process's CPU time per event (cpu-µs/op), the
// exporter's goroutines included, and the spans dropped. Closing the
// exporter (at most headless.TelemetryWait at exit) is outside the timing;
// TestCloseIsBounded bounds it.
//
//	go test -c -o /tmp/telemetry.test ./loop/telemetry
//	for i in 1 2 3 4 5 6 7 8 9 10; do for v in off answering refusing hanging; do
//	  /tmp/telemetry.test -test.run '^$' -test.bench "Collector/^$v\$" -test.benchtime 30x
//	done; done | sed 's/-2 / /' | benchstat -col /Collector -
//
// docs/standards.md has the figures.
func BenchmarkCollector(b *testing.B) {
	ok := httptest.NewServer(&collector{})
	defer ok.Close()
	hang := hangingListener(b)
	defer hang.Close()
	for _, tc := range []struct{ name, endpoint string }{
		{"off", ""},
		{"answering", ok.URL},
		{"refusing", refusingURL(b)},
		{"hanging", "http://" + hang.Addr().String()},
	} {
		b.Run(tc.name, func(b *testing.B) { benchEvents(b, tc.endpoint) })
	}
}

func benchEvents(b *testing.B, endpoint string) {
	c := agentrun.Defaults(true)
	c.Offline, c.Lang, c.Version, c.OTLP = true, "en", "bench", endpoint
	c.ApplyEnv(func(string) string { return "" })
	if err := c.StartTelemetry(func(string) string { return "" }); err != nil {
		b.Fatal(err)
	}
	req := request(b, "tour")
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return yes{} })
	if err != nil {
		b.Fatal(err)
	}
	defer agentrun.CloseAll(runs)
	e := runs[0].Engine
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Submit(loop.Event{Source: "cli", Type: "user_input", Data: req})
		for {
			if _, err := e.Step(context.Background()); errors.Is(err, loop.ErrIdle) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	if c.Telemetry != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		s := c.Telemetry.Close(ctx)
		cancel()
		b.ReportMetric(float64(s.DroppedTotal()), "dropped")
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// refusingURL is an address on loopback where nothing listens.
func refusingURL(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// hangingListener accepts connections and never answers on them.
func hangingListener(tb testing.TB) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				mu.Lock()
				for _, c := range conns {
					c.Close()
				}
				mu.Unlock()
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return l
}
