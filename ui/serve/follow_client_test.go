package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// broadcastRoom is a room with an instructor whose tour (taken offline)
// is published by the test.
func broadcastRoom(t *testing.T) (*room, *Broadcast, []loop.Transition) {
	t.Helper()
	r := newRoom(t, Options{})
	b := NewBroadcast(nil)
	r.srv.opts.Broadcast = b
	r.srv.opts.Instructor = glassbox.RunConfig{Banner: "offline tutor", Backend: "offline", Provider: "gemini", Model: "gemini-2.5-flash", MaxIterations: 10}
	return r, b, tourTransitions(t)
}

func (r *room) followOptions(t *testing.T, asked *int) FollowOptions {
	return FollowOptions{Addr: r.addr, Fingerprint: r.srv.Fingerprint(), Passphrase: func() (string, error) {
		*asked++
		return r.opts.Passphrase, nil
	}}
}

// `glassbox follow` over the network: the server is recognised by its
// pinned fingerprint, the passphrase is asked once, and the stream brings
// the steps taken so far, then each later step and the call in flight, in
// order, with the exchanges; the end of the instructor's run ends it.
func TestFollowOverTheNetwork(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	for _, tr := range tour[:3] {
		b.Publish(tr)
	}
	asked := 0
	f, err := Dial(context.Background(), r.followOptions(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if asked != 1 {
		t.Fatalf("the passphrase was asked %d times", asked)
	}
	if !slices.Equal(seqsOf(f.Past), []int{1, 2, 3}) || f.Run.Provider != "gemini" || f.Run.Banner != "offline tutor" {
		t.Fatalf("past %v, run %+v", seqsOf(f.Past), f.Run)
	}
	waitUntil(t, "the stream's follower counted", func() bool { return b.Followers() == 1 })
	b.PublishLive(call(2))
	got, ok := f.Next(context.Background())
	if !ok || got.Live == nil || len(got.Live.Chunks) != 2 || string(got.Live.Chunks[1].Data) != "b" {
		t.Fatalf("the call in flight: %+v", got)
	}
	for _, tr := range tour[3:] {
		b.Publish(tr)
	}
	var seqs []int
	var exchanges int
	for len(seqs) < len(tour)-3 {
		got, ok := f.Next(context.Background())
		if !ok {
			t.Fatal("the stream ended early")
		}
		for _, tr := range got.Transitions {
			seqs = append(seqs, tr.Seq)
			exchanges += len(tr.Exchanges)
			if tr.Edge == loop.EdgeFinalAnswer && len(tr.Added) == 0 {
				t.Fatal("a step came without the messages it added")
			}
		}
	}
	if !slices.Equal(seqs, seqsOf(tour[3:])) || exchanges == 0 {
		t.Fatalf("steps %v (want %v), %d exchanges", seqs, seqsOf(tour[3:]), exchanges)
	}
	b.End()
	if got, ok := f.Next(context.Background()); ok || got.Note != "" {
		t.Fatalf("the stream did not end with the instructor's run alone: ok %v, note %q", ok, got.Note)
	}
}

// When the room ends, a `glassbox follow` follower is told so, as an ssh
// follower is (TestARoomEndsForItsFollowers), in their own language: why,
// and the command that follows the room again.
func TestARoomEndsForItsStreamFollowers(t *testing.T) {
	for _, tc := range []struct {
		lang lang.Lang
		want []string
	}{
		{lang.EN, []string{"the room has ended (the instructor closed it); so has the instructor's broadcast.", "Follow again when the room is served: glassbox follow "}},
		{lang.JA, []string{"教室は終わりました", "講師が閉じました", "glassbox follow "}},
	} {
		r, b, tour := broadcastRoom(t)
		b.Publish(tour[0])
		o := r.followOptions(t, new(int))
		o.Lang = tc.lang
		f, err := Dial(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		waitUntil(t, "the stream's follower counted", func() bool { return b.Followers() == 1 })
		ended := make(chan error, 1)
		go func() { ended <- r.srv.End(whyClosed, 10*time.Second) }()
		var got glassbox.FollowBatch
		for ok := true; ok; {
			got, ok = f.Next(context.Background())
		}
		for _, want := range append(tc.want, r.addr+" --fingerprint "+r.srv.Fingerprint()) {
			if !strings.Contains(got.Note, want) {
				t.Errorf("%s: the follower was told %q, without %q", tc.lang, got.Note, want)
			}
		}
		f.Close()
		if err := <-ended; err != nil {
			t.Fatal(err)
		}
	}
}

// The follower's own glass box, drawn from the stream: read-only, the
// instructor's steps as they come, time travel and catch-up on its copy.
func TestFollowDrawsTheInstructorsRunLocally(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	for _, tr := range tour[:2] {
		b.Publish(tr)
	}
	asked := 0
	f, err := Dial(context.Background(), r.followOptions(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(glassbox.NewServed(ctx, FollowConfig(f, r.addr)), tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	done := make(chan struct{})
	go func() { p.Run(); close(done) }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 34})
	out.waitFor(t, "FOLLOWING the instructor at "+r.addr)
	for _, tr := range tour[2:] {
		b.Publish(tr)
	}
	out.waitFor(t, "answer delivered to ui")
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
	out.waitFor(t, "read-only: you follow the instructor's run")
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("[")})
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(" ")})
	out.waitFor(t, "caught up: the instructor's latest step")
	b.End()
	out.waitFor(t, "the instructor's run has ended")
	p.Quit()
	<-done
}

