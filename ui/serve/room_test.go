package serve

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The instructor's roster and status bar count the followers once, the
// same way: one following over ssh as follow@ and one with glassbox
// follow are two in both.
func TestRosterAndStatusBarCountFollowersAlike(t *testing.T) {
	r, b, _ := broadcastRoom(t)
	r.learn(FollowUser).waitFor("FOLLOWING the instructor")
	asked := 0
	f, err := Dial(context.Background(), r.followOptions(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	waitUntil(t, "two followers", func() bool { return b.Followers() == 2 })
	if got := r.srv.Roster().Following; got != b.Followers() {
		t.Fatalf("the roster says %d following, the status bar %d", got, b.Followers())
	}
}

// serveOn serves a room on a loopback port with the state folder dir (a
// room served again on the same folder has the same host key and each
// learner's folder): it is ended or closed by the test.
func serveOn(t *testing.T, dir string) *room {
	t.Helper()
	opts := Options{StateDir: dir, Passphrase: "open-sesame", Run: agentrun.Defaults(false)}
	opts.Run.Offline, opts.Run.SimLatency = true, 0
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return &room{t: t, srv: srv, addr: ln.Addr().String(), opts: srv.opts}
}

// When the room ends, each learner's glass box closes and their terminal
// says the room has ended, that their session is kept at the step they
// were on, and the command that brings them back; the connection ends
// cleanly (exit 0), never "closed by remote host" over their screen. A
// follower is told too. Served again on the same state folder, the same
// command brings the learner's glass box back where it was, and the
// first space steps on.
func TestARoomEndsAndALearnerComesBack(t *testing.T) {
	state := filepath.Join(t.TempDir(), "glassbox")
	t.Setenv("XDG_STATE_HOME", filepath.Dir(state))
	r := serveOn(t, state)
	_, port, _ := net.SplitHostPort(r.addr)
	alice := r.learn("alice")
	alice.waitFor("Enter: send the tour lesson")
	alice.keys("\r")
	alice.waitFor("event queued")
	for i, want := range []string{"state ASSEMBLING_CONTEXT", "state AWAITING_LLM_RESPONSE", "state CHECKING_POLICY"} {
		alice.keys(" ")
		alice.waitFor(want)
		_ = i
	}
	if err := r.srv.End(whyClosed, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := alice.waitEnd(); err != nil {
		t.Fatalf("the session did not end cleanly: %v\n%s", err, tail(alice.text(), 2000))
	}
	end := alice.text()[strings.LastIndex(alice.text(), "glassbox serve:"):]
	for _, want := range []string{"the room has ended (the instructor closed it)", "at step #3", "ssh -p " + port + " alice@127.0.0.1"} {
		if !strings.Contains(end, want) {
			t.Fatalf("the learner's terminal does not say %q:\n%s", want, end)
		}
	}
	if _, err := r.dial("bob", gossh.Password("open-sesame")); err == nil {
		t.Fatal("an ended room let someone in")
	}

	again := serveOn(t, state)
	back := again.learn("alice")
	back.waitFor("resumed: the 3 steps above are the")
	back.waitFor("state CHECKING_POLICY")
	back.keys(" ")
	back.waitFor("state EXECUTING_TOOL")
}

// A follower of an ended room is told the broadcast has ended, and how to
// follow again.
func TestARoomEndsForItsFollowers(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	for _, tr := range tour[:2] {
		b.Publish(tr)
	}
	f := r.learn(FollowUser)
	f.waitFor("FOLLOWING the instructor")
	b.End()
	r.srv.End(whyClosed, 10*time.Second)
	f.waitEnd()
	_, port, _ := net.SplitHostPort(r.addr)
	for _, want := range []string{"so has the instructor's broadcast", "ssh -p " + port + " follow@127.0.0.1"} {
		f.waitFor(want)
	}
}

// Once the instructor has left and the room goes on without them, a new
// follower is told so rather than shown a run that has ended.
func TestFollowingAfterTheInstructorLeft(t *testing.T) {
	r, b, _ := broadcastRoom(t)
	b.End()
	f := r.learn(FollowUser)
	f.waitFor("the instructor has left: the room goes on without their glass box")
	f.waitEnd()
}

// The room says, once each time it grows past what the machine was
// measured to carry (cores × each one's share of a core), how big it is
// and what that means — to its log and to the instructor's glass box.
func TestTheRoomSaysWhenItOutgrowsTheMachine(t *testing.T) {
	var logged []string
	s := &Server{active: map[string]bool{}, capacity: capacity{cores: 1}, notes: make(chan string, 8),
		opts: Options{MaxLearners: 1000, Log: func(l string) { logged = append(logged, l) }}}
	for i := range learnersPerCore {
		if msg := s.enter(fmt.Sprintf("user-%d", i), lang.EN); msg != "" {
			t.Fatal(msg)
		}
	}
	if len(logged) != 0 {
		t.Fatalf("a room of %d learners on 1 core said: %q", learnersPerCore, logged)
	}
	s.enter("follow-1", lang.EN) // one follower more is over
	if len(logged) != 1 || !strings.Contains(logged[0], fmt.Sprintf("the room has %d learners and 1 followers, more than this machine was measured to carry (1 cores × %d learners or %d followers each)", learnersPerCore, learnersPerCore, followersPerCore)) {
		t.Fatalf("logged %q", logged)
	}
	if got := <-s.Notes(); got != logged[0] {
		t.Fatalf("the instructor was told %q", got)
	}
	s.enter("follow-2", lang.EN)
	if len(logged) != 1 {
		t.Fatalf("said again while still over: %q", logged)
	}
	s.leave("follow-2")
	s.leave("follow-1")
	s.enter("follow-3", lang.EN)
	if len(logged) != 2 {
		t.Fatalf("not said again after the room shrank and grew: %q", logged)
	}
	if !(capacity{cores: 2}).over(2*learnersPerCore+1, 0) || (capacity{cores: 2}).over(2*learnersPerCore, 0) || (capacity{cores: 2}).over(0, 2*followersPerCore) {
		t.Fatal("capacity is not cores × each one's share")
	}
}

// Every reason a room ends for is said in Japanese too.
func TestEndReasonsHaveJapanese(t *testing.T) {
	for _, why := range endReasons {
		if !lang.Has(why) {
			t.Errorf("%q has no Japanese", why)
		}
	}
}
