package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// BenchmarkKeypressToFrame is issue 22's target: N learners connected at
// once over real SSH clients at 120×34, each with a lesson stepped to its
// answer (full panes), all pressing a key at the same moment; the time
// from a learner's key leaving their client to the last byte of the frame
// it causes reaching that client. The key is ? (the help overlay, opened
// then closed): every press redraws most of the screen.
//
// Reported: p50 and p99 over every press of every learner; cpu-ms/frame,
// the CPU time of the whole process (server and clients: one machine)
// divided by the frames, which a busy machine does not inflate the way it
// does the latencies; and the heap and resident memory per learner
// (server and client together, so an upper bound for the server).
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
	clients := make([]*benchClient, n)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = r.benchLearner("learner" + strconv.Itoa(i))
	}
	for _, c := range clients {
		wg.Go(func() {
			c.waitFor("Enter: send the tour lesson")
			c.keys("\r")
			c.waitFor("press space to take it")
			c.keys("c")
			c.waitFor("answer delivered to ui") // the stepper has the keys (Enter gave them to it)
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	heapPer := float64(after.HeapInuse-min(before.HeapInuse, after.HeapInuse)) / float64(n) / (1 << 20)
	rssPer := float64(rss()-min(rssBefore, rss())) / float64(n) / (1 << 20)
	for _, c := range clients {
		c.measure()
	}

	lat := make([][]time.Duration, n)
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		for i, c := range clients {
			wg.Go(func() {
				if d, ok := c.press("?"); ok {
					lat[i] = append(lat[i], d)
				}
			})
		}
		wg.Wait()
	}
	cpu = cpuTime() - cpu
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
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(all)), "cpu-ms/frame")
	b.ReportMetric(heapPer, "heap-MB/learner")
	b.ReportMetric(rssPer, "rss-MB/learner")
}

// benchClient is one learner's ssh client with a 120×34 PTY, cheaper than
// the tests' terminal: while the lesson runs it strips only what arrived
// since it last looked, and once measuring it keeps nothing, only noting
// when each frame's last byte arrives.
type benchClient struct {
	b      *testing.B
	client *gossh.Client
	sess   *gossh.Session
	in     io.Writer

	mu     sync.Mutex
	raw    []byte         // what arrived while the lesson ran
	seen   int            // raw[:seen] has been searched
	tail   []byte         // the last bytes of the output, for a frame end split across writes
	frames chan time.Time // when measuring: the arrival of each frame's last byte
}

// benchHeight is the benchmark's terminal height: Bubble Tea ends each
// frame of an alt-screen program by putting the cursor on its last line.
const benchWidth, benchHeight = 120, 34

var frameEnd = []byte(ansi.CursorPosition(0, benchHeight))

// benchLearner connects as user with the passphrase and opens a shell.
func (r *room) benchLearner(user string) *benchClient {
	b := r.t.(*testing.B)
	b.Helper()
	cl, err := r.dial(user, gossh.Password(r.opts.Passphrase))
	if err != nil {
		b.Fatalf("%s: %v", user, err)
	}
	sess, err := cl.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", benchHeight, benchWidth, gossh.TerminalModes{}); err != nil {
		b.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	c := &benchClient{b: b, client: cl, sess: sess, in: in}
	sess.Stdout = writerFunc(c.write)
	sess.Stderr = writerFunc(c.write)
	if err := sess.Shell(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close(); cl.Close() })
	return c
}

func (c *benchClient) write(p []byte) (int, error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frames == nil {
		c.raw = append(c.raw, p...)
		return len(p), nil
	}
	// A frame's end may straddle two writes: look at the tail of the
	// last one too.
	buf := append(c.tail, p...)
	for {
		i := bytes.Index(buf, frameEnd)
		if i < 0 {
			break
		}
		select {
		case c.frames <- now:
		default: // frames nobody waits for (press drains them first)
		}
		buf = buf[i+len(frameEnd):]
	}
	c.tail = append(c.tail[:0], buf[max(len(buf)-len(frameEnd)+1, 0):]...)
	return len(p), nil
}

// waitFor waits until the output holds want, for as long as a loaded
// machine needs to run 30 lessons (this is the setup, not the measure).
func (c *benchClient) waitFor(want string) {
	c.b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c.mu.Lock()
		from := max(c.seen-4096, 0) // and what straddles the last look, escapes and all
		found := strings.Contains(ansi.Strip(string(c.raw[from:])), want)
		c.seen = len(c.raw)
		c.mu.Unlock()
		if found {
			return
		}
		if time.Now().After(deadline) {
			c.b.Fatalf("the terminal never showed %q", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// measure stops keeping the output and starts timing frames.
func (c *benchClient) measure() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw = nil
	c.frames = make(chan time.Time, 64)
}

func (c *benchClient) keys(s string) {
	if _, err := c.in.Write([]byte(s)); err != nil {
		c.b.Error(err)
	}
}

// press sends key and waits for the frame it causes: the time from the
// write to that frame's last byte.
func (c *benchClient) press(key string) (time.Duration, bool) {
	for len(c.frames) > 0 { // a frame already under way is not this key's
		<-c.frames
	}
	start := time.Now()
	c.keys(key)
	select {
	case end := <-c.frames:
		return end.Sub(start), true
	case <-time.After(10 * time.Second):
		c.b.Errorf("no frame 10s after a key")
		return 0, false
	}
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
	worst := make([]time.Duration, len(tour)) // by transition of the tour
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		for k, t := range tour {
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
						d := time.Since(start)
						mu.Lock()
						all = append(all, d)
						worst[k] = max(worst[k], d)
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
	cpu = cpuTime() - cpu
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	// Where the tail comes from: each transition's slowest follower.
	var by strings.Builder
	for k, t := range tour {
		fmt.Fprintf(&by, " %d %s %.0fms;", k+1, t.Edge, float64(worst[k].Microseconds())/1000)
	}
	b.Logf("slowest follower by transition:%s", by.String())
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
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return glassbox.NewPerson() })
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
