// Package outside turns a foreign agent's model calls — HTTP exchanges seen
// by a tap, read from a file, replayed from a cassette — into the steps of
// glassbox's own loop (loop.Transition), with the states that can be seen
// from outside: a request carrying a new message starts the loop, the
// request going out is context_ready, a reply with tool calls goes to
// CHECKING_POLICY, the next request's results are recorded and observed, a
// reply with text only is delivered. What the agent does between two calls
// — approving and running its tools, showing the answer — is not on the
// wire: those steps are marked Inferred, with the reason a screen shows.
//
// The records carry what the panes read from glassbox's own steps (the
// messages added, the llm record with its exchange, the pending calls with
// their results), so History, the state machine, Tool calls and Raw payload
// draw a foreign agent unchanged. docs/architecture.md, "Exchanges → steps"
// says where it sits.
package outside

import (
	"bytes"
	"slices"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Options configure a Builder. The zero value works.
type Options struct {
	// Codecs read the calls; nil means every registered dialect's
	// (backend.Wire).
	Codecs wire.Codecs
	// Source names where the events come from, as an event's source does
	// ("tap", "open"); "" means "outside".
	Source string
	// Backend is the llm record's backend ("tap", "file"); "" means
	// "outside".
	Backend string
	// Run names the run in compare mode; "" for a single run.
	Run string
	// Now stamps the records; nil means time.Now. A file's reader sets it
	// to the time of the exchange being fed.
	Now func() time.Time
}

// Builder turns exchanges into steps. Feed it each exchange's request as it
// arrives (Request) and then its reply (Response), or whole exchanges
// (Exchange); every call returns the steps it completed, in order. The
// exchanges must already be masked (the tap's capture does it). A Builder
// is not safe for concurrent use.
type Builder struct {
	opt       Options
	state     loop.State
	seq       int
	iteration int
	// known is the conversation as the agent last sent it, followed by
	// the reply it got: what its next request should start with.
	known  []history.Message
	system string
	// sent counts the messages of the conversation (HistoryLen): those
	// the last request sent, and those added since; resent holds, by step,
	// the length of a request just sent.
	sent     int
	resent   map[int]int
	pending  []loop.PendingCall
	inflight *flight
	// waiting are model calls that arrived while one was in flight: they
	// are taken up, in order, once its reply is read.
	waiting []waiter
	// unread are calls no codec reads (or whose body could not be read):
	// each is shown as a failed call once the loop is idle.
	unread []unread
	// calls are calls known by their messages that arrived while an
	// exchange's reply was awaited (Call).
	calls []Call
}

// flight is the model call whose reply is awaited: an HTTP exchange
// (codec set) or a call known by its messages (Call; codec zero).
type flight struct {
	x      providers.Exchange
	codec  wire.Codec
	req    *wire.Request
	family string
}

type waiter struct {
	x        providers.Exchange
	answered bool // its reply came already (x holds it)
}

type unread struct {
	x   providers.Exchange
	why error
}

// New makes a Builder in WAITING_FOR_EVENT.
func New(opt Options) *Builder {
	if opt.Codecs == nil {
		opt.Codecs = backend.Wire()
	}
	if opt.Source == "" {
		opt.Source = "outside"
	}
	if opt.Backend == "" {
		opt.Backend = "outside"
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Builder{opt: opt, state: loop.WaitingForEvent, resent: map[int]int{}}
}

// State is the state the last step entered.
func (b *Builder) State() loop.State { return b.state }

// History is the conversation as the agent last sent it, with the reply
// it got. The slice is the Builder's: do not change it.
func (b *Builder) History() []history.Message { return b.known }

// Request takes a call's request as it arrives. A model call is decoded
// and, unless another is still awaiting its reply, stepped to
// AWAITING_LLM_RESPONSE. A call the codecs pass through (a model list)
// makes no step; a call nothing reads waits for its reply (Response).
func (b *Builder) Request(x providers.Exchange) []loop.Transition {
	codec, route, ok := b.opt.Codecs.Detect(x.Method, x.URL)
	if !ok || route != wire.ModelCall {
		return nil
	}
	if b.inflight != nil {
		b.waiting = append(b.waiting, waiter{x: x})
		return nil
	}
	return b.seal(b.send(codec, x))
}

// Response takes a call's reply (x holds the request too). The reply of
// the call in flight is read into its steps; the reply of a call that was
// never fed as a request is taken as a whole exchange. Calls waiting
// behind it are then taken up, and calls nothing could read are shown once
// the loop is idle.
func (b *Builder) Response(x providers.Exchange) []loop.Transition {
	codec, route, ok := b.opt.Codecs.Detect(x.Method, x.URL)
	if !ok {
		b.unread = append(b.unread, unread{x: x, why: unknownCall(b.opt.Codecs, x)})
		return b.seal(b.flushUnread())
	}
	if route != wire.ModelCall {
		return nil
	}
	var out []loop.Transition
	switch {
	case b.inflight != nil && sameRequest(b.inflight.x, x):
		out = b.reply(x)
	case b.answer(x):
		return nil // a call waiting behind the one in flight: read in its turn
	case b.inflight == nil:
		out = b.send(codec, x)
		if b.inflight != nil {
			out = append(out, b.reply(x)...)
		}
	default:
		// A reply to a request never fed while another is in flight.
		b.waiting = append(b.waiting, waiter{x: x, answered: true})
		return nil
	}
	for b.inflight == nil && len(b.waiting) > 0 {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		c, _, _ := b.opt.Codecs.Detect(w.x.Method, w.x.URL)
		out = append(out, b.send(c, w.x)...)
		if w.answered && b.inflight != nil {
			out = append(out, b.reply(w.x)...)
		}
	}
	out = append(out, b.queuedCalls()...)
	return b.seal(append(out, b.flushUnread()...))
}

// seal sets each step's history length: the messages the agent last sent
// (on context_ready), and the ones each step added since.
func (b *Builder) seal(out []loop.Transition) []loop.Transition {
	for i := range out {
		if n, ok := b.resent[out[i].Seq]; ok {
			b.sent = n
			delete(b.resent, out[i].Seq)
		} else {
			b.sent += len(out[i].Added)
		}
		out[i].HistoryLen = b.sent
	}
	return out
}

// Exchange takes a whole exchange, request and reply.
func (b *Builder) Exchange(x providers.Exchange) []loop.Transition {
	return append(b.Request(x), b.Response(x)...)
}

// answer marks the waiting request x answers; false when none waits.
func (b *Builder) answer(x providers.Exchange) bool {
	for i := range b.waiting {
		if !b.waiting[i].answered && sameRequest(b.waiting[i].x, x) {
			b.waiting[i] = waiter{x: x, answered: true}
			return true
		}
	}
	return false
}

func sameRequest(a, b providers.Exchange) bool {
	return a.Method == b.Method && a.URL == b.URL && bytes.Equal(a.RequestBody, b.RequestBody)
}

// send decodes a model call's request and steps to AWAITING_LLM_RESPONSE;
// a body that cannot be read is shown once the loop is idle.
func (b *Builder) send(codec wire.Codec, x providers.Exchange) []loop.Transition {
	req, err := codec.DecodeRequest(x.URL, x.RequestBody)
	if err != nil {
		b.unread = append(b.unread, unread{x: x, why: unreadable(codec, err)})
		return nil
	}
	request := x
	request.Status, request.ResponseHeaders, request.ResponseBody, request.Chunks = 0, nil, nil, nil
	request.TTFB, request.Total, request.Err = 0, 0, ""
	out, t := b.toModel(req, []providers.Exchange{request})
	b.inflight = &flight{x: x, codec: codec, req: req, family: codec.Family}
	return append(out, t)
}

// toModel steps from where the loop is, through what req adds, to
// AWAITING_LLM_RESPONSE (the context_ready step is returned apart, last,
// with exchanges as its payload).
func (b *Builder) toModel(req *wire.Request, exchanges []providers.Exchange) ([]loop.Transition, loop.Transition) {
	fresh := b.state == loop.WaitingForEvent
	out := b.arrive(req)
	b.iteration++
	b.pending = nil
	t := b.step(loop.EdgeContextReady, "")
	t.Exchanges = exchanges
	t.Edit = b.edit(req, fresh)
	b.known, b.system = req.Messages, req.System
	b.resent[t.Seq] = len(req.Messages)
	return out, t
}

// edit says how the request departs from the conversation the agent sent
// before: nil when it continues it, or when, fresh from idle, it starts a
// new one that keeps nothing of the last.
func (b *Builder) edit(req *wire.Request, fresh bool) *loop.ContextEdit {
	k := commonPrefix(b.known, req.Messages)
	if len(b.known) == 0 || (k == len(b.known) && req.System == b.system) || (fresh && k == 0) {
		return nil
	}
	return loop.DiffContext(b.system, req.System, b.known, req.Messages, func(s string) string { return s })
}

// arrive steps from where the loop is to ASSEMBLING_CONTEXT with what the
// request adds to the conversation.
func (b *Builder) arrive(req *wire.Request) []loop.Transition {
	added := slices.Clone(req.Messages[commonPrefix(b.known, req.Messages):])
	switch b.state {
	case loop.CheckingPolicy:
		return b.results(added)
	case loop.RecordingError: // after an unusable reply: the agent's feedback
		for i := range added {
			if added[i].Role == history.RoleUser {
				added[i].Feedback = true
			}
		}
		t := b.step(loop.EdgeObserved, "")
		t.Added = added
		return []loop.Transition{t}
	}
	b.iteration = 0
	b.pending = nil
	ev := &loop.Event{Source: b.opt.Source, Type: "user_input"}
	if text, ok := lastUserText(added); ok {
		ev.Data = text
	} else {
		ev.Type = "resent" // nothing new: the agent sent its conversation again
	}
	t := b.step(loop.EdgeNewEvent, "")
	t.Event, t.Added = ev, added
	return []loop.Transition{t}
}

func lastUserText(msgs []history.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == history.RoleUser {
			return msgs[i].Text, true
		}
	}
	return "", false
}

// step makes the record of one transition by edge from the current state,
// and enters its target. inferred is "" for a step seen on the wire.
func (b *Builder) step(edge loop.Edge, inferred string) loop.Transition {
	to, _ := loop.Target(b.state, edge)
	b.seq++
	t := loop.Transition{
		Run: b.opt.Run, Seq: b.seq, Time: b.opt.Now(),
		From: b.state, To: to, Edge: edge, Iteration: b.iteration,
		Inferred: inferred,
		Pending:  slices.Clone(b.pending),
	}
	b.state = to
	return t
}
