package serve

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// call is a model call in flight with n chunks of its reply arrived.
func call(n int) providers.Exchange {
	ex := providers.Exchange{Method: "POST", URL: "http://gemini.offline.invalid/"}
	for i := range n {
		ex.Chunks = append(ex.Chunks, providers.Chunk{Data: []byte{byte('a' + i)}})
	}
	return ex
}

func next(t *testing.T, f *Follower) glassbox.FollowBatch {
	t.Helper()
	b, ok := f.Next(context.Background())
	if !ok {
		t.Fatal("Next ended")
	}
	return b
}

// A follower whose consumer is blocked while the instructor's reply streams
// in gets, when it reads again, every transition it missed, in order, and
// only the latest state of the call in flight after them: the chunks
// coalesce, the transitions never do, and a call the next transition
// already holds is not handed out at all. A follower that keeps up sees
// every chunk.
func TestChunksCoalesceForALaggingFollower(t *testing.T) {
	b := NewBroadcast(nil)
	b.liveEvery = 0
	lagging, _ := b.Follow()
	keeping, _ := b.Follow()
	var kept []int // the chunks the follower that keeps up saw, call by call

	b.Publish(loop.Transition{Seq: 1})
	if got := next(t, keeping); len(got.Transitions) != 1 || got.Live != nil {
		t.Fatalf("keeping up: %+v", got)
	}
	for n := 0; n <= 3; n++ {
		b.PublishLive(call(n))
		got := next(t, keeping)
		if got.Live == nil || len(got.Transitions) != 0 {
			t.Fatalf("keeping up, chunk %d: %+v", n, got)
		}
		kept = append(kept, len(got.Live.Chunks))
	}
	if !slices.Equal(kept, []int{0, 1, 2, 3}) {
		t.Fatalf("the follower that keeps up saw the call grow as %v, want every chunk", kept)
	}

	// The lagging follower reads now: step 1, and the call as it stands.
	got := next(t, lagging)
	if seqs := seqsOf(got.Transitions); !slices.Equal(seqs, []int{1}) || got.Live == nil || len(got.Live.Chunks) != 3 {
		t.Fatalf("lagging: transitions %v, live %v; want [1] and the call with its 3 chunks", seqs, got.Live)
	}

	// It lags again across a transition: the call of step 2 (already in
	// it) is dropped, the one after it is handed over as it stands.
	b.PublishLive(call(4))
	b.Publish(loop.Transition{Seq: 2})
	b.PublishLive(call(1))
	b.PublishLive(call(2))
	got = next(t, lagging)
	if seqs := seqsOf(got.Transitions); !slices.Equal(seqs, []int{2}) || got.Live == nil || len(got.Live.Chunks) != 2 {
		t.Fatalf("lagging across a step: transitions %v, live %v; want [2], then the next call with 2 chunks", seqs, got.Live)
	}
	b.Publish(loop.Transition{Seq: 3})
	b.Publish(loop.Transition{Seq: 4})
	got = next(t, lagging)
	if seqs := seqsOf(got.Transitions); !slices.Equal(seqs, []int{3, 4}) || got.Live != nil {
		t.Fatalf("after the call ended: transitions %v, live %v; want [3 4] and no call in flight", seqs, got.Live)
	}
	// The call it was handed is not handed again.
	b.PublishLive(call(5))
	if got = next(t, lagging); got.Live == nil || len(got.Live.Chunks) != 5 {
		t.Fatalf("a new call: %+v", got)
	}
	b.End()
	if _, ok := lagging.Next(context.Background()); ok {
		t.Fatal("Next handed the same call out twice, or did not end")
	}
}

func seqsOf(ts []loop.Transition) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.Seq)
	}
	return out
}

// instructorRun takes the tour offline with a session file, as an
// instructor's glass box would, publishing every transition to b without
// its exchanges (so a follower that has them got them from the file).
func instructorRun(t *testing.T, b *Broadcast) (path string, taken []loop.Transition) {
	t.Helper()
	c := agentrun.Defaults(false)
	c.Offline, c.SimLatency = true, 0
	c.Session = filepath.Join(t.TempDir(), "instructor.jsonl")
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return glassbox.NewPerson() })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agentrun.CloseAll(runs) })
	e := runs[0].Engine
	e.Submit(loop.Event{Source: "ui", Type: "user_input", Data: "Give me a tour of this project: list the files, then explain what hello.py does."})
	for len(taken) == 0 || e.State() != loop.WaitingForEvent {
		tr, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, tr)
		tr.Exchanges = nil
		b.Publish(tr)
	}
	return c.Session, taken
}

