package serve

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// counted is a glass box that counts the frames it draws and the messages
// it takes in.
type counted struct {
	tea.Model
	views, updates *int
}

func (c counted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	*c.updates++
	m, cmd := c.Model.Update(msg)
	c.Model = m
	return c, cmd
}

func (c counted) View() string {
	*c.views++
	return c.Model.View()
}

// shareFollower joins b with a glass box of its own counted in views and
// updates, in a wrapper sharing places, as glassbox serve does; the glass
// boxes of the places it builds are counted in shared.
func shareFollower(b *Broadcast, views, updates *int, shared *counts) (*Follower, tea.Model) {
	f, past := b.Follow()
	cfg := glassbox.Config{Runs: []glassbox.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
		Follow: &glassbox.Follow{Who: "instructor", Next: f.Next}, NoColor: true}
	fresh := func() tea.Model {
		cfg := cfg
		cfg.Runs = slices.Clone(cfg.Runs) // glassbox.New takes the past out of them
		return glassbox.NewServed(context.Background(), cfg)
	}
	build := func() tea.Model { return counted{Model: fresh(), views: &shared.views, updates: &shared.updates} }
	next := func() tea.Msg { return glassbox.FollowMsg(f.Next(context.Background())) }
	own := counted{Model: fresh(), views: views, updates: updates}
	return f, b.shareFrames(own, build, next, len(past))
}

type counts struct{ views, updates int }

// ownView is the frame the follower's own glass box draws, handed what the
// follower took in (a copy: the follower keeps sharing).
func ownView(m tea.Model) string {
	s := *m.(*sharedFollower)
	if s.passive {
		var v, u int
		s.own = counted{Model: s.build().(counted).Model, views: &v, updates: &u}
		s.ownNow()
	}
	return s.own.View()
}

// Followers in the same state share one frame, which is exactly the frame
// each would draw; a follower who presses a key, or whose terminal has
// another size, draws its own.
func TestFollowersInTheSameStateShareAFrame(t *testing.T) {
	b := NewBroadcast(nil)
	b.liveEvery = 0
	tour := tourTransitions(t)
	b.Publish(tour[0])
	type follower struct {
		f              *Follower
		m              tea.Model
		views, updates int
	}
	var shared counts
	join := func() *follower {
		fl := &follower{}
		fl.f, fl.m = shareFollower(b, &fl.views, &fl.updates, &shared)
		return fl
	}
	send := func(fl *follower, msg tea.Msg) { fl.m, _ = fl.m.Update(msg) }
	// take hands the follower its next batch, as its program would.
	take := func(fl *follower) {
		batch, ok := fl.f.Next(context.Background())
		send(fl, glassbox.FollowMsg(batch, ok))
	}
	fs := []*follower{join(), join(), join()}
	for i, fl := range fs {
		w := 120
		if i == 2 {
			w = 100 // another terminal size
		}
		send(fl, tea.WindowSizeMsg{Width: w, Height: 34})
	}
	before := shared
	for _, tr := range tour[1:4] {
		b.Publish(tr)
		b.PublishLive(call(2))
		for _, fl := range fs {
			take(fl)
			fl.m.View()
		}
	}
	for i, fl := range fs {
		if fl.updates != 0 || fl.views != 0 {
			t.Fatalf("follower %d, only watching, updated its own glass box %d times and drew %d frames; want none", i, fl.updates, fl.views)
		}
	}
	// Three places, two terminal sizes: one update and one frame each.
	if u, v := shared.updates-before.updates, shared.views-before.views; u != 6 || v != 6 {
		t.Fatalf("3 places for 3 followers of 2 sizes took %d updates and %d frames; want 6 and 6", u, v)
	}
	if sh, own := fs[1].m.View(), ownView(fs[1].m); sh != own {
		t.Fatal("the shared frame is not the frame the follower draws itself")
	}
	if sh, own := fs[2].m.View(), ownView(fs[2].m); sh != own {
		t.Fatal("the shared frame of the other size is not the frame that follower draws itself")
	}
	// A key makes the follower's state its own.
	send(fs[1], tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f")}) // fork: refused, with a notice
	v := ansi.Strip(fs[1].m.View())
	if fs[1].views != 1 || fs[1].updates == 0 || !strings.Contains(v, "read-only: you follow the instructor's run (space catches up") {
		t.Fatalf("after a key the follower drew %d frames of its own; its frame:\n%s", fs[1].views, v)
	}
	b.Publish(tour[4])
	take(fs[0])
	take(fs[1])
	fs[0].m.View()
	if v := ansi.Strip(fs[0].m.View()); strings.Contains(v, "run (space catches up") {
		t.Fatal("another follower's notice reached a shared frame")
	}
}

// Followers at the same place in the broadcast are in the same state
// however they got there — joined early or late, handed the steps one at
// a time or in a lagging batch, shown many chunks of a call or only the
// last — so each draws exactly the frame they share.
func TestFollowersAtTheSamePlaceShareHoweverTheyGotThere(t *testing.T) {
	b := NewBroadcast(nil)
	b.liveEvery = 0
	tour := tourTransitions(t)
	b.Publish(tour[0])
	type follower struct {
		f              *Follower
		m              tea.Model
		views, updates int
	}
	var shared counts
	join := func() *follower {
		fl := &follower{}
		fl.f, fl.m = shareFollower(b, &fl.views, &fl.updates, &shared)
		fl.m, _ = fl.m.Update(tea.WindowSizeMsg{Width: 120, Height: 34})
		return fl
	}
	take := func(fl *follower) {
		batch, ok := fl.f.Next(context.Background())
		fl.m, _ = fl.m.Update(glassbox.FollowMsg(batch, ok))
		fl.m.View()
	}
	early, lagging := join(), join()
	for _, tr := range tour[1:5] {
		b.Publish(tr)
		take(early)
		for n := 1; n <= 3; n++ {
			b.PublishLive(call(n))
			take(early) // sees every chunk; lagging sees none of them
		}
	}
	late := join() // joins with the steps so far, and the call in flight
	b.PublishLive(call(4))
	for _, fl := range []*follower{early, lagging, late} {
		take(fl)
	}
	for name, fl := range map[string]*follower{"early": early, "lagging": lagging, "late": late} {
		if fl.views != 0 || fl.updates != 0 {
			t.Fatalf("the %s follower updated its own glass box %d times and drew %d frames, want none", name, fl.updates, fl.views)
		}
	}
	own := ownView
	for name, fl := range map[string]*follower{"lagging": lagging, "late": late} {
		if own(fl.m) != own(early.m) {
			t.Fatalf("the %s follower's own frame differs from the early one's at the same place", name)
		}
		if fl.m.View() != own(fl.m) {
			t.Fatalf("the %s follower was sent a frame that is not its own", name)
		}
	}
}

// A follower sharing its place's glass box shows, at every moment, exactly
// the frame of a follower that updates a glass box of its own; after a key
// it has its own, which goes on as that one does — whatever it took in
// while it only watched (a size, lagging batches, chunks, the end) is in it.
func TestASharingFollowerSeesWhatAGlassBoxOfItsOwnWould(t *testing.T) {
	b := NewBroadcast(nil)
	b.liveEvery = 0
	tour := tourTransitions(t)
	b.Publish(tour[0])
	var shared counts
	var views, updates int
	sf, sm := shareFollower(b, &views, &updates, &shared)
	pf, past := b.Follow()
	cfg := glassbox.Config{Runs: []glassbox.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
		Follow: &glassbox.Follow{Who: "instructor", Next: pf.Next}, NoColor: true}
	var plain tea.Model = glassbox.NewServed(context.Background(), cfg)
	both := func(msg tea.Msg) {
		sm, _ = sm.Update(msg)
		plain, _ = plain.Update(msg)
	}
	take := func() {
		bs, oks := sf.Next(context.Background())
		sm, _ = sm.Update(glassbox.FollowMsg(bs, oks))
		bp, okp := pf.Next(context.Background())
		plain, _ = plain.Update(glassbox.FollowMsg(bp, okp))
	}
	same := func(when string) {
		t.Helper()
		if s, p := sm.View(), plain.View(); s != p {
			t.Fatalf("%s: the sharing follower's frame differs from a glass box of its own:\n%s\n---\n%s", when, ansi.Strip(s), ansi.Strip(p))
		}
	}
	both(tea.WindowSizeMsg{Width: 120, Height: 34})
	same("after the size")
	for i, tr := range tour[1:9] {
		b.Publish(tr)
		if i%2 == 0 { // every other step lags: two steps in one batch
			b.PublishLive(call(i + 1))
			take()
			same("at a step's call in flight")
		}
	}
	take()
	same("after a lagging batch")
	if updates != 0 {
		t.Fatalf("the sharing follower updated its own glass box %d times while it watched", updates)
	}
	both(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("[")}) // back in time, on its own copy
	same("after [")
	if sm.(*sharedFollower).passive {
		t.Fatal("a key left the follower sharing")
	}
	for _, tr := range tour[9:] {
		b.Publish(tr)
		take()
		same("while it looks at an old step")
	}
	both(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(" ")}) // catches up
	same("after space")
	b.End()
	take()
	same("after the end")
}

