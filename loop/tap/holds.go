package tap

import (
	"context"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/providers"
)

// What a hold keeps back.
type HoldKind int

const (
	// HeldRequest: the agent's request, not yet forwarded.
	HeldRequest HoldKind = iota
	// HeldReply: the service's reply, not yet delivered to the agent.
	HeldReply
)

// Hold is one call held, as a front end shows it.
type Hold struct {
	// ID numbers the holds from 1, in the order they began.
	ID   int
	Kind HoldKind
	// Since is when the hold began: a front end shows its age, so a held
	// agent is never left waiting unseen.
	Since time.Time
	// Exchange is the call, masked: the request (edited, if it was), and
	// for a held reply the reply too.
	Exchange providers.Exchange
	// Family is the call's API family (its codec's Family).
	Family string
	// Stop is the breakpoint that stopped it, and what its size
	// conditions measured; nil when the tap was stepping.
	Stop *breakpoint.Hit
	// Edit is what a what-if edit changed in a held request (nil: none).
	Edit *loop.ContextEdit
	// Editable says a what-if edit can be offered: a request whose body
	// was kept whole and holds no secret.
	Editable bool
}

// held is a hold and the call waiting on it.
type held struct {
	Hold
	release chan struct{}
	call    *call
}

// hold holds c (its request, or its reply) and queues the news; t.mu is
// held.
func (t *Tap) hold(c *call, kind HoldKind, x providers.Exchange, stop *breakpoint.Hit) *held {
	t.nextID++
	h := &held{Hold: Hold{ID: t.nextID, Kind: kind, Since: t.opt.Now(), Exchange: x, Family: c.codec.Family, Stop: stop,
		Editable: kind == HeldRequest && c.editable()}, release: make(chan struct{}), call: c}
	t.holds = append(t.holds, h)
	t.wake()
	return h
}

// heldLocked copies the holds; t.mu is held.
func (t *Tap) heldLocked() []Hold {
	out := make([]Hold, len(t.holds))
	for i, h := range t.holds {
		out[i] = h.Hold
	}
	return out
}

// releaseLocked lets h's call go on; t.mu is held.
func (t *Tap) releaseLocked(h *held) {
	for i, o := range t.holds {
		if o == h {
			t.holds = append(t.holds[:i:i], t.holds[i+1:]...)
			close(h.release)
			t.wake()
			return
		}
	}
}

// wait blocks until h is released (true) or the agent gives up on the call
// (false): its hold is then dropped, with a note of how long it waited.
func (t *Tap) wait(ctx context.Context, h *held) bool {
	select {
	case <-h.release:
		return true
	case <-ctx.Done():
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-h.release: // released as the agent went
		return true
	default:
	}
	t.releaseLocked(h)
	t.note(gaveUp(h.Kind, t.opt.Now().Sub(h.Since)))
	return false
}

// gaveUp is the note for a held call whose agent stopped waiting after d:
// a held agent is never left to time out unseen.
func gaveUp(kind HoldKind, d time.Duration) error {
	d = d.Round(time.Second)
	if kind == HeldRequest {
		return sentence.Errorf("the agent gave up waiting after %s while its request was held: the request was not sent", d)
	}
	return sentence.Errorf("the agent gave up waiting after %s while its reply was held: the reply was not delivered", d)
}

// holdFor says whether a call's steps hold it: always while stepping,
// and while running when a breakpoint began to match on one of them —
// the tap then steps again, as the glass box's c stops at a breakpoint.
// t.mu is held.
func (t *Tap) holdFor(stop *breakpoint.Hit) bool {
	if t.closing || t.closed {
		return false
	}
	if stop != nil && t.mode == Running {
		t.mode = Stepping
	}
	return t.mode == Stepping || stop != nil
}

// mayHold says whether a call may be held: while stepping, and while
// running with breakpoints in force. t.mu is held.
func (t *Tap) mayHold() bool {
	return !t.closing && !t.closed && (t.mode == Stepping || t.breaks.Len() > 0)
}

// readsWhole says whether a reply must be read whole before it is
// delivered: when it may be held, which while running only a breakpoint
// can decide once it has read the reply.
func (t *Tap) readsWhole() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mayHold()
}
