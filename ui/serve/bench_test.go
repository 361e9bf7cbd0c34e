package serve

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui"
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
			tm.waitFor("answer delivered to ui") // the stepper has the keys (Enter gave them to it)
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

// BenchmarkFollowerFanout is issue 22's other target: N followers of one
// instructor over real SSH clients; the time from the instructor's
// transition being published to the first bytes of the frame showing it
// reaching each follower. The transitions are a real offline tour, taken
// beforehand and published one at a time (each b.N iteration publishes
// the tour's 14 transitions, one after another, each waited for by every
// follower).
//
//	go test ./ui/serve -run '^$' -bench FollowerFanout -benchtime 2x
func BenchmarkFollowerFanout(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) { benchFanout(b, n, false) })
	}
	// The same without shared frames (follow_share.go): every follower
	// draws its own, as before they were shared.
	b.Run("unshared/followers=100", func(b *testing.B) { benchFanout(b, 100, true) })
}

func benchFanout(b *testing.B, n int, unshared bool) {
	r := newRoom(b, Options{MaxLearners: n})
	tour := tourTransitions(b)
	bc := NewBroadcast(nil)
	bc.unshared = unshared
	r.srv.opts.Broadcast = bc
	terms := make([]*terminal, n)
	for i := range terms {
		terms[i] = r.learn(FollowUser)
	}
	var wg sync.WaitGroup
	for _, tm := range terms {
		wg.Go(func() { tm.waitFor("FOLLOWING the instructor") })
	}
	wg.Wait()
	for _, tm := range terms {
		tm.watchFrames()
	}
	var mu sync.Mutex
	var all []time.Duration
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		for _, t := range tour {
			for _, tm := range terms {
				select {
				case <-tm.frames:
				default:
				}
			}
			start := time.Now()
			bc.Publish(t)
			for i, tm := range terms {
				wg.Go(func() {
					select {
					case <-tm.frames:
						mu.Lock()
						all = append(all, time.Since(start))
						mu.Unlock()
					case <-time.After(10 * time.Second):
						b.Errorf("follower %d: no frame 10s after a transition", i)
					}
				})
			}
			wg.Wait()
		}
	}
	b.StopTimer()
	cpu = processCPU() - cpu
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	q := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	// The CPU time of the whole process (server and every SSH client) per
	// transition fanned out: what a busy machine does not inflate. On 2
	// cores, a transition cannot reach every follower sooner than half of it.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*len(tour)), "cpu-ms/transition")
}

// tourTransitions are the tour lesson's transitions, taken offline.
func tourTransitions(b testing.TB) []loop.Transition {
	c := agentrun.Defaults(true)
	c.Offline = true
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return ui.NewPerson() })
	if err != nil {
		b.Fatal(err)
	}
	defer agentrun.CloseAll(runs)
	e := runs[0].Engine
	e.Submit(loop.Event{Source: "ui", Type: "user_input", Data: "Give me a tour of this project: list the files, then explain what hello.py does."})
	var ts []loop.Transition
	for len(ts) == 0 || e.State() != loop.WaitingForEvent {
		t, err := e.Step(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		ts = append(ts, t)
	}
	return ts
}
