package serve

import (
	"context"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// The roster follows the room: who is connected, on which step, what they
// predicted (the room's answers for the step), how many follow; a learner
// who leaves leaves it.
func TestRosterFollowsTheRoom(t *testing.T) {
	r := newRoom(t, Options{Predict: true, Broadcast: NewBroadcast(nil)})
	a, b := r.learn("ada"), r.learn("bo")
	for _, tm := range []*terminal{a, b} {
		tm.waitFor("predict 0/0 tour")
		tm.keys("\r")
		tm.waitFor("press space to take it")
		tm.keys(" ")
		tm.waitFor("ASSEMBLING_CONTEXT")
		tm.keys(" ")
		tm.waitFor("Which edge will the loop take from ASSEMBLING_CONTEXT?")
	}
	a.keys("1") // context_ready: right
	b.keys("2") // max_iterations: wrong
	a.waitFor("predict 1/1 tour")
	b.waitFor("predict 0/1 tour")

	var room glassbox.Roster
	waitUntil(t, "both predictions reach the roster", func() bool {
		room = r.srv.Roster()
		return len(room.Learners) == 2 && room.Learners[0].Seat.Last.Took != "" && room.Learners[1].Seat.Last.Took != ""
	})
	if room.Learners[0].Name != "ada" || room.Learners[1].Name != "bo" {
		t.Fatalf("learners %q, %q; want ada, bo", room.Learners[0].Name, room.Learners[1].Name)
	}
	ada := room.Learners[0].Seat
	if ada.Lesson != "tour" || ada.Step != 2 || ada.State != loop.AwaitingLLMResponse || ada.Score() != (glassbox.Score{Right: 1, Total: 1}) {
		t.Fatalf("ada's seat %+v", ada)
	}
	groups := room.Answers()
	if len(groups) != 1 {
		t.Fatalf("%d answer groups, want 1: %+v", len(groups), groups)
	}
	g := groups[0]
	if g.Lesson != "tour" || g.Step != 2 || g.From != loop.AssemblingContext || g.Answers != 2 ||
		g.Chose[loop.EdgeContextReady] != 1 || g.Chose[loop.EdgeMaxIterations] != 1 || g.Took[loop.EdgeContextReady] != 2 {
		t.Fatalf("the room's answers %+v", g)
	}

	// A follower is counted, not listed.
	c, err := r.dial(FollowUser, gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	f := openTerminal(t, c, 120, 34)
	waitUntil(t, "the follower is counted", func() bool { return r.srv.Roster().Following == 1 })
	f.close()

	// Leaving leaves the roster, and the roster says it changed.
	for len(r.srv.RosterChanged()) > 0 {
		<-r.srv.RosterChanged()
	}
	b.close()
	waitUntil(t, "bo leaves the roster", func() bool { return len(r.srv.Roster().Learners) == 1 })
	select {
	case <-r.srv.RosterChanged():
	default:
		t.Fatal("the roster changed without a signal")
	}
}

// A user name is whatever the client sent: the roster keeps its printable
// characters only, so no escape sequence reaches the instructor's screen.
func TestRosterNamesArePrintable(t *testing.T) {
	r := newRoom(t, Options{})
	r.learn("\x1b]2;pwned\x07eve\x1b[2J\r\n").waitFor("Enter: send the tour lesson")
	waitUntil(t, "eve is seated", func() bool { return len(r.srv.Roster().Learners) == 1 })
	if got := r.srv.Roster().Learners[0].Name; got != "]2;pwnedeve[2J" {
		t.Fatalf("the roster shows %q", got)
	}
	for in, want := range map[string]string{"": "?", "\x00\x07": "?", "ada": "ada", "名前": "名前", strings.Repeat("x", 40): strings.Repeat("x", 32) + "…"} {
		if got := shownName(in); got != want {
			t.Errorf("shownName(%q) = %q, want %q", in, got, want)
		}
	}
}

// either signals when one of its channels does, and at most once pending.
func TestEitherMergesSignals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := make(chan struct{}, 1), make(chan struct{}, 1)
	out := either(ctx, a, b)
	a <- struct{}{}
	<-out
	b <- struct{}{}
	<-out
}
