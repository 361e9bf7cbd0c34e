package serve

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Broadcast is the instructor's run as its followers see it, after the
// original design's broadcaster: transitions are critical events, kept for
// the run's life and never dropped — a follower reads from its own place in
// the record, so one that lags gets what it missed together, in order, in
// its next frame; the model call in flight (its request and the chunks of
// its reply so far) is a progress event, and a follower that lags gets only
// the latest. One more than resyncAfter transitions behind is told so and
// resynchronised from the instructor's session file.
type Broadcast struct {
	mu   sync.Mutex
	log  []*entry
	live *liveCall // the model call in flight; nil between calls
	gen  int       // counts PublishLive calls: a follower's place in the progress events
	// wake is closed (and replaced) by every Publish, PublishLive and End.
	wake      chan struct{}
	ended     bool
	why       string // why the room ended with the run (EndRoom), "" when only the run did
	told      int    // followers told of the end (Next returned !ok)
	followers int
	changed   chan struct{} // told (never blocking) when followers changes

	// src is where a follower too far behind is resynchronised from: the
	// instructor's session file (Resync sets it); zero: from the record
	// kept here.
	src resyncSource
	// resyncAfter is how far behind a follower may fall before it is
	// told and resynchronised from the session.
	resyncAfter int
	// lang is the language of the notes followers are told.
	lang lang.Lang
	// places are the glass boxes followers in the same state share
	// (follow_share.go).
	places places
	// unshared: every follower updates and draws its own glass box (the
	// benchmark's comparison).
	unshared bool
	// liveEvery is the least time between two progress events handed to
	// one follower: chunks arriving faster coalesce (the latest wins), so
	// a stream does not wake every follower's program for each chunk.
	liveEvery time.Duration
}

// entry is one transition of the record, with its wire form made once
// for every follower that reads it over the network (wire.go).
type entry struct {
	t    loop.Transition
	once sync.Once
	line []byte
}

// liveCall is the instructor's model call in flight: it belongs to the
// step after the first `after` transitions.
type liveCall struct {
	after int
	gen   int
	ex    providers.Exchange
	once  sync.Once
	line  []byte
}

type resyncSource struct {
	path, run string
	mask      *providers.Masker
}

// resyncAfter is how far behind a follower may fall, by default.
const resyncAfter = 64

// liveEvery is how often at most a follower is handed the call in flight:
// ten times a second, enough to watch a reply grow.
const liveEvery = 100 * time.Millisecond

// Changed says the number of followers has changed (glassbox.Config.Changed).
func (b *Broadcast) Changed() <-chan struct{} { return b.changed }

func (b *Broadcast) tell() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// NewBroadcast starts a broadcast with the steps the run already took (a
// resumed session's past).
func NewBroadcast(past []loop.Transition) *Broadcast {
	b := &Broadcast{wake: make(chan struct{}), changed: make(chan struct{}, 1), resyncAfter: resyncAfter, liveEvery: liveEvery}
	b.places.seed = maphash.MakeSeed()
	for _, t := range past {
		b.log = append(b.log, &entry{t: t})
	}
	return b
}

// Resync names the instructor's session file (and run, "" for a single
// one): a follower that falls too far behind is resynchronised from it,
// read-only, every exchange masked once more with secrets.
func (b *Broadcast) Resync(path, run string, secrets []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.src = resyncSource{path: path, run: run, mask: providers.NewMasker(secrets...)}
}

// Publish adds the instructor's latest transition; the call in flight, if
// any, is in it now. It never blocks on a follower (the UI calls it:
// glassbox.Config.OnTransition).
func (b *Broadcast) Publish(t loop.Transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = append(b.log, &entry{t: t})
	b.live = nil
	b.wakeAll()
}

// PublishLive replaces the instructor's model call in flight with ex, as
// it stands now (glassbox.Config.OnWire). It never blocks on a follower.
func (b *Broadcast) PublishLive(ex providers.Exchange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	b.live = &liveCall{after: len(b.log), gen: b.gen, ex: ex}
	b.wakeAll()
}

func (b *Broadcast) wakeAll() {
	close(b.wake)
	b.wake = make(chan struct{})
}

