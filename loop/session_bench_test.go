package loop

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
)

// BenchmarkStepWithSession is BenchmarkStep with the session file written
// at every transition (no fsync: each line reaches the operating system).
func BenchmarkStepWithSession(b *testing.B) {
	e := benchEngine(b)
	path := filepath.Join(b.TempDir(), "s.jsonl")
	w, err := session.Create(path, session.Header{Started: time.Now(), Runs: []session.RunInfo{{Provider: "instant"}}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	e.SetJournal(NewJournal(w, "", b.TempDir()))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Step(ctx); errors.Is(err, ErrIdle) {
			e.Submit(Event{Source: "bench", Type: "user_input", Data: "read a.txt"})
		} else if err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Journal().Err(); err != nil {
		b.Fatal(err)
	}
}
