package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/charmbracelet/ssh"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The follow stream is how `glassbox follow ADDR` watches a broadcast: an
// SSH session as FollowUser that asks for the subsystem FollowSubsystem
// instead of a terminal, and reads the instructor's run as JSON lines —
// the run's static facts, then every transition and the call in flight,
// batch by batch, as the broadcast hands them out. The follower's own
// glass box draws them: nothing of the server's screen is relayed.
//
// One line is one frame, exactly one field set:
//
//	{"run": {...}}       first: the instructor's run (banner, provider, …)
//	{"step": {...}}      a transition, with its messages and exchanges
//	{"live": {...}}      the model call in flight, as it stands
//	{"note": "..."}      a sentence for the follower's History
//	{"flush": true}      the end of a batch: draw what came
//	{"end": true}        the instructor's run is over; "why" is set when
//	                     the room ended with it (one of endReasons)
const FollowSubsystem = "glassbox-follow"

// maxFrame is the longest line a follower reads: a step with its exchanges
// is at most a session file's line.
const maxFrame = 64 << 20

type frame struct {
	Run   *runInfo            `json:"run,omitempty"`
	Step  *wireStep           `json:"step,omitempty"`
	Live  *providers.Exchange `json:"live,omitempty"`
	Note  string              `json:"note,omitempty"`
	Flush bool                `json:"flush,omitempty"`
	End   bool                `json:"end,omitempty"`
	Why   string              `json:"why,omitempty"`
}

// runInfo is what a follower is told of the instructor's run.
type runInfo struct {
	Name          string `json:"name,omitempty"`
	Label         string `json:"label,omitempty"`
	Banner        string `json:"banner,omitempty"`
	Backend       string `json:"backend,omitempty"`
	BackendReason string `json:"backend_reason,omitempty"`
	// BackendWhy is the reason as its dialect gave it, for the follower to
	// say in its own language.
	BackendWhy    dialect.Reason `json:"backend_why"`
	Provider      string         `json:"provider,omitempty"`
	Model         string         `json:"model,omitempty"`
	MaxIterations int            `json:"max_iterations,omitempty"`
}

// wireStep is a transition with what its trace form leaves out and a
// follower's glass box draws: the messages it added, the tool calls, the
// parse step and the raw exchanges.
type wireStep struct {
	loop.Transition
	Added      []history.Message    `json:"added,omitempty"`
	HistoryLen int                  `json:"history_len"`
	Notes      int                  `json:"notes,omitempty"`
	Exchanges  []providers.Exchange `json:"exchanges,omitempty"`
	Parse      *providers.ParseStep `json:"parse,omitempty"`
	Pending    []loop.PendingCall   `json:"pending,omitempty"`
	QueueLen   int                  `json:"queue_len,omitempty"`
}

func toWire(t loop.Transition) wireStep {
	return wireStep{Transition: t, Added: t.Added, HistoryLen: t.HistoryLen, Notes: t.Notes,
		Exchanges: t.Exchanges, Parse: t.Parse, Pending: t.Pending, QueueLen: t.QueueLen}
}

func (w wireStep) transition() loop.Transition {
	t := w.Transition
	t.Added, t.HistoryLen, t.Notes, t.Exchanges, t.Parse, t.Pending, t.QueueLen =
		w.Added, w.HistoryLen, w.Notes, w.Exchanges, w.Parse, w.Pending, w.QueueLen
	return t
}

// line is f as one JSON line.
func line(f frame) []byte {
	b, err := json.Marshal(f)
	if err != nil { // every field is plain data: only a bug gets here
		b, _ = json.Marshal(frame{Note: "glassbox: a frame could not be encoded: " + err.Error()})
	}
	return append(b, '\n')
}

// wire is the entry's frame, encoded once for every follower.
func (e *entry) wire() []byte {
	e.once.Do(func() {
		s := toWire(e.t)
		e.line = line(frame{Step: &s})
	})
	return e.line
}

func (l *liveCall) wire() []byte {
	l.once.Do(func() { l.line = line(frame{Live: &l.ex}) })
	return l.line
}

var flushLine = line(frame{Flush: true})

// followStream serves the follow stream on sess (FollowSubsystem).
func (s *Server) followStream(sess ssh.Session) {
	s.gates.Add(1)
	defer s.gates.Done()
	b := s.opts.Broadcast
	say := learnerLang(sess.Environ(), s.lang)
	if sess.User() != FollowUser || b == nil {
		fmt.Fprintln(sess.Stderr(), "glassbox serve: "+say.T("the follow stream is for the user 'follow' of a room with an instructor"))
		sess.Exit(1)
		return
	}
	id := "follow-" + sess.Context().SessionID()
	if msg := s.enter(id, say); msg != "" {
		fmt.Fprintln(sess.Stderr(), "glassbox serve: "+msg)
		sess.Exit(1)
		return
	}
	defer s.leave(id)
	f, past := b.join()
	defer f.Close()
	rc := s.opts.Instructor
	w := bufio.NewWriterSize(sess, 64<<10)
	w.Write(line(frame{Run: &runInfo{Name: rc.Name, Label: rc.Label, Banner: rc.Banner, Backend: rc.Backend,
		BackendReason: rc.BackendReason, BackendWhy: rc.BackendWhy, Provider: rc.Provider, Model: rc.Model, MaxIterations: rc.MaxIterations}}))
	for _, e := range past {
		w.Write(e.wire())
	}
	w.Write(flushLine)
	if w.Flush() != nil {
		return
	}
	ctx := sess.Context()
	for {
		batch, ok := f.take(ctx)
		if !ok {
			if ctx.Err() == nil {
				w.Write(line(frame{End: true, Why: b.roomWhy()}))
				w.Flush()
				sess.Exit(0)
			}
			return
		}
		for _, e := range batch.steps {
			w.Write(e.wire())
		}
		if batch.live != nil {
			w.Write(batch.live.wire())
		}
		if batch.note != "" {
			w.Write(line(frame{Note: batch.note}))
		}
		w.Write(flushLine)
		if w.Flush() != nil {
			return
		}
	}
}

