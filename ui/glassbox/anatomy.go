package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Each model call's request is read from its bytes as its step is recorded
// (providers/anatomy): what it is made of, what each part costs, and what
// it kept from the call before it. The figures stay with the step — time
// travel, a fork and the branch it leaves keep them as they were — and a
// long run keeps a few hundred bytes per call, not the requests: the
// Anatomy pane reads a call's parts from its exchange only while it shows
// that call.

// callAnatomy is what a model call's step knows of its request.
type callAnatomy struct {
	// rec is the request's figures (no parts) and, from the second call,
	// what it kept, changed and appended since the call before (Since).
	rec anatomy.Record
	// unread says why the request could not be read ("" when it was).
	unread string
	// missing: a call came before this one, but its request was not at
	// hand to compare (it had gone back to the session file), so Since
	// is nil although this is not the first call.
	missing bool
}

// anatomyBook follows a run's model calls as they are recorded: it keeps
// the whole of the last one (its parts and pieces), which the next one is
// compared with.
type anatomyBook struct {
	codecs  wire.Codecs
	last    *anatomy.Call
	lastSeq int // the step of last
}

func newAnatomyBook() anatomyBook { return anatomyBook{codecs: backend.Wire()} }

// read reads the request of model call step i of l: the last of its
// exchanges, the one that answered. Nil when the step holds no exchange
// (a resumed run's past, read back later by readPast).
func (b *anatomyBook) read(l *liveState, i int) *callAnatomy {
	t := &l.steps[i].t
	if len(t.Exchanges) == 0 {
		return nil
	}
	c, a := b.of(t.Exchanges[len(t.Exchanges)-1])
	if a.unread != "" {
		return a
	}
	prev, missing := b.before(l, i)
	a.missing = missing
	if prev != nil {
		ch := anatomy.Between(*prev, c)
		a.rec.Since = &ch
	}
	b.last, b.lastSeq = &c, t.Seq
	return a
}

// of reads one exchange: the whole call, and what a step keeps of it.
func (b *anatomyBook) of(x providers.Exchange) (anatomy.Call, *callAnatomy) {
	c, ok, err := anatomy.FromExchange(b.codecs, x)
	switch {
	case err != nil:
		return c, &callAnatomy{unread: err.Error()}
	case !ok:
		return c, &callAnatomy{unread: "not a model call of any dialect glassbox reads"}
	}
	return c, &callAnatomy{rec: anatomy.Record{Call: c.Summary()}}
}

// before is the whole of the model call that came last before step i of
// l, to compare step i's request with: the book's own when it is that
// call, else read again from the step's exchanges if they are in memory.
// missing says there was such a call but its request was not at hand.
func (b *anatomyBook) before(l *liveState, i int) (prev *anatomy.Call, missing bool) {
	j := i - 1
	for j >= 0 && l.steps[j].t.LLM == nil {
		j--
	}
	if j < 0 {
		return nil, false
	}
	t := &l.steps[j].t
	if b.last != nil && b.lastSeq == t.Seq {
		return b.last, false
	}
	if len(t.Exchanges) == 0 {
		return nil, true
	}
	c, a := b.of(t.Exchanges[len(t.Exchanges)-1])
	if a.unread != "" {
		return nil, false // nothing to compare with: that call was not read either
	}
	return &c, false
}

// pastAnatomyMsg: the anatomy of a resumed run's past model calls, read
// back from the session file.
type pastAnatomyMsg struct {
	run   int
	calls []pastCall
	// last is the whole of the last call read, at step lastSeq.
	last    *anatomy.Call
	lastSeq int
}

func (m pastAnatomyMsg) runID() int { return m.run }

// pastCall is one past model call's anatomy, for step index (seq).
type pastCall struct {
	index, seq int
	a          *callAnatomy
}

// pastTodo is a past model call step whose request is to be read back.
type pastTodo struct {
	index int
	t     loop.Transition // its seq and where its exchanges are
	// after: a model call came before it; chain: that call is the todo
	// before it (read in the same pass).
	after, chain bool
}

// readPast reads, in a command, the requests of l's past model calls that
// are not in memory (a resumed session's), one after another, each
// compared with the one before; load reads a step's exchanges back.
func (b *anatomyBook) readPast(id int, l *liveState, load func(*loop.Transition) ([]providers.Exchange, error)) tea.Cmd {
	if load == nil {
		return nil
	}
	var list []pastTodo
	prev := -1 // the index of the call step before
	for i := range l.steps {
		s := &l.steps[i]
		if s.t.LLM == nil {
			continue
		}
		if s.anat == nil && s.t.ExchangesAt != nil {
			chain := prev >= 0 && len(list) > 0 && list[len(list)-1].index == prev
			list = append(list, pastTodo{index: i, t: loop.Transition{Seq: s.t.Seq, ExchangesAt: s.t.ExchangesAt}, after: prev >= 0, chain: chain})
		}
		prev = i
	}
	if len(list) == 0 {
		return nil
	}
	codecs := b.codecs
	return func() tea.Msg { return readPastCalls(id, codecs, list, load) }
}

// readPastCalls reads the todo calls back, in order.
func readPastCalls(id int, codecs wire.Codecs, list []pastTodo, load func(*loop.Transition) ([]providers.Exchange, error)) pastAnatomyMsg {
	rb := anatomyBook{codecs: codecs}
	msg := pastAnatomyMsg{run: id}
	var last *anatomy.Call // the whole of the todo before, if it was read
	for _, td := range list {
		xs, err := load(&td.t)
		if err != nil || len(xs) == 0 {
			last = nil
			continue
		}
		c, a := rb.of(xs[len(xs)-1])
		msg.calls = append(msg.calls, pastCall{index: td.index, seq: td.t.Seq, a: a})
		if a.unread != "" {
			last = nil
			continue
		}
		if td.chain && last != nil {
			ch := anatomy.Between(*last, c)
			a.rec.Since = &ch
		}
		a.missing = td.after && a.rec.Since == nil
		last = &c
		msg.last, msg.lastSeq = &c, td.t.Seq
	}
	return msg
}

// pastRead takes the past calls' anatomy into l's steps. The book keeps
// the last of them to compare the next call with, unless a call was
// recorded meanwhile: then that call, if it is the next one and could
// not be compared, is compared now.
func (b *anatomyBook) pastRead(msg pastAnatomyMsg, l *liveState) {
	lastIndex := -1
	for _, pc := range msg.calls {
		if pc.index < len(l.steps) && l.steps[pc.index].t.Seq == pc.seq && l.steps[pc.index].anat == nil {
			l.steps[pc.index].anat = pc.a
			if pc.seq == msg.lastSeq {
				lastIndex = pc.index
			}
		}
	}
	if msg.last == nil || lastIndex < 0 {
		return
	}
	if b.last == nil {
		b.last, b.lastSeq = msg.last, msg.lastSeq
		return
	}
	next := lastIndex + 1
	for next < len(l.steps) && l.steps[next].t.LLM == nil {
		next++
	}
	if next < len(l.steps) && l.steps[next].t.Seq == b.lastSeq {
		if a := l.steps[next].anat; a != nil && a.missing {
			ch := anatomy.Between(*msg.last, *b.last)
			a.rec.Since, a.missing = &ch, false
		}
	}
}
