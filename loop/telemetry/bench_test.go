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
// an answer: 9 transitions, 3 model calls through the SDK and the capture)
// with export off, to a collector that answers, to one that refuses every
// connection, and to one that takes the connection and never answers.
// Sub-benchmarks run in turn, so -count N alternates them. Besides ns/op it
// reports the process's CPU time per event (cpu-µs/op), which includes
// the exporter's own goroutines. Closing the exporter (at most
// headless.TelemetryWait at exit) is outside the timing; TestHangingCollector
// bounds it.
//
//	go test ./loop/telemetry -run '^$' -bench Collector -benchtime 200x -count 6
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
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return yes{} })
		if err != nil {
			b.Fatal(err)
		}
		e := runs[0].Engine
		b.StartTimer()
		e.Submit(loop.Event{Source: "cli", Type: "user_input", Data: req})
		for {
			if _, err := e.Step(context.Background()); errors.Is(err, loop.ErrIdle) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		agentrun.CloseAll(runs)
		b.StartTimer()
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
