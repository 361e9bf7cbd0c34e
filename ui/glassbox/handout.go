package glassbox

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/export"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Two things the glass box does with the session on disk (docs/classroom.md):
// X writes a handout of the step on screen, and a run's health line carries
// the session's size. Both touch the disk, so both run in commands and come
// back as a message naming the run.

// handoutMsg: the handout of a run's step was written to path, or err says
// why not.
type handoutMsg struct {
	run  int
	step int
	path string
	err  error
	// link is where a served learner fetches the page (Room.Handout), or
	// linkErr why they cannot.
	link    string
	linkErr error
	lang    lang.Lang // the language of what is said about it
}

// sessionSizeMsg: the session's size on disk, as a run measured it.
type sessionSizeMsg struct {
	run   int
	bytes int64
	err   error
}

func (m handoutMsg) runID() int     { return m.run }
func (m sessionSizeMsg) runID() int { return m.run }

// handout is X: a handout (HTML, export.StepFile) of the step the run shown
// has on screen — the step time travel selected, else the latest — written
// into the session's own folder. In compare mode the page holds that step
// of both runs: they share one session, and a page of a step shows it for
// every run of the session.
func (c *roomController) handout() action {
	r := c.stepper.cur()
	s := r.live.selected()
	switch {
	case c.cfg.Session == "":
		r.notice = r.lang.T("X: no handout — this glass box keeps no session on disk to write it from")
		return action{}
	case r.viewing != nil:
		r.notice = r.lang.T("X: this is an abandoned branch; a handout holds the session's own line (B or a step key returns to it)")
		return action{}
	case s == nil:
		r.notice = r.lang.T("X: no step yet — a handout is of a step taken (space takes one)")
		return action{}
	case r.forking:
		r.notice = r.lang.T("X: the run is going back to a step; press X again once it is there")
		return action{}
	}
	path, secrets, step, id := c.cfg.Session, c.cfg.Secrets, s.t.Seq, r.id
	var link func(string) (string, error)
	l := c.lang
	if c.cfg.Room != nil {
		link = c.cfg.Room.Handout
	}
	r.notice = l.F("writing a handout of step %d…", step)
	return action{cmd: func() tea.Msg {
		out, err := export.StepFile(path, step, export.HTML, secrets...)
		msg := handoutMsg{run: id, step: step, path: out, err: err, lang: l}
		if err == nil && link != nil {
			msg.link, msg.linkErr = link(out)
		}
		return msg
	}}
}

// handoutDone says where run r's handout went, or why it could not be
// written.
func handoutDone(r *runView, msg handoutMsg) {
	if msg.err != nil {
		r.notice = r.lang.F("handout of step %d not written: %v", msg.step, msg.err)
		return
	}
	switch {
	case msg.linkErr != nil:
		r.notice = msg.lang.F("handout of step %d written on the server, but you cannot fetch it: %v", msg.step, msg.linkErr)
	case msg.link != "":
		// A served learner cannot reach the server's files: the page's
		// address goes on the notice line and, to stay on screen to be
		// copied, into History.
		r.notice = msg.lang.F("handout of step %d: %s", msg.step, msg.link)
		r.history.add(&historyEntry{kind: entryLink, name: msg.lang.F("handout of step %d — open in your browser while the room is served:", msg.step), text: msg.link})
	default:
		r.notice = msg.lang.F("handout written: %s", msg.path)
	}
}

// sizeGap is the least time between two measurements of the session's size
// while a run of steps (c, i) goes on; when the run stops it is measured
// at once.
const sizeGap = time.Second

// sessionGauge measures a run's session on disk for its health line
// (loop.SessionBytes), in commands: at most one measurement in flight, and
// while a run of steps goes on at most one per sizeGap.
type sessionGauge struct {
	path      string // the session file, "" without one
	measuring bool
	stale     bool // steps ended while a measurement was under way
	at        time.Time
	err       string // why the last measurement failed
}

// measure measures the session's size for run id in a command. now forces
// it (the run has stopped, a fork wrote the journal) unless one is in
// flight; that one is then followed by another when it returns.
func (g *sessionGauge) measure(id int, now bool) tea.Cmd {
	if g.path == "" {
		return nil
	}
	if g.measuring || (!now && time.Since(g.at) < sizeGap) {
		g.stale = true
		return nil
	}
	g.measuring, g.stale, g.at = true, false, time.Now()
	path := g.path
	return func() tea.Msg {
		n, err := loop.SessionBytes(path)
		return sessionSizeMsg{run: id, bytes: n, err: err}
	}
}

// measured takes a measurement of run r's session in; steps that ended
// while it was under way are measured again once the run has stopped.
func (g *sessionGauge) measured(r *runView, msg sessionSizeMsg) tea.Cmd {
	g.measuring = false
	if msg.err != nil {
		g.err = msg.err.Error()
	} else {
		g.err = ""
		r.live.sized(msg.bytes)
	}
	if g.stale && !r.busy {
		return g.measure(r.id, true)
	}
	return nil
}
