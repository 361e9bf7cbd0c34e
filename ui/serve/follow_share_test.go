package serve

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui"
)

// counted is a glass box that counts the frames it draws.
type counted struct {
	tea.Model
	views *int
}

func (c counted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := c.Model.Update(msg)
	c.Model = m
	return c, cmd
}

func (c counted) View() string {
	*c.views++
	return c.Model.View()
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
		f     *Follower
		m     tea.Model
		views int
	}
	join := func() *follower {
		fl := &follower{}
		f, past := b.Follow()
		fl.f = f
		cfg := ui.Config{Runs: []ui.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
			Follow: &ui.Follow{Who: "instructor", Next: f.Next}, NoColor: true}
		fl.m = b.shareFrames(counted{Model: ui.NewServed(context.Background(), cfg), views: &fl.views}, len(past))
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
	for _, tr := range tour[1:4] {
		b.Publish(tr)
		b.PublishLive(call(2))
		for _, fl := range fs {
			take(fl)
			fl.m.View()
		}
	}
	if fs[0].views != 3 || fs[1].views != 0 {
		t.Fatalf("frames drawn: %d and %d; want the first follower to draw each state once and the second to draw none", fs[0].views, fs[1].views)
	}
	if fs[2].views != 3 {
		t.Fatalf("a follower of another size drew %d frames, want its own 3", fs[2].views)
	}
	if shared, own := fs[1].m.View(), fs[1].m.(sharedFollower).inner.View(); shared != own {
		t.Fatal("the shared frame is not the frame the follower draws itself")
	}
	// A key makes the follower's state its own.
	send(fs[1], tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f")}) // fork: refused, with a notice
	before := fs[1].views
	v := ansi.Strip(fs[1].m.View())
	if fs[1].views != before+1 || !strings.Contains(v, "read-only: you follow the instructor's run (space catches up") {
		t.Fatalf("after a key the follower drew %d frames of its own; its frame:\n%s", fs[1].views-before, v)
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
		f     *Follower
		m     tea.Model
		views int
	}
	join := func() *follower {
		fl := &follower{}
		f, past := b.Follow()
		fl.f = f
		cfg := ui.Config{Runs: []ui.RunConfig{{Banner: "offline tutor", Backend: "offline", Past: past}},
			Follow: &ui.Follow{Who: "instructor", Next: f.Next}, NoColor: true}
		fl.m = b.shareFrames(counted{Model: ui.NewServed(context.Background(), cfg), views: &fl.views}, len(past))
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
	if lagging.views != 0 || late.views != 0 {
		t.Fatalf("followers at the same place drew %d and %d frames of their own, want none", lagging.views, late.views)
	}
	own := func(fl *follower) string { return fl.m.(sharedFollower).inner.View() }
	for name, fl := range map[string]*follower{"lagging": lagging, "late": late} {
		if own(fl) != own(early) {
			t.Fatalf("the %s follower's own frame differs from the early one's at the same place", name)
		}
		if fl.m.View() != own(fl) {
			t.Fatalf("the %s follower was sent a frame that is not its own", name)
		}
	}
}