// EndRoom says the instructor's run is over because the room has ended,
// and why (one of endReasons): a follow stream tells its follower so, and
// how to follow again.
func (b *Broadcast) EndRoom(why string) {
	b.mu.Lock()
	if !b.ended {
		b.why = why
	}
	b.mu.Unlock()
	b.End()
}

// roomWhy is why the room ended with the run, "" if it has not.
func (b *Broadcast) roomWhy() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.why
}

// End says the instructor's run is over.
func (b *Broadcast) End() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ended {
		b.ended = true
		close(b.wake)
	}
}

// Ended reports whether the instructor's run is over.
func (b *Broadcast) Ended() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ended
}

// Close ends the broadcast (End) and waits, at most grace, until every
// follower has been told, so that none sees its screen vanish without
// the reason: a follower's glass box says the run has ended, a stream
// ends with its end frame.
func (b *Broadcast) Close(grace time.Duration) {
	b.End()
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		all := b.told >= b.followers
		b.mu.Unlock()
		if all {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// What the last of them was told is on its way: a frame, a line.
	time.Sleep(min(grace, 100*time.Millisecond))
}

// Followers is how many follow now.
func (b *Broadcast) Followers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.followers
}

// Follower is one follower's place in the broadcast.
type Follower struct {
	b    *Broadcast
	next int // the next transition of the record to hand out
	gen  int // the last progress event handed out
	last int // the Seq of the last transition handed out
	at   time.Time
	told bool // it was told the run ended
	once sync.Once
}

// Follow adds a follower. It starts with every step so far (past); Next
// brings the later ones; Close when it leaves.
func (b *Broadcast) Follow() (f *Follower, past []loop.Transition) {
	f, log := b.join()
	past = make([]loop.Transition, len(log))
	for i, e := range log {
		past[i] = e.t
	}
	return f, past
}

// join is Follow with the record as kept (for the follow stream).
func (b *Broadcast) join() (*Follower, []*entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.followers++
	b.tell()
	f := &Follower{b: b, next: len(b.log)}
	if n := len(b.log); n > 0 {
		f.last = b.log[n-1].t.Seq
	}
	return f, slices.Clone(b.log)
}

// Close takes the follower out of the count.
func (f *Follower) Close() {
	f.once.Do(func() {
		f.b.mu.Lock()
		f.b.followers--
		if f.told {
			f.b.told--
		}
		f.b.tell()
		f.b.mu.Unlock()
	})
}

// Next blocks until there is something the follower has not seen, and
// returns all of it (glassbox.Follow.Next): every transition it missed, in
// order, then the call in flight as it stands now, if one started after
// them. ok is false once the broadcast has ended and everything was seen,
// or when ctx ends.
func (f *Follower) Next(ctx context.Context) (glassbox.FollowBatch, bool) {
	batch, ok := f.take(ctx)
	out := glassbox.FollowBatch{Note: batch.note, ID: batch.id()}
	for _, e := range batch.steps {
		out.Transitions = append(out.Transitions, e.t)
	}
	if l := batch.live; l != nil {
		ex := l.ex
		out.Live = &ex
	}
	return out, ok
}

// batch is what Next hands out, as the broadcast keeps it: the steps of
// the record up to to (or a resync's own), the call in flight.
type batch struct {
	steps    []*entry
	live     *liveCall
	note     string
	to       int
	resynced bool
}

// id is where a batch of the record leaves a follower: the steps of the
// record it has, and the call in flight it was handed last, if one is in
// flight (glassbox.FollowBatch.ID); "" for a resync, which is its own.
func (bt batch) id() string {
	if bt.resynced {
		return ""
	}
	gen := 0
	if bt.live != nil {
		gen = bt.live.gen
	}
	return fmt.Sprintf("%d/%d", bt.to, gen)
}

