package serve

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkKeypressToFrame is issue 22's target: N learners connected at
// once over real SSH clients, each with a lesson stepped to its answer
// (full panes), all pressing a key at the same moment; the time from a
// learner's keypress to the first bytes of the frame it causes reaching
// their client. The key is ? (the help overlay, opened then closed): every
// press redraws the whole screen. Reported: p50 and p99 over every press
// of every learner, and the heap and resident memory per learner (server
// and client together, so an upper bound for the server).
//
//	go test ./ui/serve -run '^$' -bench KeypressToFrame -benchtime 20x
func BenchmarkKeypressToFrame(b *testing.B) {
	for _, n := range []int{1, 10, 30} {
		b.Run(fmt.Sprintf("learners=%d", n), func(b *testing.B) { benchRoom(b, n) })
	}
}

func benchRoom(b *testing.B, n int) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore := rss()

	r := newRoom(b, Options{MaxLearners: n})
	terms := make([]*terminal, n)
	var wg sync.WaitGroup
	for i := range terms {
		terms[i] = r.learn("learner" + strconv.Itoa(i))
	}
	for _, tm := range terms {
		wg.Go(func() {
			tm.waitFor("Enter: send the tour lesson")
			tm.keys("\r")
			tm.waitFor("press space to take it")
			tm.keys("c")
			tm.waitFor("answer delivered to ui")
			tm.keys("\x1b")
			tm.waitFor("space/n step")
		})
	}
	wg.Wait()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	heapPer := float64(after.HeapInuse-min(before.HeapInuse, after.HeapInuse)) / float64(n) / (1 << 20)
	rssPer := float64(rss()-min(rssBefore, rss())) / float64(n) / (1 << 20)
	for _, tm := range terms {
		tm.watchFrames()
	}

	lat := make([][]time.Duration, n)
	b.ResetTimer()
	for range b.N {
		for i, tm := range terms {
			wg.Go(func() {
				select { // a frame already under way is not this key's
				case <-tm.frames:
				default:
				}
				start := time.Now()
				tm.keys("?")
				select {
				case <-tm.frames:
					lat[i] = append(lat[i], time.Since(start))
				case <-time.After(10 * time.Second):
					b.Errorf("learner %d: no frame 10s after a key", i)
				}
			})
		}
		wg.Wait()
	}
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	q := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(heapPer, "heap-MB/learner")
	b.ReportMetric(rssPer, "rss-MB/learner")
}

// rss is the process's resident memory in bytes (0 where /proc is absent).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}
