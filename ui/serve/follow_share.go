package serve

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// Followers who watch without touching anything are in the same state
// when they are at the same place in the broadcast: they hold the same
// steps (however they were handed them: with the steps they joined with, one
// at a time or in a lagging batch) and the same call in flight (however
// many of its chunks they were shown before), they were told the same
// notes, and their terminals have the same size. Such followers share one
// glass box: the broadcast keeps one per lineage (the sizes and notes taken
// in, in order), the first follower to reach a place brings it there and
// draws its frame, and every other follower at that place sends that frame.
// So a transition costs one update and one frame per terminal size, not
// one per follower. A follower who presses a key, is resynchronised or is
// told anything of its own gets a glass box of its own then — its own
// fresh one, handed again what it took in while it only watched — and
// draws its own frames from then on.

// places are the broadcast's shared glass boxes, by lineage.
type places struct {
	mu   sync.Mutex
	seed maphash.Seed
	by   map[uint64]*place
	tick int // counts uses, for the least recently used
}

// maxPlaces is how many lineages keep a glass box: one per terminal size
// in the room, in practice. One dropped is built again when needed.
const maxPlaces = 64

// keep is how many frames a place keeps: those of its latest places in the
// broadcast, for the followers who reach them a little later.
const keep = 64

// place is one lineage's glass box, where the followers ahead have brought
// it, and the frames it drew on the way.
type place struct {
	mu     sync.Mutex
	used   int       // places.tick at its last use (places.mu)
	m      tea.Model // nil until a follower builds it
	at     pos
	frames map[pos]string
	order  []pos // frames' keys, oldest first
}

// pos is a place in the broadcast: the steps of the record held, and the
// progress event of the call in flight after them (0: none).
type pos struct{ to, gen int }

func (p pos) before(q pos) bool { return p.to < q.to || (p.to == q.to && p.gen < q.gen) }

// parsePos reads a batch's ID (batch.id).
func parsePos(id string) (pos, bool) {
	a, b, ok := strings.Cut(id, "/")
	to, err1 := strconv.Atoi(a)
	gen, err2 := strconv.Atoi(b)
	return pos{to, gen}, ok && err1 == nil && err2 == nil
}

func (ps *places) get(lineage uint64) *place {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.tick++
	p := ps.by[lineage]
	if p == nil {
		if ps.by == nil {
			ps.by = map[uint64]*place{}
		}
		if len(ps.by) >= maxPlaces {
			var lru uint64
			least := ps.tick
			for k, q := range ps.by {
				if q.used < least {
					lru, least = k, q.used
				}
			}
			delete(ps.by, lru)
		}
		p = &place{frames: map[pos]string{}}
		ps.by[lineage] = p
	}
	p.used = ps.tick
	return p
}

func (ps *places) hash(lineage uint64, what string) uint64 {
	var h maphash.Hash
	h.SetSeed(ps.seed)
	h.WriteString(strconv.FormatUint(lineage, 16))
	h.WriteString(what)
	return h.Sum64()
}

// frame is the place's frame at at, drawn now if the glass box is there.
func (p *place) frame(at pos) (string, bool) {
	if v, ok := p.frames[at]; ok {
		return v, true
	}
	if p.m == nil || p.at != at {
		return "", false
	}
	v := p.m.View()
	p.store(at, v)
	return v, true
}

func (p *place) store(at pos, v string) {
	if len(p.order) >= keep {
		delete(p.frames, p.order[0])
		p.order = p.order[1:]
	}
	p.frames[at], p.order = v, append(p.order, at)
}

// taken is what a follower took in while it only watched: a terminal size,
// or a batch of the broadcast, which holds the record's steps up to at.to.
// Consecutive batches without a note are kept as one (a lagging follower's
// batch is the same).
type taken struct {
	size  *tea.WindowSizeMsg
	at    pos
	live  *providers.Exchange
	note  string
	ended bool
}

// sharedFollower is a follower's glass box: the shared one of its lineage
// while it only watches, its own once it does anything else.
type sharedFollower struct {
	b *Broadcast
	// own is the follower's own glass box: as it joined until it is needed.
	own   tea.Model
	build func() tea.Model // a fresh glass box like own, for a place
	next  tea.Cmd          // waits for the follower's next batch
	// Meaningful while passive: the lineage's hash, where the follower is,
	// the call in flight it was handed there, the steps it joined with, and
	// what it took in since.
	passive bool
	lineage uint64
	at      pos
	live    *providers.Exchange
	joined  int
	record  []taken
}