// A follower that falls too far behind is told so and resynchronised from
// the instructor's session file — the steps it missed as the file has them,
// payloads included and masked once more — then goes on with the broadcast.
func TestAFollowerTooFarBehindIsResyncedFromTheSession(t *testing.T) {
	b := NewBroadcast(nil)
	b.resyncAfter = 5
	f, _ := b.Follow()
	path, taken := instructorRun(t, b)
	// The model's name is in every request: as a "secret" it shows that
	// the exchanges read back were masked again on the way.
	b.Resync(path, "", []string{"gemini-2.5-flash"})
	before, _ := os.Stat(path)

	got := next(t, f)
	if !strings.Contains(got.Note, "fell 14 steps behind") || !strings.Contains(got.Note, "resynchronised from their session file") {
		t.Fatalf("the follower was not told: note %q", got.Note)
	}
	if want := seqsOf(taken); !slices.Equal(seqsOf(got.Transitions), want) {
		t.Fatalf("resynchronised steps %v, want %v", seqsOf(got.Transitions), want)
	}
	var exchanges int
	for _, tr := range got.Transitions {
		for _, x := range tr.Exchanges {
			exchanges++
			if strings.Contains(string(x.RequestBody)+x.URL, "gemini-2.5-flash") {
				t.Fatalf("step %d: an exchange read back from the session was not masked again", tr.Seq)
			}
		}
		if tr.Edge == loop.EdgeFinalAnswer && len(tr.Added) == 0 {
			t.Fatalf("step %d came without its messages", tr.Seq)
		}
	}
	if exchanges == 0 {
		t.Fatal("no exchange came with the steps: they were not read from the session file")
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Fatal("resynchronising wrote to the instructor's session file")
	}
	// Then the broadcast goes on from there.
	b.Publish(loop.Transition{Seq: 15})
	if got := next(t, f); !slices.Equal(seqsOf(got.Transitions), []int{15}) || got.Note != "" {
		t.Fatalf("after the resync: %v, note %q", seqsOf(got.Transitions), got.Note)
	}
}

// When the session file cannot be read, the follower is told why and
// catches up from the broadcast's own record: nothing is skipped silently.
func TestResyncWithoutTheSessionFileSaysWhy(t *testing.T) {
	b := NewBroadcast(nil)
	b.resyncAfter = 5
	f, _ := b.Follow()
	path, taken := instructorRun(t, b)
	b.Resync(path+".gone", "", nil)
	got := next(t, f)
	if !strings.Contains(got.Note, "their session file could not be read") || !strings.Contains(got.Note, "every step kept") {
		t.Fatalf("note %q", got.Note)
	}
	if !slices.Equal(seqsOf(got.Transitions), seqsOf(taken)) {
		t.Fatalf("caught up with %v, want %v", seqsOf(got.Transitions), seqsOf(taken))
	}
}

// Chunks that arrive faster than a follower is handed the call in flight
// (liveEvery) wait: they coalesce instead of waking the follower's program
// for each one.
func TestTheCallInFlightIsHandedAtMostSoOften(t *testing.T) {
	for _, every := range []time.Duration{time.Hour, 0} {
		b := NewBroadcast(nil)
		b.liveEvery = every
		f, _ := b.Follow()
		b.PublishLive(call(1))
		if got := next(t, f); got.Live == nil {
			t.Fatalf("liveEvery %v: the first call in flight was not handed over", every)
		}
		b.PublishLive(call(2))
		done, cancel := context.WithCancel(context.Background())
		cancel() // Next returns at once with what it may hand over now
		got, ok := f.Next(done)
		if every > 0 && (ok || got.Live != nil) {
			t.Fatalf("a chunk right after the last one was handed over at once (%v, %v)", ok, got.Live)
		}
		if every == 0 && (!ok || got.Live == nil || len(got.Live.Chunks) != 2) {
			t.Fatalf("without a pace the chunk was not handed over (%v, %v)", ok, got.Live)
		}
		// A transition is never held back by the pace.
		b.Publish(loop.Transition{Seq: 1})
		if got, ok := f.Next(done); !ok || len(got.Transitions) != 1 {
			t.Fatalf("liveEvery %v: a transition was held back (%v, %v)", every, ok, got.Transitions)
		}
	}
}

// The notes a follower is told are in the room's language.
func TestResyncNoteIsInTheRoomsLanguage(t *testing.T) {
	b := NewBroadcast(nil)
	b.resyncAfter, b.lang = 5, lang.JA
	f, _ := b.Follow()
	path, _ := instructorRun(t, b)
	b.Resync(path, "", nil)
	if got := next(t, f); !strings.Contains(got.Note, "講師から 14 ステップ遅れました。講師のセッションファイルから同期し直しました（ステップ #1〜#14）") {
		t.Fatalf("note %q", got.Note)
	}
}
