package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A long session must not keep every raw payload in memory: each request
// carries the whole conversation, so the bytes grow with the square of its
// length. With a session on disk, the glass box keeps the payloads of the
// latest model calls and of the step shown, and reads older ones back from
// the session file when time travel reaches them.

// keepPayloads is how many model calls keep their exchanges in memory, and
// keepBytes how many bytes of them at most: late in a long session one
// request alone can be megabytes. The latest call always stays.
const (
	keepPayloads = 32
	keepBytes    = 4 << 20
)

// payloadStore is where a run's raw payloads are kept: in memory for the
// latest model calls and the step shown, else in the session file, read
// back (load) when a pane shows them.
type payloadStore struct {
	load func(t *loop.Transition) ([]providers.Exchange, error) // a spilled step's exchanges; nil without a session
	keep int                                                    // model calls whose payloads stay in memory
	// mark: the steps before it are past keeping (spill looks no further
	// back); reloaded: the old step whose payload was read back (-1: none).
	mark, reloaded, reloadedSeq int
}

// spill drops the exchanges of model calls of l older than the latest
// keep (keepPayloads, and keepBytes), except the step shown; they can be
// read back (load). Previews of requests go the same way whether or not
// there is a session: the step after each one holds the request as it was
// sent.
//
// Each call looks only at the steps since the previous one's cut-off
// (mark): a long session costs the same per step as a short one.
func (p *payloadStore) spill(l *liveState) {
	sel := l.selectedIndex()
	es := l.exchangeStep(sel)
	p.mark = min(p.mark, len(l.steps))
	previews, held := spillCount{keep: p.keep}, spillCount{keep: p.keep}
	mark := p.mark
	for i := len(l.steps) - 1; i >= p.mark; i-- {
		s := &l.steps[i]
		if s.preview != nil && previews.add(s.preview.ex.BodyBytes()) && i != sel {
			s.preview = nil
		}
		if len(s.t.Exchanges) > 0 && p.load != nil && s.t.ExchangesAt != nil {
			n := 0
			for _, x := range s.t.Exchanges {
				n += x.BodyBytes()
			}
			if held.add(n) && i != sel && i != es {
				s.t.Exchanges = nil
				s.spilled = true
			}
		}
		if (p.load != nil && !held.over()) || !previews.over() {
			mark = i // the steps from here on are looked at again next time
		}
	}
	p.mark = mark
}

// spillCount counts the payloads kept so far, newest first: past keep of
// them (or keepBytes), the older ones go.
type spillCount struct{ n, bytes, keep int }

// add counts one more payload of b bytes and reports whether it is one too
// many.
func (c *spillCount) add(b int) bool {
	c.n++
	c.bytes += b
	return c.over()
}

func (c *spillCount) over() bool { return c.n > 1 && (c.n > c.keep || c.bytes > keepBytes) }

// exchangesMsg: the exchanges of a spilled step, read back from the session.
type exchangesMsg struct {
	run, index, seq int
	ex              []providers.Exchange
	err             error
}

func (m exchangesMsg) runID() int { return m.run }

// fetch reads back the exchanges of the step run id's payload pane shows,
// if they were spilled and are not on their way yet.
func (p *payloadStore) fetch(id int, l *liveState) tea.Cmd {
	es := l.exchangeStep(l.selectedIndex())
	if es < 0 || p.load == nil {
		return nil
	}
	s := &l.steps[es]
	if !s.spilled || s.loading {
		return nil
	}
	s.loading = true
	load, t := p.load, s.t
	return func() tea.Msg {
		ex, err := load(&t)
		return exchangesMsg{run: id, index: es, seq: t.Seq, ex: ex, err: err}
	}
}

// loaded takes spilled exchanges back into l's steps.
func (p *payloadStore) loaded(msg exchangesMsg, l *liveState, lg lang.Lang) {
	if msg.index >= len(l.steps) || l.steps[msg.index].t.Seq != msg.seq {
		return // a fork changed the steps meanwhile
	}
	s := &l.steps[msg.index]
	s.loading = false
	if msg.err != nil {
		s.loadErr = lg.F("could not read this step's payload back from the session: %v", msg.err)
		return
	}
	s.t.Exchanges, s.spilled, s.loadErr = msg.ex, false, ""
	// One step read back at a time: the one read before goes back to disk.
	if i := p.reloaded; i != msg.index && i >= 0 && i < len(l.steps) && l.steps[i].t.Seq == p.reloadedSeq {
		l.steps[i].t.Exchanges, l.steps[i].spilled = nil, true
	}
	p.reloaded, p.reloadedSeq = msg.index, msg.seq
}