// shareFrames wraps the follower's glass box m, which joined with past
// steps of the broadcast; build makes another like it (its commands are
// never run) and next waits for the follower's next batch, as m's own
// command does.
func (b *Broadcast) shareFrames(m tea.Model, build func() tea.Model, next tea.Cmd, past int) tea.Model {
	if b.unshared {
		return m
	}
	return &sharedFollower{b: b, own: m, build: build, next: next, passive: true, at: pos{to: past}, joined: past}
}

func (s *sharedFollower) Init() tea.Cmd { return s.own.Init() }

func (s *sharedFollower) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s.passive {
		var cmd tea.Cmd
		if size, ok := msg.(tea.WindowSizeMsg); ok {
			s.lineage = s.b.places.hash(s.lineage, "size "+strconv.Itoa(size.Width)+"x"+strconv.Itoa(size.Height))
			s.record = append(s.record, taken{size: &size})
		} else if bt, ended, ok := glassbox.FollowBatchOf(msg); ok && s.took(bt, ended) {
			if !ended {
				cmd = s.next
			}
		} else {
			s.ownNow()
		}
		if s.passive {
			s.arrive() // the first at a place brings it there and draws it
			return s, cmd
		}
	}
	var cmd tea.Cmd
	s.own, cmd = s.own.Update(msg)
	return s, cmd
}

// took takes in a batch of the broadcast while the follower watches: false
// when the batch is the follower's own (a resync).
func (s *sharedFollower) took(bt glassbox.FollowBatch, ended bool) bool {
	at, ok := parsePos(bt.ID)
	if !ok {
		return false
	}
	if bt.Note != "" {
		s.lineage = s.b.places.hash(s.lineage, "note "+bt.Note)
	}
	if ended {
		s.lineage = s.b.places.hash(s.lineage, "ended")
	}
	t := taken{at: at, live: bt.Live, note: bt.Note, ended: ended}
	if n := len(s.record); n > 0 && bt.Note == "" && !ended && s.record[n-1].size == nil && !s.record[n-1].ended {
		s.record[n-1].at, s.record[n-1].live = at, bt.Live
	} else {
		s.record = append(s.record, t)
	}
	s.at, s.live = at, bt.Live
	return true
}

// arrive brings the lineage's glass box to the follower's place, unless it
// is past it already, and returns the frame there, drawn once. A follower
// that lags behind a place whose frame there is gone (rare: the place
// skipped it, or moved on by more than keep) has it drawn by a glass box
// built for the occasion, handed what the follower took in.
func (s *sharedFollower) arrive() string {
	p := s.b.places.get(s.lineage)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.m == nil:
		p.m, p.at = s.replay(s.build()), s.at
	case p.at.before(s.at):
		bt := glassbox.FollowBatch{Transitions: s.b.steps(p.at.to, s.at.to), Live: s.live}
		p.m, _ = p.m.Update(glassbox.FollowMsg(bt, true))
		p.at = s.at
	}
	v, ok := p.frame(s.at)
	if !ok {
		v = s.replay(s.build()).View()
		p.store(s.at, v)
	}
	return v
}

// steps are the record's transitions from..to.
func (b *Broadcast) steps(from, to int) []loop.Transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]loop.Transition, 0, to-from)
	for _, e := range b.log[from:to] {
		out = append(out, e.t)
	}
	return out
}

// replay hands m what the follower took in while it watched, as its
// program handed it then.
func (s *sharedFollower) replay(m tea.Model) tea.Model {
	from := s.joined
	for _, t := range s.record {
		if t.size != nil {
			m, _ = m.Update(*t.size)
			continue
		}
		bt := glassbox.FollowBatch{Transitions: s.b.steps(from, t.at.to), Live: t.live, Note: t.note}
		m, _ = m.Update(glassbox.FollowMsg(bt, !t.ended))
		from = t.at.to
	}
	return m
}

// ownNow gives the follower its own glass box, where it is.
func (s *sharedFollower) ownNow() {
	s.own = s.replay(s.own)
	s.passive, s.record = false, nil
}

func (s *sharedFollower) View() string {
	if s.passive {
		return s.arrive()
	}
	return s.own.View()
}