// A follower that lags behind its place — the place was brought past where
// the follower is, by a follower further on — still shows the frame of
// where it is, and still shares.
func TestALaggingFollowerBehindItsPlaceShowsItsOwnFrame(t *testing.T) {
	b := NewBroadcast(nil)
	b.liveEvery = 0
	tour := tourTransitions(t)
	b.Publish(tour[0])
	var shared counts
	var views, updates, views2, updates2 int
	af, am := shareFollower(b, &views, &updates, &shared)
	bf, bm := shareFollower(b, &views2, &updates2, &shared)
	pf, past := b.Follow()
	cfg := glassbox.Config{Runs: []glassbox.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
		Follow: &glassbox.Follow{Who: "instructor", Next: pf.Next}, NoColor: true}
	var plain tea.Model = glassbox.NewServed(context.Background(), cfg)
	size := tea.WindowSizeMsg{Width: 120, Height: 34}
	am, _ = am.Update(size)
	bm, _ = bm.Update(size)
	plain, _ = plain.Update(size)
	b.Publish(tour[1])
	ab, aok := af.Next(context.Background()) // the follower's batch, on its way
	pb, pok := pf.Next(context.Background())
	b.PublishLive(call(2))
	bb, bok := bf.Next(context.Background())
	bm, _ = bm.Update(glassbox.FollowMsg(bb, bok)) // the place is at the call now
	am, _ = am.Update(glassbox.FollowMsg(ab, aok)) // and this follower before it
	plain, _ = plain.Update(glassbox.FollowMsg(pb, pok))
	if a, p := am.View(), plain.View(); a != p {
		t.Fatalf("the lagging follower shows another frame than its own:\n%s\n---\n%s", ansi.Strip(a), ansi.Strip(p))
	}
	if am.View() == bm.View() {
		t.Fatal("the lagging follower shows the frame of the follower ahead")
	}
	if !am.(*sharedFollower).passive || updates != 0 {
		t.Fatalf("the lagging follower stopped sharing (its own glass box took %d updates)", updates)
	}
}
