package tap_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/tap"
)

// sseService streams a Gemini reply of n events, each flushed as written.
func sseService(n int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		f := w.(http.Flusher)
		for i := range n {
			finish := ""
			if i == n-1 {
				finish = `,"finishReason":"STOP"`
			}
			fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"token %d \"}]}%s}]}\r\n\r\n", i, finish)
			f.Flush()
		}
	}))
}

// timedCall posts body to url and returns the time to the first event and
// to the end of the reply.
func timedCall(b *testing.B, c *http.Client, url, body string) (first, whole time.Duration) {
	start := time.Now()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	first = time.Since(start)
	io.Copy(io.Discard, r)
	resp.Body.Close()
	return first, time.Since(start)
}

// percentile is the p-th percentile of ds (sorted in place).
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// passThroughBench alternates a direct call and the same call through a
// running tap (nothing held), in one run, and reports the time to the
// first chunk and to the end at p50 and p99 for each, and what the tap
// adds at p99.
func passThroughBench(b *testing.B, body string, bps ...breakpoint.Breakpoint) {
	up := sseService(20)
	defer up.Close()
	x := startTap(&testing.T{}, tap.Options{Upstream: up.URL, Mode: tap.Running, Breakpoints: bps})
	path := "/v1beta/models/m:streamGenerateContent?alt=sse"
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	timedCall(b, c, up.URL+path, body) // warm the connections
	timedCall(b, c, x.URL+path, body)
	var dFirst, dWhole, tFirst, tWhole []time.Duration
	b.ResetTimer()
	for range b.N {
		f, w := timedCall(b, c, up.URL+path, body)
		dFirst, dWhole = append(dFirst, f), append(dWhole, w)
		f, w = timedCall(b, c, x.URL+path, body)
		tFirst, tWhole = append(tFirst, f), append(tWhole, w)
	}
	b.StopTimer()
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(percentile(dFirst, 0.5)), "direct-first-p50-µs")
	b.ReportMetric(us(percentile(tFirst, 0.5)), "tap-first-p50-µs")
	b.ReportMetric(us(percentile(dFirst, 0.99)), "direct-first-p99-µs")
	b.ReportMetric(us(percentile(tFirst, 0.99)), "tap-first-p99-µs")
	b.ReportMetric(us(percentile(dWhole, 0.99)), "direct-whole-p99-µs")
	b.ReportMetric(us(percentile(tWhole, 0.99)), "tap-whole-p99-µs")
	b.ReportMetric(us(percentile(tFirst, 0.99)-percentile(dFirst, 0.99)), "added-first-p99-µs")
	b.ReportMetric(us(percentile(tWhole, 0.99)-percentile(dWhole, 0.99)), "added-whole-p99-µs")
	// The recorder takes the calls after they are answered: let it finish
	// before the tap closes, so its work is not left out of a profile.
	waitFor(&testing.T{}, "the recorder", func() bool { return len(x.steps()) >= 4*(b.N+1) })
}

// BenchmarkPassThrough: a Gemini stream of 20 events, direct and through
// the tap alternately (target: the tap adds at most 2 ms at p99 to the
// first chunk and to the whole call).
func BenchmarkPassThrough(b *testing.B) { passThroughBench(b, geminiBody) }

// BenchmarkPassThroughBreakpoint: the same, running with a breakpoint in
// force that matches nothing: each reply is read whole before it is
// delivered, since a breakpoint judges a whole reply (docs/tap.md says so).
func BenchmarkPassThroughBreakpoint(b *testing.B) {
	bps, err := breakpoint.ParseAll([]string{"tool=run_shell_command"})
	if err != nil {
		b.Fatal(err)
	}
	passThroughBench(b, geminiBody, bps...)
}

// BenchmarkPassThroughOneMiB: the same with a 1 MiB request body.
func BenchmarkPassThroughOneMiB(b *testing.B) {
	body := strings.Replace(geminiBody, "list the files", strings.Repeat("a word ", (1<<20)/7), 1)
	passThroughBench(b, body)
}
