package serve

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// seats is the room as the instructor's roster shows it: each connected
// learner's name and seat (glassbox.Seat: lesson, state, predictions, health —
// never a file or a request of theirs), kept up to date by their glass box.
type seats struct {
	mu      sync.Mutex
	byID    map[string]*glassbox.Seated
	changed chan struct{} // one pending signal: the roster is drawn anew
}

func newSeats() *seats {
	return &seats{byID: map[string]*glassbox.Seated{}, changed: make(chan struct{}, 1)}
}

// tell signals a change without ever blocking: a signal already pending
// covers this one too.
func (s *seats) tell() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// sit seats learner id, shown as name, with the seat their glass box opened with.
func (s *seats) sit(id, name string, seat glassbox.Seat) {
	s.mu.Lock()
	s.byID[id] = &glassbox.Seated{Name: shownName(name), Seat: seat}
	s.mu.Unlock()
	s.tell()
}

// update is a learner's glass box telling the room its seat changed.
func (s *seats) update(id string, seat glassbox.Seat) {
	s.mu.Lock()
	if l := s.byID[id]; l != nil {
		l.Seat = seat
	}
	s.mu.Unlock()
	s.tell()
}

// stand takes learner id out of the roster (they disconnected).
func (s *seats) stand(id string) {
	s.mu.Lock()
	delete(s.byID, id)
	s.mu.Unlock()
	s.tell()
}

// roster is the room now, learners by name; following is how many follow
// the instructor (Broadcast.Followers: the one count the status bar shows
// too).
func (s *seats) roster(following int) glassbox.Roster {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := glassbox.Roster{Following: following, Learners: make([]glassbox.Seated, 0, len(s.byID))}
	for _, l := range s.byID {
		r.Learners = append(r.Learners, *l) // the seat's map is never written, only replaced
	}
	slices.SortFunc(r.Learners, func(a, b glassbox.Seated) int { return cmp.Compare(a.Name, b.Name) })
	return r
}

// Roster is the room now: the learners connected and their seats, and
// how many follow the instructor — over ssh as follow@ or with glassbox
// follow, counted once, by the broadcast.
func (s *Server) Roster() glassbox.Roster {
	following := 0
	if b := s.opts.Broadcast; b != nil {
		following = b.Followers()
	}
	return s.seats.roster(following)
}

// RosterChanged says the roster has changed (one pending signal at most).
func (s *Server) RosterChanged() <-chan struct{} { return s.seats.changed }

// shownName is a learner's user name as the roster shows it: the SSH user
// name is whatever the client sent, so only printable characters are kept
// (no escape sequence reaches the instructor's terminal), at most 32.
func shownName(name string) string {
	var b strings.Builder
	n := 0
	for _, r := range name {
		if n == 32 {
			b.WriteRune('…')
			break
		}
		if unicode.IsPrint(r) && r != utf8.RuneError {
			b.WriteRune(r)
			n++
		}
	}
	if b.Len() == 0 {
		return "?"
	}
	return b.String()
}
