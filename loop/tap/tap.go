// Package tap is glassbox's tap: a local reverse proxy in front of an agent
// glassbox does not run (Gemini CLI, Codex, opencode, crush, …), so that its
// model calls become the same steps, in the same panes, as glassbox's own.
//
// One address serves the three API families, told apart by path (the
// codecs of providers/wire). A model call's request is held before it is
// forwarded and its reply before it is delivered, so a person can step a
// real agent; what is not held streams through as it arrives. Every
// exchange is masked (the agent's key is forwarded upstream and added to
// the secrets as it is seen) and fed to loop/outside, which turns it into
// loop.Transition records. What the agent does between two calls — its
// approvals, its tools — is not on the wire: those steps are marked
// inferred. The tap never answers a call on the agent's behalf.
//
// Reading order: tap.go (the tap, its modes and its news), proxy.go (one
// call, from arrival to delivery), holds.go (what is held and why),
// upstream.go (where calls go), whatif.go (editing a held request).
package tap

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Mode is what a tap holds.
type Mode int

const (
	// Stepping holds every model call's request before it is forwarded
	// and its reply before it is delivered: space steps the agent.
	Stepping Mode = iota
	// Running holds only what a breakpoint stops (and goes back to
	// stepping there); the rest streams through as it arrives.
	Running
)

// DefaultKeep is how much of a body the tap keeps and shows; a longer one
// is passed on whole and shown cut, with its length.
const DefaultKeep = providers.MaxResponseBytes

// Options configure a Tap.
type Options struct {
	// Upstream is where calls go: "" for each family's own service
	// (wire.Codec.Endpoint), Offline for glassbox's built-in emulator, or
	// a URL every family's calls go to (its path, if any, comes before
	// the agent's).
	Upstream string
	// Getenv reads the variables a family's endpoint depends on
	// (OLLAMA_HOST); nil reads none.
	Getenv func(string) string
	// Secrets are masked from the start (the tap's own environment's);
	// the agent's key is added as it is seen.
	Secrets []string
	// Mode is the mode the tap starts in.
	Mode Mode
	// Breakpoints decide which calls a running tap holds
	// (docs/breakpoints.md): the request or reply whose steps one begins
	// to match. None: a running tap holds nothing.
	Breakpoints []breakpoint.Breakpoint
	// OnExchange is handed each model call's exchange, masked, once it
	// is complete (a cassette writer).
	OnExchange func(providers.Exchange)
	// Observe is handed each step, in order, before a front end hears of
	// it: the session's journal (which sets where its exchanges are kept),
	// the OpenTelemetry feed.
	Observe func(*loop.Transition)
	// Past are the steps of a resumed tap session: the tap reads their
	// exchanges again to know where the agent's conversation stands, and
	// its new steps are numbered after them.
	Past []loop.Transition
	// Keep is how many bytes of a body are kept; 0 is DefaultKeep.
	Keep int
	// Codecs read the calls; nil is every registered family's.
	Codecs wire.Codecs
	// Base is the transport under the capture for a URL upstream; nil is
	// http.DefaultTransport's.
	Base http.RoundTripper
	// Now stamps the steps; nil is time.Now.
	Now func() time.Time
}

// Offline is the Upstream that answers with glassbox's built-in emulator.
const Offline = "offline"

// CassetteProvider names a tap's recordings: the provider of its cassette
// and its session's run (a tap's calls may be of any family).
const CassetteProvider = "tap"

// Tap is the proxy and what it has seen. Its methods are safe for
// concurrent use; ServeHTTP serves the agent.
type Tap struct {
	opt    Options
	codecs wire.Codecs
	up     upstream
	keys   *keyring

	mu      sync.Mutex // guards everything below
	builder *outside.Builder
	mode    Mode
	// breaks are the breakpoints in force, fed every step in order.
	breaks *breakpoint.Watch
	holds  []*held
	nextID int
	news   []Event
	// live is the call in flight the screen follows (liveID), nextLive
	// numbers them.
	live             *providers.Exchange
	liveID, nextLive int
	// closing: nothing more is held (the server is shutting down); closed:
	// nothing more is recorded; drained: the recorder has taken every job
	// queued before closed, so Next has nothing more to say.
	closing, closed, drained bool
	// dirty: something changed since the last Next (news, a hold, the
	// mode, the call in flight); changed wakes a Next that waits.
	dirty   bool
	changed chan struct{}
	// jobs are the halves of calls waiting for the recorder; work wakes it.
	jobs []job
	work chan struct{}
	// seqFrom is added to the builder's step numbers: the steps of a
	// resumed session come before.
	seqFrom int
}

