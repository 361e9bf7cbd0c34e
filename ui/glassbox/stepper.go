package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// stepper is what the stepping and looking keys act on: the glass box's runs,
// which of them the keys drive (all of them, or in compare mode one picked
// with tab), which one is on screen when there is room for one, which pane
// has the keys and whether it is zoomed. Its methods are what those keys do
// to the runs: step, pause, travel in time, flip the Raw payload, set a
// breakpoint, pick a run, a pane, the zoom. Each says what happened in a line
// for the notice ("": nothing to say).
type stepper struct {
	runs []*runView
	lang lang.Lang
	// run is the run the keys act on alone, or -1: every run. shown is the
	// run drawn when the screen has room for one.
	run, shown int
	pane       paneID // the focused pane (and the tab shown in tabs mode)
	zoomed     bool
}

// compare reports whether the glass box shows two runs side by side.
func (s *stepper) compare() bool { return len(s.runs) > 1 }

// cur is the run whose panes the screen shows when it shows one: the
// focused run, else the one last shown.
func (s *stepper) cur() *runView {
	if s.run >= 0 && s.run < len(s.runs) {
		return s.runs[s.run]
	}
	return s.runs[min(max(s.shown, 0), len(s.runs)-1)]
}

// targets are the runs a stepping key acts on: the focused one, or all.
func (s *stepper) targets() []*runView {
	if s.run >= 0 && s.run < len(s.runs) {
		return s.runs[s.run : s.run+1]
	}
	return s.runs
}

// busy reports whether any run has a step in flight.
func (s *stepper) busy() bool {
	for _, r := range s.runs {
		if r.busy {
			return true
		}
	}
	return false
}

// dialogRun is the run whose dialog (approval or question) is on screen:
// the focused run's if it has one, else the first run waiting for the
// person whose dialog is not hidden.
func (s *stepper) dialogRun() *runView {
	if r := s.cur(); s.run >= 0 && r.dialogShown() {
		return r
	}
	for _, r := range s.runs {
		if r.dialogShown() {
			return r
		}
	}
	return nil
}

// hiddenDialogRun is the run whose dialog esc hid, if any: its step still
// waits for the person.
func (s *stepper) hiddenDialogRun() *runView {
	for _, r := range s.targets() {
		if r.waitsForPerson() && r.hidden {
			return r
		}
	}
	return nil
}

// midEvent is the state of a run that is in the middle of an event, or "":
// a request sent now waits behind it.
func (s *stepper) midEvent() string {
	for _, r := range s.runs {
		if r.busy || r.live.state != loop.WaitingForEvent {
			return string(r.live.state)
		}
	}
	return ""
}

// hasHistory reports whether quitting would lose something: a step taken
// or a request queued in some run.
func (s *stepper) hasHistory() bool {
	for _, r := range s.runs {
		if len(r.live.steps) > 0 || r.live.queued > 0 || r.busy {
			return true
		}
	}
	return false
}

// fetchPayloads reads back what the runs' payload panes are about to show.
func (s *stepper) fetchPayloads() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range s.runs {
		cmds = append(cmds, r.store.fetch(r.id, r.live))
	}
	return tea.Batch(cmds...)
}

// cancelSteps cancels every run's step in flight.
func (s *stepper) cancelSteps() {
	for _, r := range s.runs {
		r.cancelStep()
	}
}

// step starts mode on every target run that can take a step; the key that
// started it is by. In compare mode a run that is idle or waits for the
// person sits this one out and says so.
func (s *stepper) step(mode runMode, by string) []tea.Cmd {
	var cmds []tea.Cmd
	all := s.compare() && s.run < 0
	for _, r := range s.targets() {
		if all && (r.idle() || r.busy) {
			if r.busy {
				r.notice = r.lang.T("busy: waits for its step in flight")
			} else {
				r.notice = r.lang.T("idle: waits for the other run")
			}
			continue
		}
		cmds = append(cmds, r.startRun(mode, by))
	}
	if len(cmds) == 0 && all {
		// Both idle: let each say so in its own words.
		for _, r := range s.runs {
			cmds = append(cmds, r.startRun(mode, by))
		}
	}
	return cmds
}

// returnToPresent is what a stepping key does while a past step is shown:
// it comes back to the present and says so, instead of stepping from a
// place the learner is not looking at. It reports whether any run was in
// the past.
func (s *stepper) returnToPresent() bool {
	was := false
	for _, r := range s.targets() {
		if r.viewing != nil {
			r.leaveBranch()
			was = true
		}
		if r.live.travelling() {
			was = true
			r.live.cursor = -1
			r.followShown()
		}
	}
	return was
}

// pause is p: the runs of steps in flight stop after their transition.
func (s *stepper) pause() string {
	notice := ""
	for _, r := range s.targets() {
		if r.busy && r.mode != runOne {
			r.pauseAsked = true
			notice = s.lang.T("pausing after this transition…")
		}
	}
	if notice == "" {
		return s.lang.T("nothing to pause: p stops a run of steps (i or c) after the transition in flight")
	}
	return notice
}

