package serve

import (
	"hash/maphash"
	"strconv"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui"
)

// Followers who watch without touching anything are in the same state
// when they are at the same place in the broadcast: they hold the same
// steps (however they were handed them: with the steps they joined with, one
// at a time or in a lagging batch) and the same call in flight (however
// many of its chunks they were shown before), they were told the same
// notes, and their terminals have the same size. Such followers share one
// frame: the first to draw it draws it for every other, so a transition
// costs one frame per terminal size and not one per follower. A follower who
// presses a key, is resynchronised or is told anything of its own has a
// state of its own from then on, and draws its own frames.

// frames are the broadcast's shared frames, by state.
type frames struct {
	mu   sync.Mutex
	seed maphash.Seed
	byID map[uint64]*sharedFrame
}

// sharedFrame is one state's frame: drawn once, by the first follower
// that needs it, while the others in that state wait for it.
type sharedFrame struct {
	done chan struct{}
	v    string
}

// keep is how many shared frames are kept: the followers' states at the
// broadcast's latest steps (a state seen again later is drawn again).
const keep = 64

// view is the frame of state id, drawn with draw by the first to ask.
func (f *frames) view(id uint64, draw func() string) string {
	f.mu.Lock()
	if e, ok := f.byID[id]; ok {
		f.mu.Unlock()
		<-e.done
		return e.v
	}
	if f.byID == nil || len(f.byID) >= keep {
		f.byID = map[uint64]*sharedFrame{}
	}
	e := &sharedFrame{done: make(chan struct{})}
	f.byID[id] = e
	f.mu.Unlock()
	defer close(e.done)
	e.v = draw()
	return e.v
}

// sharedFollower is a follower's glass box drawing shared frames while
// its state is one others can be in.
type sharedFollower struct {
	inner  tea.Model
	frames *frames
	// past is a hash of what stays in the follower's state once taken in:
	// its terminal's sizes, the notes it was told; at is where it is in
	// the broadcast (ui.FollowBatch.ID). Meaningful while !own.
	past uint64
	at   string
	own  bool
}

// shareFrames wraps the follower's glass box m, which joined with past
// steps of the broadcast.
func (b *Broadcast) shareFrames(m tea.Model, past int) tea.Model {
	if b.unshared {
		return m
	}
	return sharedFollower{inner: m, frames: &b.frames, at: strconv.Itoa(past) + "/0"}
}

func (f *frames) hash(state uint64, what string) uint64 {
	var h maphash.Hash
	h.SetSeed(f.seed)
	h.WriteString(strconv.FormatUint(state, 16))
	h.WriteString(what)
	return h.Sum64()
}

func (s sharedFollower) Init() tea.Cmd { return s.inner.Init() }

func (s sharedFollower) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !s.own {
		if size, ok := msg.(tea.WindowSizeMsg); ok {
			s.past = s.frames.hash(s.past, "size "+strconv.Itoa(size.Width)+"x"+strconv.Itoa(size.Height))
		} else if b, ended, ok := ui.FollowBatchOf(msg); ok && b.ID != "" {
			if b.Note != "" {
				s.past = s.frames.hash(s.past, "note "+b.Note)
			}
			if ended {
				s.past = s.frames.hash(s.past, "ended")
			}
			s.at = b.ID
		} else {
			s.own = true
		}
	}
	var cmd tea.Cmd
	s.inner, cmd = s.inner.Update(msg)
	return s, cmd
}

func (s sharedFollower) View() string {
	if s.own {
		return s.inner.View()
	}
	return s.frames.view(s.frames.hash(s.past, s.at), s.inner.View)
}
