package serve

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui"
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
	cfg := ui.Config{Runs: []ui.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
		Follow: &ui.Follow{Who: "instructor", Next: f.Next}, NoColor: true}
	fresh := func() tea.Model {
		cfg := cfg
		cfg.Runs = slices.Clone(cfg.Runs) // ui.New takes the past out of them
		return ui.NewServed(context.Background(), cfg)
	}
	build := func() tea.Model { return counted{Model: fresh(), views: &shared.views, updates: &shared.updates} }
	next := func() tea.Msg { return ui.FollowMsg(f.Next(context.Background())) }
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
		send(fl, ui.FollowMsg(batch, ok))
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
		fl.m, _ = fl.m.Update(ui.FollowMsg(batch, ok))
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