func (f *Follower) take(ctx context.Context) (out batch, ok bool) {
	b := f.b
	for {
		b.mu.Lock()
		if behind := len(b.log) - f.next; behind > b.resyncAfter && b.src.path != "" {
			b.mu.Unlock()
			return f.resync(behind), true
		}
		out.to = len(b.log)
		out.steps = append(out.steps, b.log[f.next:]...)
		f.next = len(b.log)
		if n := len(out.steps); n > 0 {
			f.last = out.steps[n-1].t.Seq
		}
		wait := f.offerLive(&out)
		if n := len(out.steps); n > b.resyncAfter {
			out.note = b.lang.F("you fell %d steps behind the instructor: caught up from the broadcast, every step kept", n)
		}
		if len(out.steps) > 0 || out.live != nil {
			b.mu.Unlock()
			return out, true
		}
		if b.ended {
			if !f.told {
				f.told = true
				b.told++
			}
			b.mu.Unlock()
			return out, false
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-wait:
		case <-ctx.Done():
			return out, false
		}
	}
}

// offerLive hands the call in flight out with out when f has every step
// before it and not yet this chunk of it, at most once every liveEvery
// unless steps go out too; otherwise it says when to look again (nil: no
// chunk for f to wait for). b.mu is held.
func (f *Follower) offerLive(out *batch) <-chan time.Time {
	b := f.b
	l := b.live
	if l == nil || l.after != f.next || l.gen == f.gen {
		return nil
	}
	if len(out.steps) > 0 || time.Since(f.at) >= b.liveEvery {
		out.live, f.gen, f.at = l, l.gen, time.Now()
		return nil
	}
	return time.After(b.liveEvery - time.Since(f.at))
}

// resync brings a follower that fell behind transitions behind up to date
// from the instructor's session file: the steps it has not seen, with their
// exchanges masked once more. When the file cannot be read, the follower is
// told why and gets the steps from the record kept here.
func (f *Follower) resync(behind int) batch {
	b := f.b
	b.mu.Lock()
	src, last := b.src, f.last
	b.mu.Unlock()
	ts, err := stepsAfter(src, last)
	b.mu.Lock()
	defer b.mu.Unlock()
	out := batch{resynced: true}
	if err == nil && len(ts) > 0 {
		// The session is written before a step is published: the file may
		// hold a step not broadcast yet, which comes the usual way.
		if lastLog := b.log[len(b.log)-1].t.Seq; ts[len(ts)-1].Seq > lastLog {
			ts = slices.DeleteFunc(ts, func(t loop.Transition) bool { return t.Seq > lastLog })
		}
	}
	if err == nil && len(ts) > 0 {
		end, found := ts[len(ts)-1].Seq, false
		for i := len(b.log) - 1; i >= 0 && !found; i-- {
			if found = b.log[i].t.Seq == end; found {
				f.next = i + 1
			}
		}
		if !found {
			err = errors.New(b.lang.F("its last step #%d is not one the instructor broadcast", end))
		}
	} else if err == nil {
		err = errors.New(b.lang.F("it has no step after #%d", last))
	}
	if err != nil {
		out.steps = append(out.steps, b.log[f.next:]...)
		f.next = len(b.log)
		out.note = b.lang.F("you fell %d steps behind the instructor; their session file could not be read (%v), so you caught up from the broadcast, every step kept", behind, err)
	} else {
		for _, t := range ts {
			out.steps = append(out.steps, &entry{t: t})
		}
		out.note = b.lang.F("you fell %d steps behind the instructor: resynchronised from their session file, steps #%d–#%d", behind, ts[0].Seq, ts[len(ts)-1].Seq)
	}
	if n := len(out.steps); n > 0 {
		f.last = out.steps[n-1].t.Seq
	}
	return out
}

// stepsAfter reads the steps after seq from the session file (never
// writing it), their exchanges masked once more.
func stepsAfter(src resyncSource, seq int) ([]loop.Transition, error) {
	file, err := session.Read(src.path)
	if err != nil {
		return nil, err
	}
	rl, ok := file.Run(src.run)
	if !ok {
		return nil, fmt.Errorf("it has no run %q", src.run)
	}
	all, err := loop.SessionTransitions(src.path, rl, true)
	if err != nil {
		return nil, err
	}
	var out []loop.Transition
	for _, t := range all {
		if t.Seq <= seq {
			continue
		}
		for i, x := range t.Exchanges {
			t.Exchanges[i] = src.mask.Exchange(x)
		}
		out = append(out, t)
	}
	return out, nil
}
