package loop

import (
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
	benchSteps(b, e)
	if err := e.Journal().Err(); err != nil {
		b.Fatal(err)
	}
}