// New makes a tap. It fails on an upstream it cannot use.
func New(opt Options) (*Tap, error) {
	if opt.Codecs == nil {
		opt.Codecs = backend.Wire()
	}
	if opt.Getenv == nil {
		opt.Getenv = func(string) string { return "" }
	}
	if opt.Keep <= 0 {
		opt.Keep = DefaultKeep
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	up, err := newUpstream(opt)
	if err != nil {
		return nil, err
	}
	t := &Tap{
		opt: opt, codecs: opt.Codecs, up: up, keys: newKeyring(opt.Secrets),
		builder: outside.New(outside.Options{Codecs: opt.Codecs, Source: "tap", Backend: "tap", Now: opt.Now}),
		mode:    opt.Mode, breaks: breakpoint.NewWatch(opt.Breakpoints...),
		changed: make(chan struct{}, 1),
		work:    make(chan struct{}, 1),
	}
	t.resume(opt.Past)
	go t.record()
	return t, nil
}

// resume reads a resumed session's exchanges again, so the builder knows
// the agent's conversation as it stood, and numbers the next steps after
// the last one.
func (t *Tap) resume(past []loop.Transition) {
	if len(past) == 0 {
		return
	}
	made := 0
	for _, s := range past {
		if s.LLM == nil {
			continue
		}
		for _, x := range s.Exchanges {
			made += len(t.builder.Exchange(x))
		}
	}
	t.seqFrom = past[len(past)-1].Seq - made
}

// Event is one piece of news, in the order it happened: a step, or a note
// on something the steps do not say (a path no family serves, a body kept
// cut, an agent that gave up waiting, an edit).
type Event struct {
	Step *loop.Transition
	// Note is a sentence for a person (history/sentence: a front end says
	// it in the reader's language with lang.Error).
	Note error
}

// News is what happened since the last Next, and how things stand now.
type News struct {
	Events []Event
	// Holds are the calls held now, oldest first.
	Holds []Hold
	// Live is the latest model call in flight that is not held: its
	// request and the chunks of its reply so far (nil when none).
	Live *providers.Exchange
	Mode Mode
}

// Next waits until there is news, or ctx ends (ok false), and returns it.
// After Close, it returns what is left and then ok false.
func (t *Tap) Next(ctx context.Context) (News, bool) {
	for {
		t.mu.Lock()
		if t.dirty || t.drained {
			n := t.snapshot()
			ok := len(n.Events) > 0 || !t.drained
			t.mu.Unlock()
			return n, ok
		}
		t.mu.Unlock()
		select {
		case <-t.changed:
		case <-ctx.Done():
			return News{}, false
		}
	}
}

// Now is how things stand, without waiting and without taking the news.
func (t *Tap) Now() News {
	t.mu.Lock()
	defer t.mu.Unlock()
	return News{Holds: t.heldLocked(), Live: cloneLive(t.live), Mode: t.mode}
}

// snapshot takes the news; t.mu is held.
func (t *Tap) snapshot() News {
	n := News{Events: t.news, Holds: t.heldLocked(), Live: cloneLive(t.live), Mode: t.mode}
	t.news, t.dirty = nil, false
	return n
}

func cloneLive(x *providers.Exchange) *providers.Exchange {
	if x == nil {
		return nil
	}
	c := *x
	c.Chunks = append([]providers.Chunk(nil), x.Chunks...)
	return &c
}

// tell queues news and wakes Next; t.mu is held.
func (t *Tap) tell(evs ...Event) {
	t.news = append(t.news, evs...)
	t.wake()
}

// wake says there is something new to show; t.mu is held.
func (t *Tap) wake() {
	t.dirty = true
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// note queues a note; t.mu is held.
func (t *Tap) note(err error) { t.tell(Event{Note: err}) }

// steps queues steps, and gives each to the breakpoints: it returns the
// first breakpoint that began to match on one of them (nil when none).
// t.mu is held.
func (t *Tap) steps(ts []loop.Transition, dialect string) *breakpoint.Hit {
	var stop *breakpoint.Hit
	for i := range ts {
		ts[i].Seq += t.seqFrom
		if t.opt.Observe != nil {
			t.opt.Observe(&ts[i])
		}
		if h, ok := t.breaks.Step(breakpoint.Step{Transition: ts[i], Dialect: dialect}); ok && stop == nil {
			stop = &h
		}
		t.news = append(t.news, Event{Step: &ts[i]})
	}
	if len(ts) > 0 {
		t.wake()
	}
	return stop
}

// Mode is what the tap holds now.
func (t *Tap) Mode() Mode {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mode
}

// Step releases the oldest hold: its request is forwarded, or its reply
// delivered. false when nothing is held.
func (t *Tap) Step() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.holds) == 0 {
		return false
	}
	t.releaseLocked(t.holds[0])
	return true
}

