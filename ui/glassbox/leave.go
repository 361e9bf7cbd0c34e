package glassbox

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Leaving a room (docs/classroom.md, "Ending the room"): an instructor who
// quits with learners or followers in the room is told how many and what
// happens to them, and chooses: end the room for everyone, or keep serving
// it without their own glass box.

// leaveDialog is q in the instructor's glass box while anyone is in the
// room: end it, keep serving it, or stay.
type leaveDialog struct {
	*kit
	room   Roster     // the room as it was when q was pressed
	resume string     // Config.Resume: how the instructor's own session reopens
	leave  func(bool) // Room.Leaving
	k      leaveKeys
}

type leaveKeys struct{ End, Keep, Stay key.Binding }

func newLeaveKeys(l lang.Lang) leaveKeys {
	return leaveKeys{
		End:  key.NewBinding(key.WithKeys("e", "y", "q"), key.WithHelp("e", l.T("end the room"))),
		Keep: key.NewBinding(key.WithKeys("k"), key.WithHelp("k", l.T("keep serving without me"))),
		Stay: key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", l.T("stay"))),
	}
}

func (k leaveKeys) ShortHelp() []key.Binding  { return []key.Binding{k.End, k.Keep, k.Stay} }
func (k leaveKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// leaving is the dialog q opens in an instructor's glass box with anyone
// in the room, or nil (nobody is there: q asks as anywhere else).
func (c *roomController) leaving() dialog {
	rm := c.cfg.Room
	if rm == nil || rm.Roster == nil || rm.Leaving == nil {
		return nil
	}
	now := rm.Roster()
	if len(now.Learners) == 0 && now.Following == 0 {
		return nil
	}
	return &leaveDialog{kit: c.kit, room: now, resume: c.cfg.Resume, leave: rm.Leaving, k: newLeaveKeys(c.lang)}
}

func (d *leaveDialog) update(msg tea.KeyMsg) action {
	switch {
	case key.Matches(msg, d.k.End):
		d.leave(false)
		return action{close: d, quit: true}
	case key.Matches(msg, d.k.Keep):
		d.leave(true)
		return action{close: d, quit: true}
	case key.Matches(msg, d.k.Stay):
		return action{close: d, notice: d.lang.T("not quitting: the room goes on with you")}
	}
	return action{}
}

func (d *leaveDialog) keys() help.KeyMap { return d.k }

func (d *leaveDialog) box(w, _ int) (string, []string) {
	l := d.lang
	n, f := len(d.room.Learners), d.room.Following
	var who string
	switch {
	case f == 0:
		who = l.F("%d learner%s %s in the room.", n, plural(n), isAre(n))
	case n == 0:
		who = l.F("%d follower%s %s watching your run.", f, plural(f), isAre(f))
	default:
		who = l.F("%d learner%s and %d follower%s are in the room.", n, plural(n), f, plural(f))
	}
	out := []string{d.th.Bold.Render(who), ""}
	option := func(k key.Binding, text string) {
		lines := wrapLines(text, w-4)
		out = append(out, d.th.StatusKey.Render(padRight(k.Help().Key, 3))+" "+lines[0])
		for _, ln := range lines[1:] {
			out = append(out, "    "+ln)
		}
		out = append(out, "")
	}
	option(d.k.End, l.T("End the room: each learner's glass box closes with a screen that says the room has ended and how to come back. Their sessions stay on this machine: when you serve the room again (the same state folder), each connects the same way and goes on where they were."))
	option(d.k.Keep, l.T("Keep serving without your glass box: the learners go on working, and followers are told your run has ended. The room goes on in this terminal until Ctrl-C there ends it."))
	mine := l.T("Either way your own session is kept.")
	if d.resume != "" {
		mine = l.F("Either way your own session is kept: %s", d.resume)
	}
	out = append(out, wrapLines(mine, w)...)
	hk := d.help
	hk.Width = w
	return l.T("Leave the room?"), append(out, "", hk.View(d.k))
}

// padRight pads s with spaces to n cells.
func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}
