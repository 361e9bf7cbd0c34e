package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// stripView draws compare mode's comparison strip in rc.
func (m Model) stripView(rc rect) []string {
	content, info := m.strip.view(m.look(), rc.inner())
	return frame(m.th, m.strip.heading(), info, false, rc, content)
}

// runBarView names the runs when one run's panes are on screen: the run
// shown is lit, and the line says which runs the keys act on (tab picks)
// and that v shows the other run without changing that.
func (m Model) runBarView(w int) string {
	var parts []string
	for i, r := range m.runs {
		name := " " + r.title() + " "
		if i == m.cur().id {
			name = " ▶ " + m.cfg.Lang.F("showing %s", r.title()) + " "
		}
		st := m.th.Muted
		if i == m.cur().id {
			st = m.th.Current
		}
		parts = append(parts, st.Render(name))
	}
	hint := m.cfg.Lang.T("keys act on both runs · tab picks one · v shows the other run · z: a pane of both")
	if m.focus >= 0 {
		hint = m.cfg.Lang.F("keys act on %s alone · tab: next", m.runs[m.focus].title())
	}
	return ansi.Truncate(strings.Join(parts, m.th.Muted.Render("│"))+m.th.Muted.Render("  "+hint), w, "…")
}

// runHeadView is one run's title line above its column (compare mode,
// wide): its name, backend and state, lit when the keys act on it alone.
func (m Model) runHeadView(i, w int) string {
	r := m.runs[i]
	lk := m.look()
	state, _ := r.shownState()
	name := r.title()
	if r.label != "" {
		name = m.cfg.Lang.Dyn(r.label)
	}
	head := fmt.Sprintf(" %s · %s %s · %s ", name, r.model, strings.ToUpper(r.backend), r.stateLabel(lk, state))
	st := m.th.Bold
	if m.focus == i {
		st = m.th.Current
		head = " ▶" + head // the keys act on this run alone
	}
	return st.Render(ansi.Truncate(head, w, "…"))
}

// statusView is the status bar: the run shown when one run is on screen or
// has the keys; in compare mode with both runs acting, a short segment per
// run.
func (m Model) statusView(w int) string {
	lk := m.look()
	if !m.compare() || m.focus >= 0 {
		r := m.cur()
		line := r.statusView(lk, w-m.runTagWidth())
		if m.compare() {
			line = m.th.Current.Render(" "+r.title()+" ") + line
		}
		return line
	}
	th := m.th
	var parts []string
	for _, r := range m.runs {
		state, t := r.shownState()
		iteration := r.live.iteration
		if t != nil && r.live.travelling() {
			iteration = t.Iteration
		}
		seg := th.StatusKey.Render(" "+r.title()+" ") + th.StatusBar.Render(m.cfg.Lang.F(" %s · iter %d/%d · %s ", r.stateLabel(lk, state), iteration, r.maxIter, strings.ToUpper(r.backend)))
		if r.live.travelling() {
			seg = th.Current.Render(fmt.Sprintf(" ◀ %d/%d ", r.live.selectedIndex()+1, len(r.live.steps))) + seg
		}
		parts = append(parts, seg)
	}
	return fitStyled(th.StatusBar, strings.Join(parts, th.StatusBar.Render(" │ ")), w)
}

// runTagWidth is the room the run's name takes in front of the status bar
// in compare mode.
func (m Model) runTagWidth() int {
	if !m.compare() {
		return 0
	}
	return ansi.StringWidth(m.cur().title()) + 2
}

// callSteps lists the indexes of the run's steps that made a model call,
// in order: call k (1-based) is callSteps()[k-1].
func (r *runView) callSteps() []int {
	var out []int
	for i := range r.live.steps {
		if r.live.steps[i].t.LLM != nil {
			out = append(out, i)
		}
	}
	return out
}

// callAt is the number of the latest model call at or before the step the
// panes show (0 before the first), and whether that step is the call itself.
func (r *runView) callAt() (k int, exact bool) {
	sel := r.live.selectedIndex()
	for i, s := range r.callSteps() {
		if s > sel {
			break
		}
		k, exact = i+1, s == sel
	}
	return k, exact
}

// showCall selects the step of the run's model call k, or the present when
// the run has made fewer calls.
func (r *runView) showCall(k int) {
	calls := r.callSteps()
	if k < 1 || k > len(calls) || calls[k-1] == len(r.live.steps)-1 {
		r.live.cursor = -1
	} else {
		r.live.cursor = calls[k-1]
	}
	r.followShown()
	r.tools.reset()
}

// travelByCall is [ and ] when the keys act on both runs of compare mode:
// both move to the same model call, so call k of one run stands beside call
// k of the other (their steps in between differ). The first [ lines both
// up on the latest call shown.
func (m *Model) travelByCall(delta int) {
	k, aligned := 0, true
	for _, r := range m.runs {
		rk, exact := r.callAt()
		if rk != k && k != 0 {
			aligned = false
		}
		if !exact {
			aligned = false
		}
		k = max(k, rk)
	}
	target := k + delta
	if delta < 0 && !aligned {
		target = k
	}
	most := 0
	for _, r := range m.runs {
		most = max(most, len(r.callSteps()))
	}
	switch {
	case most == 0:
		m.notice = m.cfg.Lang.T("no model call yet: [ and ] move between the runs' model calls")
		return
	case target < 1:
		target = 1
		m.notice = m.cfg.Lang.T("this is the first model call of both runs")
	case target > most:
		m.notice = m.cfg.Lang.T("back to the present in both runs")
	default:
		m.notice = m.cfg.Lang.F("model call %d of each run, side by side ([ ] move both; tab picks one run to move step by step)", target)
	}
	for _, r := range m.runs {
		r.showCall(target)
	}
}