// Continue lets the agent run: every hold is released, and from now on
// only what a breakpoint stops is held; the tap steps again from there.
func (t *Tap) Continue() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mode = Running
	for len(t.holds) > 0 {
		t.releaseLocked(t.holds[0])
	}
	t.wake()
}

// Breakpoints are the breakpoints in force, in the order they were added.
func (t *Tap) Breakpoints() []breakpoint.Breakpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.breaks.List()
}

// SetBreakpoints puts bps in force instead of those before (K in the glass
// box). A breakpoint in force before and after keeps what it matched on
// the step before, so it does not stop again on the call it stopped.
func (t *Tap) SetBreakpoints(bps []breakpoint.Breakpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keep := make(map[string]bool, len(bps))
	for _, b := range bps {
		keep[b.String()] = true
	}
	for i := t.breaks.Len() - 1; i >= 0; i-- {
		if !keep[t.breaks.List()[i].String()] {
			t.breaks.Remove(i)
		}
	}
	for _, b := range bps {
		t.breaks.Add(b)
	}
	t.wake()
}

// Pause goes back to stepping: the next request and reply are held.
func (t *Tap) Pause() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mode = Stepping
	t.wake()
}

// Close lets every held call go and records nothing more; Next ends once
// the recorder has taken what was queued before and its news is taken.
// The agent's calls still pass through while the server is shutting down;
// none is left waiting on a person who has gone.
func (t *Tap) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.releaseAllLocked()
	t.closed = true
	select {
	case t.work <- struct{}{}:
	default:
	}
}

// releaseAll lets every held call go and holds nothing more, but still
// records: the calls in progress while the server shuts down finish, and
// their steps are kept.
func (t *Tap) releaseAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseAllLocked()
}

func (t *Tap) releaseAllLocked() {
	t.closing = true
	t.mode = Running
	for len(t.holds) > 0 {
		t.releaseLocked(t.holds[0])
	}
	t.wake()
}

// Variables are what to set for an agent to reach a tap at addr
// (HOST:PORT): one line per family, VAR=http://addr…, in the codecs'
// order.
func (t *Tap) Variables(addr string) []string {
	var out []string
	for _, c := range t.codecs {
		if c.BaseVar != "" {
			out = append(out, c.BaseVar+"=http://"+addr+c.BaseSuffix)
		}
	}
	return out
}

// Serve serves the tap on l until ctx ends; then the server shuts down,
// letting calls in progress finish for a moment.
func (t *Tap) Serve(ctx context.Context, l net.Listener) error {
	if err := t.up.notItself(l.Addr()); err != nil {
		l.Close()
		return err
	}
	// Closed once every handler has returned: the steps of the calls that
	// finished during the shutdown are recorded before Next ends.
	defer t.Close()
	srv := &http.Server{Handler: t, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	t.releaseAll()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	<-done
	return err
}
