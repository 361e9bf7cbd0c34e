package serve

import (
	"context"
	"fmt"
	"sync"

	"github.com/glassbox-dev/glassbox/loop"
)

// Broadcast is the instructor's run as its followers see it: every
// transition, in order, kept for the run's life. A follower reads from its
// own place in the record, so none is ever dropped: a follower that lags
// gets what it missed together, in the next frame; one more than
// resyncAfter behind is told so and catches up from the record in one go.
type Broadcast struct {
	mu        sync.Mutex
	log       []loop.Transition
	wake      chan struct{} // closed (and replaced) by every Publish and by End
	ended     bool
	followers int
	changed   chan struct{} // told (never blocking) when followers changes
}

// Changed says the number of followers has changed (ui.Config.Changed).
func (b *Broadcast) Changed() <-chan struct{} { return b.changed }

func (b *Broadcast) tell() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// resyncAfter is how far behind a follower may fall before it is told.
const resyncAfter = 64

// NewBroadcast starts a broadcast with the steps the run already took (a
// resumed session's past).
func NewBroadcast(past []loop.Transition) *Broadcast {
	return &Broadcast{log: append([]loop.Transition(nil), past...), wake: make(chan struct{}), changed: make(chan struct{}, 1)}
}

// Publish adds the instructor's latest transition. It never blocks on a
// follower (the UI calls it: ui.Config.OnTransition).
func (b *Broadcast) Publish(t loop.Transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = append(b.log, t)
	close(b.wake)
	b.wake = make(chan struct{})
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

// Followers is how many follow now.
func (b *Broadcast) Followers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.followers
}

// Follower is one follower's place in the broadcast.
type Follower struct {
	b    *Broadcast
	next int
	once sync.Once
}

// Follow adds a follower. It starts with every step so far (Past); Next
// brings the later ones; Close when it leaves.
func (b *Broadcast) Follow() (f *Follower, past []loop.Transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.followers++
	b.tell()
	return &Follower{b: b, next: len(b.log)}, append([]loop.Transition(nil), b.log...)
}

// Close takes the follower out of the count.
func (f *Follower) Close() {
	f.once.Do(func() {
		f.b.mu.Lock()
		f.b.followers--
		f.b.tell()
		f.b.mu.Unlock()
	})
}

// Next blocks until there are transitions the follower has not seen, and
// returns all of them, in order (ui.Follow.Next). ok is false once the
// broadcast has ended and everything was seen, or when ctx ends.
func (f *Follower) Next(ctx context.Context) (ts []loop.Transition, note string, ok bool) {
	for {
		f.b.mu.Lock()
		if f.next < len(f.b.log) {
			ts = append(ts, f.b.log[f.next:]...)
			f.next = len(f.b.log)
			f.b.mu.Unlock()
			if len(ts) > resyncAfter {
				note = fmt.Sprintf("you fell %d steps behind the instructor: caught up from the run's record, every step kept", len(ts))
			}
			return ts, note, true
		}
		if f.b.ended {
			f.b.mu.Unlock()
			return nil, "", false
		}
		wake := f.b.wake
		f.b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, "", false
		}
	}
}
