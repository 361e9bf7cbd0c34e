package serve

import (
	"context"
	"fmt"
	"maps"
	"net"
	"runtime"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The room's life (docs/classroom.md, "Ending the room"): a room ends for
// everyone at once, and nobody's screen just vanishes. Each learner's glass
// box is told the room has ended; it closes, and their terminal says why,
// that their session is kept, at which step, and the command that brings
// them back when the room is served again (the same state folder: the same
// host key, and each learner's folder named from how they got in). While
// it is served, the room also watches its own size against what the
// machine was measured to carry.

// roomEndMsg tells a glass box of the room that the room has ended, and
// why (one of the reasons below, in English: each end text says it in
// its reader's language).
type roomEndMsg struct{ why string }

// Why a room ends (End's why), said through Lang.Dyn: TestEndReasonsHaveJapanese.
const (
	whyClosed  = "the instructor closed it"
	whyStopped = "the room's server was stopped"
)

// endReasons are every why End is given.
var endReasons = []string{whyClosed, whyStopped}

// register notes learner id's program, to be told when the room ends; a
// room already ending tells it at once.
func (s *Server) register(id string, p *tea.Program) {
	s.mu.Lock()
	s.programs[id] = p
	why := s.ending
	s.mu.Unlock()
	if why != "" {
		go p.Send(roomEndMsg{why})
	}
}

// unregister forgets learner id's program (it has ended).
func (s *Server) unregister(id string) {
	s.mu.Lock()
	delete(s.programs, id)
	s.mu.Unlock()
}

// End ends the room, why being what everyone is told (whyClosed,
// whyStopped): nobody new gets in, every glass box of the room is told and
// closes (a learner's step in flight is cancelled, their session kept), and
// End waits at most grace for them before it closes what is left.
func (s *Server) End(why string, grace time.Duration) error {
	s.mu.Lock()
	if s.ending == "" {
		s.ending = why
	}
	why = s.ending
	programs := slices.Collect(maps.Values(s.programs))
	s.mu.Unlock()
	if b := s.opts.Broadcast; b != nil {
		b.EndRoom(why) // a follow stream says why, before its connection closes
	}
	// Closed listeners let nobody in; the connections stay until each
	// glass box has said goodbye.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	s.ssh.Shutdown(stopped)
	for _, p := range programs {
		go p.Send(roomEndMsg{why})
	}
	if s.opts.Log != nil && len(programs) > 0 {
		s.opts.Log(s.lang.F("the room has ended (%s): %d glass box%s told, every learner's session kept", s.lang.Dyn(why), len(programs), pluralES(len(programs))))
	}
	deadline := time.Now().Add(grace)
	done := make(chan struct{})
	go func() { s.gates.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
	// Each client closes its own connection once its session has said
	// goodbye: closed from here first, ssh would print "Connection …
	// closed by remote host" under the room's last words.
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	s.ssh.Shutdown(ctx)
	return s.Close()
}

// ended is how a learner's glass box ended because the room did: why, and
// the last step of their run (0: none).
type ended struct {
	why  string
	step int
}

// comeBack is the command that brings a person back to this room: ssh to
// where they reached it (the host and port of their connection), as user.
func comeBack(sess ssh.Session, user string) string {
	host, port, _ := net.SplitHostPort(sess.LocalAddr().String())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "22" {
		return fmt.Sprintf("ssh %s@%s", user, host)
	}
	return fmt.Sprintf("ssh -p %s %s@%s", port, user, host)
}

// endedText is what a learner's terminal says once their glass box has
// closed with the room, in their language say: why the room ended, that
// their session is kept (at which step), and how to come back.
func endedText(say lang.Lang, e ended, back string) string {
	kept := say.T("Your session is kept on the room's machine.")
	if e.step > 0 {
		kept = say.F("Your session is kept on the room's machine, at step #%d.", e.step)
	}
	return strings.Join([]string{
		"glassbox serve: " + say.F("the room has ended (%s).", say.Dyn(e.why)),
		kept + " " + say.T("When the room is served again, connect the same way and your glass box goes on where it was:"),
		"  " + back,
	}, "\n")
}

// followEndedText is what a follower's terminal says once the room ends.
func followEndedText(say lang.Lang, why, back string) string {
	return strings.Join([]string{
		"glassbox serve: " + say.F("the room has ended (%s); so has the instructor's broadcast.", say.Dyn(why)),
		say.T("Follow again when the room is served:") + " " + back,
	}, "\n")
}

// terminalText is text for a terminal in raw mode: each line ends with
// a carriage return too.
func terminalText(s string) string { return "\r\n" + strings.ReplaceAll(s, "\n", "\r\n") + "\r\n" }

// Capacity: how many a core was measured to carry with every frame within
// the room's target (keypress to frame under 50 ms at p99; a step to every
// follower under 100 ms), from BenchmarkKeypressToFrame and
// BenchmarkFollowerFanout on the project's 2-core machine
// (docs/classroom.md, "How many a machine carries").
const (
	learnersPerCore  = 15
	followersPerCore = 50
)

// capacity is how many learners and followers this machine was measured
// to carry: cores × each one's measured share of a core.
type capacity struct{ cores int }

// over reports whether a room of learners and followers asks for more
// than the machine's cores: each learner takes 1/learnersPerCore of a
// core, each follower 1/followersPerCore.
func (c capacity) over(learners, followers int) bool {
	return learners*followersPerCore+followers*learnersPerCore > c.cores*learnersPerCore*followersPerCore
}

// machine is this machine's capacity.
func machine() capacity { return capacity{cores: runtime.GOMAXPROCS(0)} }

// watchCapacity says, once each time the room grows past what the machine
// was measured to carry, that it has: in the room's log and, with an
// instructor, in their glass box. s.mu is held.
func (s *Server) watchCapacity() {
	learners, followers := s.count-s.following, s.following
	over := s.capacity.over(learners, followers)
	if over && !s.overCapacity {
		c := s.capacity
		note := s.lang.F("the room has %d learners and %d followers, more than this machine was measured to carry (%d cores × %d learners or %d followers each): frames may come late; docs/classroom.md says how many a machine carries",
			learners, followers, c.cores, learnersPerCore, followersPerCore)
		s.say(note)
	}
	s.overCapacity = over
}

// say tells the room's log, and the instructor's glass box, never
// blocking: a note the glass box has not taken yet is dropped there (the
// log keeps it).
func (s *Server) say(note string) {
	if s.opts.Log != nil {
		s.opts.Log(note)
	}
	select {
	case s.notes <- note:
	default:
	}
}

// Notes brings what the room tells the instructor while it is served
// (glassbox.Room.Notes).
func (s *Server) Notes() <-chan string { return s.notes }

// pluralES is "es" for any count but one (glass box, glass boxes).
func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}