// StreamReader reads a follow stream: the follower's side.
type StreamReader struct {
	l    lang.Lang
	sc   *bufio.Scanner
	Run  glassbox.RunConfig
	Past []loop.Transition
	// Again is the command that follows the room again, said when the
	// room ends ("" says none).
	Again string
}

// damaged says the stream is not what a glassbox serve sends, and why.
func (s *StreamReader) damaged(why string) error {
	return errors.New(s.l.F("the follow stream is damaged: %s", why))
}

// ReadStream reads the start of a follow stream from r: the instructor's
// run and the steps taken so far. l is the language of its messages.
func ReadStream(r io.Reader, l lang.Lang) (*StreamReader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxFrame)
	s := &StreamReader{sc: sc, l: l}
	f, err := s.frame()
	if err != nil {
		return nil, err
	}
	if f.Run == nil {
		return nil, s.damaged(s.l.T("it does not start with the instructor's run"))
	}
	i := f.Run
	p := loop.Printable // the stream comes from the network
	s.Run = glassbox.RunConfig{Name: p(i.Name), Label: p(i.Label), Banner: p(i.Banner), Backend: p(i.Backend), BackendReason: p(i.BackendReason),
		BackendWhy: printableReason(i.BackendWhy), Provider: p(i.Provider), Model: p(i.Model), MaxIterations: i.MaxIterations}
	batch, ok, err := s.batch()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, s.damaged(s.l.T("it ended before the steps taken so far"))
	}
	s.Past = batch.Transitions
	return s, nil
}

// Next reads the next batch (glassbox.Follow.Next). A stream that breaks ends
// the follow with a note saying why.
func (s *StreamReader) Next(ctx context.Context) (glassbox.FollowBatch, bool) {
	b, ok, err := s.batch()
	if err != nil {
		b.Note = s.l.F("the broadcast stopped: %v", err)
		return b, false
	}
	return b, ok
}

// batch reads frames up to the end of a batch. ok is false at the end of
// the stream.
func (s *StreamReader) batch() (b glassbox.FollowBatch, ok bool, err error) {
	for {
		f, err := s.frame()
		if err != nil {
			return b, false, err
		}
		switch {
		case f.Step != nil:
			t := f.Step.transition()
			if err := checkStep(t, s.l); err != nil {
				return b, false, s.damaged(s.l.F("the broadcast's step #%d: %v", t.Seq, err))
			}
			b.Transitions = append(b.Transitions, t)
			b.Live = nil // a call in flight belongs after the steps
		case f.Live != nil:
			b.Live = f.Live
		case f.Note != "":
			b.Note = loop.Printable(f.Note)
		case f.Flush:
			return b, true, nil
		case f.End:
			b.Note = s.roomEnded(f.Why)
			return b, false, nil
		default:
			return b, false, s.damaged(s.l.T("a line with nothing in it"))
		}
	}
}

// roomEnded is what the follower is told when the room ended with the
// run: why, and how to follow again. A why the room does not give (the
// stream comes from the network) says nothing.
func (s *StreamReader) roomEnded(why string) string {
	if !slices.Contains(endReasons, why) {
		return ""
	}
	note := s.l.F("the room has ended (%s); so has the instructor's broadcast.", s.l.Dyn(why))
	if s.Again != "" {
		note += " " + s.l.T("Follow again when the room is served:") + " " + s.Again
	}
	return note
}

func (s *StreamReader) frame() (frame, error) {
	var f frame
	if !s.sc.Scan() {
		if err := s.sc.Err(); err != nil {
			return f, s.damaged(err.Error())
		}
		return f, errors.New(s.l.T("the connection to the room closed"))
	}
	if err := json.Unmarshal(s.sc.Bytes(), &f); err != nil {
		return f, s.damaged(err.Error())
	}
	return f, nil
}

// checkStep refuses a transition the state machine does not have: the
// stream comes from the network, and the glass box draws only what the
// loop can do.
func checkStep(t loop.Transition, l lang.Lang) error {
	to, ok := loop.Target(t.From, t.Edge)
	if !ok || to != t.To {
		return errors.New(l.F("%s ─%s─▶ %s is not an edge of the state machine", t.From, t.Edge, t.To))
	}
	if t.Seq < 1 || t.HistoryLen < 0 || t.Notes < 0 || t.Iteration < 0 {
		return errors.New(l.T("a step with a negative count"))
	}
	return nil
}

// printableReason is a reason from the network with its values made
// printable; a format the catalogue does not know is dropped, and the
// follower shows the reason's English as it came (BackendReason).
func printableReason(r dialect.Reason) dialect.Reason {
	if !lang.Has(r.Format) {
		return dialect.Reason{}
	}
	for i, a := range r.Args {
		r.Args[i] = loop.Printable(a)
	}
	return r
}