// travel is [ and ]: back or forward through the steps taken; in compare
// mode with both runs acting, through the model calls of both.
func (s *stepper) travel(delta int) string {
	if s.compare() && s.run < 0 {
		return s.travelByCall(delta)
	}
	for _, r := range s.targets() {
		r.live.move(delta)
		r.followShown()
		r.tools.reset()
	}
	return ""
}

// travelByCall is [ and ] when the keys act on both runs of compare mode:
// both move to the same model call, so call k of one run stands beside call
// k of the other (their steps in between differ). The first [ lines both
// up on the latest call shown.
func (s *stepper) travelByCall(delta int) string {
	k, aligned := 0, true
	for _, r := range s.runs {
		rk, exact := r.live.callAt()
		if (rk != k && k != 0) || !exact {
			aligned = false
		}
		k = max(k, rk)
	}
	target := k + delta
	if delta < 0 && !aligned {
		target = k
	}
	most := 0
	for _, r := range s.runs {
		most = max(most, len(r.live.callSteps()))
	}
	var notice string
	switch {
	case most == 0:
		return s.lang.T("no model call yet: [ and ] move between the runs' model calls")
	case target < 1:
		target = 1
		notice = s.lang.T("this is the first model call of both runs")
	case target > most:
		notice = s.lang.T("back to the present in both runs")
	default:
		notice = s.lang.F("model call %d of each run, side by side ([ ] move both; tab picks one run to move step by step)", target)
	}
	for _, r := range s.runs {
		r.live.showCall(target)
		r.followShown()
		r.tools.reset()
	}
	return notice
}

// flipSide is r: request or response in the Raw payload.
func (s *stepper) flipSide() {
	for _, r := range s.targets() {
		r.payload.flip()
	}
}

// nextExchange is x: the next HTTP exchange of the model call shown.
func (s *stepper) nextExchange() string {
	notice := ""
	for _, r := range s.targets() {
		es := r.live.exchangeStep(r.live.selectedIndex())
		switch {
		case es < 0:
			notice = s.lang.T("x: no model call yet, so no HTTP exchange to switch to")
		case len(r.live.steps[es].t.Exchanges) < 2:
			notice = s.lang.T("x: this model call made one HTTP exchange (retries make more)")
		default:
			r.payload.nextExchange(len(r.live.steps[es].t.Exchanges))
		}
	}
	return notice
}

// nextPane is tab: the next pane, or in compare mode the next run the keys
// act on.
func (s *stepper) nextPane() action {
	if s.compare() {
		return s.cycleRun()
	}
	s.pane = (s.pane + 1) % numPanes
	return action{panes: true, resize: true}
}

// prevPane is shift+tab: the previous pane (in compare mode too, where tab
// picks the run).
func (s *stepper) prevPane() action {
	s.pane = (s.pane + numPanes - 1) % numPanes
	return action{panes: true, resize: true}
}

// zoom is z: the focused pane fills the body (in compare mode, that pane
// of each run, side by side), or back. In tabs every pane fills it already.
func (s *stepper) zoom(tabs bool) action {
	if !s.zoomed && tabs {
		return say(s.lang.T("each pane already fills the screen here (z zooms from 120 columns)"))
	}
	s.zoomed = !s.zoomed
	return action{resize: true}
}

// unzoom is esc at the stepper: out of the zoom.
func (s *stepper) unzoom() action {
	if !s.zoomed {
		return action{}
	}
	s.zoomed = false
	return action{resize: true}
}

// cycleRun is tab in compare mode: both runs → the first alone → the second
// alone → both again. A run picked alone takes every key and is the run
// shown, so what the keys drive is always on screen.
func (s *stepper) cycleRun() action {
	s.run++
	if s.run >= len(s.runs) {
		s.run = -1
	}
	if s.run < 0 {
		return action{notice: s.lang.T("keys act on both runs (tab picks one; v shows the other run)"), resize: true}
	}
	s.shown = s.run
	return action{notice: s.lang.F("keys act on %s alone (tab: next)", s.runs[s.run].title()), resize: true}
}

// lookAtNextRun is v in compare mode: show the other run's panes without
// changing which runs the keys act on. While the keys act on one run alone,
// that run stays on screen.
func (s *stepper) lookAtNextRun() action {
	switch {
	case !s.compare():
		return say(s.lang.T("v shows the other run in compare mode (--compare)"))
	case s.run >= 0:
		return say(s.lang.F("the keys act on %s alone, so it stays on screen: tab back to both runs first (z on a pane shows it for both runs)", s.runs[s.run].title()))
	}
	s.shown = (s.shown + 1) % len(s.runs)
	return action{notice: s.lang.F("showing %s — the keys still act on both runs (tab picks one)", s.runs[s.shown].title()), resize: true}
}