// A follower who asked for Japanese (--lang ja) reads the whole glass box
// in Japanese, not only what the stream says.
func TestFollowersGlassBoxIsInTheirLanguage(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	b.Publish(tour[0])
	o := r.followOptions(t, new(int))
	o.Lang = lang.JA
	f, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(glassbox.NewServed(ctx, FollowConfig(f, r.addr)), tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	done := make(chan struct{})
	go func() { p.Run(); close(done) }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 34})
	out.waitFor(t, "状態 ")
	out.waitFor(t, "反復 ")
	p.Quit()
	<-done
}

// The server is never trusted silently: a wrong pinned fingerprint, an
// unknown server and a known_hosts entry for another key are each refused
// before the passphrase is asked, with the fingerprint to check.
func TestFollowRecognisesTheServer(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	b.Publish(tour[0])
	dir := t.TempDir()
	other, otherLine := newKey(t)
	_ = other
	hostKey := func(t *testing.T) gossh.PublicKey {
		var key gossh.PublicKey
		c, err := gossh.Dial("tcp", r.addr, &gossh.ClientConfig{User: FollowUser, Auth: []gossh.AuthMethod{gossh.Password(r.opts.Passphrase)},
			HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { key = k; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		return key
	}(t)
	knownLine := knownhosts.Line([]string{knownhosts.Normalize(r.addr)}, hostKey) + "\n"
	known := writeFile(t, filepath.Join(dir, "known_hosts"), knownLine)
	wrong := writeFile(t, filepath.Join(dir, "wrong_hosts"), knownhosts.Normalize(r.addr)+" "+otherLine)
	defer func() {
		if b, _ := os.ReadFile(known); string(b) != knownLine {
			t.Error("glassbox follow wrote to known_hosts")
		}
		if b, _ := os.ReadFile(wrong); string(b) != knownhosts.Normalize(r.addr)+" "+otherLine {
			t.Error("glassbox follow wrote to known_hosts")
		}
	}()

	for _, c := range []struct {
		name, fingerprint, knownHosts, want string
	}{
		{"wrong fingerprint", "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", "not the one you pinned"},
		{"unknown server", "", filepath.Join(dir, "absent"), "is not known: its host key is " + r.srv.Fingerprint()},
		{"no known_hosts at all", "", "", "run again with --fingerprint " + r.srv.Fingerprint()},
		{"another key in known_hosts", "", wrong, "not the one " + wrong + " knows"},
	} {
		asked := 0
		_, err := Dial(context.Background(), FollowOptions{Addr: r.addr, Fingerprint: c.fingerprint, KnownHosts: c.knownHosts,
			Passphrase: func() (string, error) { asked++; return r.opts.Passphrase, nil }})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: err %v, want it to say %q", c.name, err, c.want)
		}
		if asked != 0 {
			t.Fatalf("%s: the passphrase was asked of a server not recognised", c.name)
		}
	}
	// Recognised by known_hosts, or by the fingerprint without its prefix.
	for _, o := range []FollowOptions{{KnownHosts: known}, {Fingerprint: strings.TrimPrefix(r.srv.Fingerprint(), "SHA256:")}} {
		o.Addr, o.Passphrase = r.addr, func() (string, error) { return r.opts.Passphrase, nil }
		f, err := Dial(context.Background(), o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		f.Close()
	}
	// A wrong passphrase is refused with a message.
	o := FollowOptions{Addr: r.addr, Fingerprint: r.srv.Fingerprint(), Passphrase: func() (string, error) { return "guess", nil }}
	if _, err := Dial(context.Background(), o); err == nil || !strings.Contains(err.Error(), "refused the passphrase") {
		t.Fatalf("a wrong passphrase: %v", err)
	}
}

// The follow stream is for `follow` in a room with an instructor; every
// other subsystem stays refused.
func TestFollowStreamIsOnlyForFollowers(t *testing.T) {
	r := newRoom(t, Options{})
	c, err := r.dial(FollowUser, gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if said := refusedStream(t, sess); !strings.Contains(said, "room with an instructor") {
		t.Fatalf("a room without an instructor: %q", said)
	}
	o := FollowOptions{Addr: r.addr, Fingerprint: r.srv.Fingerprint(), Passphrase: func() (string, error) { return r.opts.Passphrase, nil }}
	if _, err := Dial(context.Background(), o); err == nil || !strings.Contains(err.Error(), "room with an instructor") {
		t.Fatalf("glassbox follow to a room without an instructor: %v", err)
	}
	r.srv.opts.Broadcast = NewBroadcast(nil)
	ada, err := r.dial("ada", gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer ada.Close()
	sess, err = ada.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if said := refusedStream(t, sess); !strings.Contains(said, "for the user 'follow'") {
		t.Fatalf("a learner asking for the stream: %q", said)
	}
	sess, err = ada.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Fatal("sftp was accepted")
	}
}

// refusedStream asks for the follow stream on sess and returns what the
// server said on stderr, after checking it sent no stream.
func refusedStream(t *testing.T, sess *gossh.Session) string {
	t.Helper()
	out, _ := sess.StdoutPipe()
	errOut, _ := sess.StderrPipe()
	if err := sess.RequestSubsystem(FollowSubsystem); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(out); len(b) > 0 {
		t.Fatalf("the server sent a stream: %q", b)
	}
	b, _ := io.ReadAll(errOut)
	return string(b)
}

// A stream that is not what glassbox serve sends is refused with a
// message: an edge the state machine does not have, a broken line.
func TestAForgedStreamIsRefused(t *testing.T) {
	good := string(line(frame{Run: &runInfo{Banner: "x"}})) + string(line(frame{Flush: true}))
	forged := toWire(loop.Transition{Seq: 1, From: loop.WaitingForEvent, To: loop.ExecutingTool, Edge: loop.EdgeNewEvent})
	for name, c := range map[string]struct{ text, want string }{
		"impossible edge": {good + string(line(frame{Step: &forged})), "is not an edge of the state machine"},
		"broken line":     {good + "{\"step\": \n", "damaged"},
		"empty frame":     {good + "{}\n", "a line with nothing in it"},
		"no run first":    {string(line(frame{Flush: true})), "does not start with the instructor's run"},
		"cut off":         {good + string(line(frame{Note: "half"})), "the broadcast stopped: the connection to the room closed"},
	} {
		s, err := ReadStream(strings.NewReader(c.text), lang.EN)
		if err == nil {
			var b glassbox.FollowBatch
			var ok bool
			b, ok = s.Next(context.Background())
			if ok || !strings.Contains(b.Note, c.want) {
				t.Fatalf("%s: ok %v, note %q", name, ok, b.Note)
			}
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	_ = providers.Exchange{}
}

// syncBuffer is a program's output, read while it writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.mu.Lock()
		text := ansi.Strip(s.b.String())
		s.mu.Unlock()
		if strings.Contains(text, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never showed %q; showed:\n%s", want, tail(text, 3000))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A follower is told the instructor's backend reason as its dialect gave
// it, to say in the follower's own language; a format the catalogue does
// not know (a forged stream's) is dropped, so the follower shows the
// English reason as it came and never formats what the network wrote.
func TestFollowerGetsTheReasonAsItsDialectGaveIt(t *testing.T) {
	why := dialect.Sayf("no %s or %s is set", "GEMINI_API_KEY", "GOOGLE_API_KEY")
	var got frame
	if err := json.Unmarshal(line(frame{Run: &runInfo{BackendReason: why.String(), BackendWhy: why}}), &got); err != nil {
		t.Fatal(err)
	}
	if r := printableReason(got.Run.BackendWhy); r.String() != why.String() || r.Format != why.Format {
		t.Fatalf("the reason came as %+v, want %+v", r, why)
	}
	forged := dialect.Reason{Format: "%s%s%s%n %v", Args: []string{"\x1b[2J"}}
	if r := printableReason(forged); !r.Zero() {
		t.Fatalf("a forged format was kept: %+v", r)
	}
	if r := printableReason(dialect.Reason{Format: "%s is set", Args: []string{"A\x1b[2JB"}}); strings.Contains(r.String(), "\x1b") {
		t.Fatalf("a value from the network kept its escape: %q", r.String())
	}
}
