package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// BenchmarkTUIMemory is issue 9's memory target: the glass box driving an
// offline session of the iteration-limit lesson, every transition drawn,
// with its session on disk, until the conversation holds n messages (two
// per model call). It reports the peak Go heap seen while it ran and the
// process's peak resident memory (Linux: VmHWM, reset when the run starts);
// the target is under 150 MB for 10,000 messages (the metrics are in MiB,
// 1 MiB = 1.048576 MB):
//
//	go test -run XXX -bench TUIMemory -benchtime 1x .
//
// GLASSBOX_BENCH_LIVE=1 also reports the largest live heap (sampled after
// a forced GC every half second, which slows the run); GLASSBOX_BENCH_HEAP=FILE
// writes a heap profile at the end for go tool pprof.
func BenchmarkTUIMemory(b *testing.B) {
	for _, messages := range []int{1000, 4000, 10_000} {
		b.Run(strconv.Itoa(messages)+"-messages", func(b *testing.B) {
			b.Setenv("GEMINI_API_KEY", "")
			b.Setenv("GOOGLE_API_KEY", "")
			b.Setenv("TMPDIR", b.TempDir())
			b.Setenv("XDG_STATE_HOME", b.TempDir())
			for b.Loop() {
				resetPeakRSS()
				peak := drivePeak(b, messages/2)
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				if rss := peakRSS(); rss > 0 {
					b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
				}
			}
		})
	}
}

// resetPeakRSS starts the kernel's count of the process's peak resident
// memory again (Linux 4.0 and later), so each size is measured alone.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the process's peak resident memory in bytes since the last
// resetPeakRSS (0 where /proc does not say).
func peakRSS() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// drivePeak runs the TUI's model through iterations model calls and
// returns the largest heap in use it saw.
func drivePeak(b *testing.B, iterations int) uint64 {
	b.Helper()
	var p *program
	var runs []*agentrun.Run
	peak := sampleHeap(b, func() {
		p, runs, _ = openGlassBox(b, "--offline", "--sim-latency", "0", "--lesson", "iteration-limit", "--max-iterations", strconv.Itoa(iterations))
		p.send(tea.KeyMsg{Type: tea.KeyEnter}) // the lesson's request
		p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}})
	})
	runtime.KeepAlive(p.m)
	if got := len(runs[0].Engine.History()); got < 2*iterations {
		b.Fatalf("the conversation holds %d messages, want %d", got, 2*iterations)
	}
	return peak
}

// BenchmarkTUIResumeMemory is the other way to a long session in the glass
// box: one of n messages, written headless, reopened with --resume (every
// past step read back), then 60 steps back through time with the request
// shown, each payload read back from beside the session file. It reports
// the peak heap and peak resident memory of the reopening and the walk:
//
//	go test -run XXX -bench TUIResumeMemory -benchtime 1x -timeout 60m .
func BenchmarkTUIResumeMemory(b *testing.B) {
	const messages = 10_000
	b.Setenv("GEMINI_API_KEY", "")
	b.Setenv("GOOGLE_API_KEY", "")
	b.Setenv("TMPDIR", b.TempDir())
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	file := filepath.Join(b.TempDir(), "long.jsonl")
	code := runHeadless(b.Context(), []string{"--offline", "--lesson", "iteration-limit", "--max-iterations", strconv.Itoa(messages / 2), "--session", file},
		noSleep, strings.NewReader(""), io.Discard, io.Discard)
	if code != exitHalted {
		b.Fatalf("writing the session: exit %d", code)
	}
	debug.SetGCPercent(100) // glassbox run's own setting is not the glass box's
	for b.Loop() {
		resetPeakRSS()
		var p *program
		peak := sampleHeap(b, func() {
			p, _, _ = openGlassBox(b, "--resume", file)
			p.send(tea.KeyMsg{Type: tea.KeyEsc}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'r'}})
			for range 60 {
				p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'['}})
			}
		})
		if v := ansi.Strip(p.m.View()); !strings.Contains(v, "◀ step") || !strings.Contains(v, "GenerateContent") {
			b.Fatalf("the walk back did not show a past request:\n%s", v)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		if rss := peakRSS(); rss > 0 {
			b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
		}
	}
}

// openGlassBox opens runs from glassbox's arguments and the glass box's
// model over them at 160×48, as the binary does, with its memory limit.
func openGlassBox(b testing.TB, args ...string) (*program, []*agentrun.Run, glassbox.Config) {
	b.Helper()
	c, _, err := loadConfig("glassbox", args, false, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.DefaultSession(os.Getenv); err != nil {
		b.Fatal(err)
	}
	glassbox.TuneMemory(os.Getenv) // as the binary does, before it opens the runs
	b.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	persons := map[string]*glassbox.Person{}
	runs, err := agentrun.OpenAll(b.Context(), c, func(name string) loop.Person {
		persons[name] = glassbox.NewPerson()
		return persons[name]
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { agentrun.CloseAll(runs) })
	cfg, err := glassbox.ConfigFor(c.Lesson, runs, persons)
	if err != nil {
		b.Fatal(err)
	}
	p := &program{m: glassbox.New(cfg), view: true}
	p.send(messages(p.m.Init())...)
	p.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	return p, runs, cfg
}

// sampleHeap runs work and returns the largest heap in use seen meanwhile
// (sampled every 20 ms). With GLASSBOX_BENCH_LIVE it also reports the
// largest live heap, and with GLASSBOX_BENCH_HEAP=FILE it writes a heap
// profile when work is done.
func sampleHeap(b *testing.B, work func()) uint64 {
	b.Helper()
	runtime.GC()
	var peak, live atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for n := 0; ; n++ {
			if n%25 == 24 && os.Getenv("GLASSBOX_BENCH_LIVE") != "" {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > live.Load() {
					live.Store(ms.HeapAlloc)
				}
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	work()
	close(stop)
	<-done
	if f := os.Getenv("GLASSBOX_BENCH_HEAP"); f != "" {
		runtime.GC()
		if w, err := os.Create(f); err == nil {
			pprof.WriteHeapProfile(w)
			w.Close()
		}
	}
	if l := live.Load(); l > 0 {
		b.ReportMetric(float64(l)/(1<<20), "live-heap-MiB")
	}
	return peak.Load()
}
