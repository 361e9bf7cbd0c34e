package serve

import (
	"context"
	"io"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// Every follower gets every transition in order, whether it keeps up or
// lags far behind (then it is told, and catches up in one go).
func TestBroadcastNeverDropsAndKeepsOrder(t *testing.T) {
	b := NewBroadcast([]loop.Transition{{Seq: 1}, {Seq: 2}})
	const total = 500
	type result struct {
		seqs  []int
		notes []string
	}
	results := make([]result, 3)
	var wg sync.WaitGroup
	for i := range results {
		f, past := b.Follow()
		for _, t := range past {
			results[i].seqs = append(results[i].seqs, t.Seq)
		}
		wg.Go(func() {
			defer f.Close()
			for {
				if i == 2 {
					time.Sleep(time.Millisecond) // a slow follower (its network, its terminal)
				}
				batch, ok := f.Next(context.Background())
				if !ok {
					return
				}
				if batch.Note != "" {
					results[i].notes = append(results[i].notes, batch.Note)
				}
				for _, t := range batch.Transitions {
					results[i].seqs = append(results[i].seqs, t.Seq)
				}
			}
		})
	}
	if b.Followers() != 3 {
		t.Fatalf("Followers = %d, want 3", b.Followers())
	}
	for s := 3; s <= total; s++ {
		b.Publish(loop.Transition{Seq: s})
	}
	b.End()
	wg.Wait()
	want := make([]int, total)
	for i := range want {
		want[i] = i + 1
	}
	for i, r := range results {
		if !slices.Equal(r.seqs, want) {
			t.Fatalf("follower %d got %d transitions, not 1..%d in order", i, len(r.seqs), total)
		}
	}
	if b.Followers() != 0 {
		t.Fatalf("Followers = %d after every follower left", b.Followers())
	}
	// A follower that joins after a long run and then sees a burst.
	f, past := b.Follow()
	defer f.Close()
	if len(past) != total {
		t.Fatalf("a late follower starts with %d steps, want %d", len(past), total)
	}
	b2 := NewBroadcast(nil)
	f2, _ := b2.Follow()
	for s := 1; s <= resyncAfter+1; s++ {
		b2.Publish(loop.Transition{Seq: s})
	}
	batch, ok := f2.Next(context.Background())
	if !ok || len(batch.Transitions) != resyncAfter+1 || batch.Note == "" {
		t.Fatalf("a follower %d steps behind: %d steps, note %q", resyncAfter+1, len(batch.Transitions), batch.Note)
	}
}

// The instructor's glass box (in-process, as --instruct runs it) steps the
// tour; two learners following over SSH see it live, read-only, and the
// instructor's count of followers says 2.
func TestFollowTheInstructorOverSSH(t *testing.T) {
	r := newRoom(t, Options{}) // sets XDG_STATE_HOME
	c := agentrun.Defaults(false)
	c.Offline, c.SimLatency = true, 0
	person := glassbox.NewPerson()
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return person })
	if err != nil {
		t.Fatal(err)
	}
	defer agentrun.CloseAll(runs)
	cfg, err := glassbox.ConfigFor("tour", runs, map[string]*glassbox.Person{"": person})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBroadcast(nil)
	r.srv.opts.Broadcast, r.srv.opts.Instructor = b, InstructorView(cfg.Runs[0])
	cfg.Status = func() (string, string) { return "followers", strconv.Itoa(b.Followers()) }
	cfg.Changed = b.Changed()
	var mu sync.Mutex
	var sent []int
	cfg.OnTransition = func(t loop.Transition) { mu.Lock(); sent = append(sent, t.Seq); mu.Unlock(); b.Publish(t) }

	followers := []*terminal{r.learn(FollowUser), r.learn(FollowUser)}
	for _, f := range followers {
		f.waitFor("FOLLOWING the instructor")
	}
	waitUntil(t, "two followers counted", func() bool { return b.Followers() == 2 })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(glassbox.NewServed(ctx, cfg), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	done := make(chan struct{})
	go func() { p.Run(); close(done) }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 34})
	p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}})
	for _, f := range followers {
		f.waitFor("answer delivered to ui")
		f.waitFor("state WAITING_FOR_EVENT  iter 3/10  gemini gemini-2.5-flash")
	}
	// A follower's keys reach nobody: typing is refused on their screen.
	followers[0].keys("x")
	followers[0].keys("hello")
	followers[0].waitFor("read-only: you follow the instructor's run")
	mu.Lock()
	n := len(sent)
	mu.Unlock()
	if n != 14 || runs[0].Engine.QueueLen() != 0 {
		t.Fatalf("the instructor took %d transitions (want the tour's 14), %d queued", n, runs[0].Engine.QueueLen())
	}
	p.Quit()
	<-done
	b.End()
	followers[1].waitFor("the instructor's run has ended")
}

// With nobody instructing, `follow` is told so and the connection ends.
func TestFollowWithoutAnInstructor(t *testing.T) {
	r := newRoom(t, Options{})
	c, err := r.dial(FollowUser, gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	tm := openTerminal(t, c, 120, 34)
	tm.waitFor("nobody is instructing in this room")
	tm.waitEnd()
}

// Followers take places in the room like learners do.
func TestFollowersCountTowardTheRoom(t *testing.T) {
	r := newRoom(t, Options{MaxLearners: 1})
	r.srv.opts.Broadcast = NewBroadcast(nil)
	r.learn(FollowUser).waitFor("FOLLOWING the instructor")
	late := r.learn("ada")
	late.waitFor("the room is full (1 learners connected, the limit)")
	late.waitEnd()
}
