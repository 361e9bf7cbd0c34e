package ui

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
func (m *Model) handout(tea.KeyMsg) tea.Cmd {
	r := m.cur()
	s := r.live.selected()
	switch {
	case m.cfg.Session == "":
		r.notice = r.lang.T("X: no handout — this glass box keeps no session on disk to write it from")
		return nil
	case r.viewing != nil:
		r.notice = r.lang.T("X: this is an abandoned branch; a handout holds the session's own line (B or a step key returns to it)")
		return nil
	case s == nil:
		r.notice = r.lang.T("X: no step yet — a handout is of a step taken (space takes one)")
		return nil
	case r.forking:
		r.notice = r.lang.T("X: the run is going back to a step; press X again once it is there")
		return nil
	}
	path, secrets, step, id := m.cfg.Session, m.cfg.Secrets, s.t.Seq, r.id
	var link func(string) (string, error)
	l := m.cfg.Lang
	if m.cfg.Room != nil {
		link = m.cfg.Room.Handout
	}
	r.notice = l.F("writing a handout of step %d…", step)
	return func() tea.Msg {
		out, err := export.StepFile(path, step, export.HTML, secrets...)
		msg := handoutMsg{run: id, step: step, path: out, err: err, lang: l}
		if err == nil && link != nil {
			msg.link, msg.linkErr = link(out)
		}
		return msg
	}
}

// handoutDone says where the handout went, or why it could not be written.
func (r *runView) handoutDone(msg handoutMsg) {
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
		r.history.note(msg.lang.F("handout of step %d — open in your browser while the room is served: %s", msg.step, msg.link))
	default:
		r.notice = msg.lang.F("handout written: %s", msg.path)
	}
}

// sizeGap is the least time between two measurements of the session's size
// while a run of steps (c, i) goes on; when the run stops it is measured
// at once.
const sizeGap = time.Second

// measureSize measures the session's size on disk in a command
// (loop.SessionBytes): at most one measurement in flight, and while a run
// of steps goes on at most one per sizeGap. now forces it (the run has
// stopped, a fork wrote the journal) unless one is in flight; that one is
// then followed by another when it returns.
func (r *runView) measureSize(now bool) tea.Cmd {
	if r.session == "" {
		return nil
	}
	if r.measuring || (!now && time.Since(r.measuredAt) < sizeGap) {
		r.sizeStale = true
		return nil
	}
	r.measuring, r.sizeStale, r.measuredAt = true, false, time.Now()
	path, id := r.session, r.id
	return func() tea.Msg {
		n, err := loop.SessionBytes(path)
		return sessionSizeMsg{run: id, bytes: n, err: err}
	}
}

// sizeMeasured takes in a measurement of the session's size; steps that ended
// while it was under way are measured again once the run has stopped.
func (r *runView) sizeMeasured(msg sessionSizeMsg) tea.Cmd {
	r.measuring = false
	if msg.err != nil {
		r.sizeErr = msg.err.Error()
	} else {
		r.sizeErr = ""
		r.live.sized(msg.bytes)
	}
	if r.sizeStale && !r.busy {
		return r.measureSize(true)
	}
	return nil
}

// healthLines is the runs' health in full for the help overlay: the line,
// the failures fed back by kind and the session's exact size.
func (m Model) healthLines(w int) []string {
	var out []string
	for _, r := range m.runs {
		h := r.live.health
		l := m.cfg.Lang
		title := l.T("This run's health")
		if m.compare() {
			title = l.F("%s's health", r.title())
		}
		out = append(out, m.th.Bold.Render(title))
		out = append(out, wrapLines(r.live.healthLine, w)...)
		var more []string
		if kinds := h.FailureKinds(); kinds != "" {
			more = append(more, l.F("failures fed back: %s", kinds))
		}
		switch {
		case r.session == "":
			more = append(more, l.T("no session on disk"))
		case r.sizeErr != "":
			more = append(more, l.F("session size unknown: %s", r.sizeErr))
		case h.Bytes > 0:
			what := l.F("session on disk: %d bytes", h.Bytes)
			if m.compare() {
				what = l.F("session on disk (both runs): %d bytes", h.Bytes)
			}
			more = append(more, what)
		}
		for _, s := range more {
			for _, ln := range wrapLines(s, w) {
				out = append(out, m.th.Muted.Render(ln))
			}
		}
		out = append(out, "")
	}
	return out
}
