package glassbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// statusBar is the lines around the panes: the help line (the notice, then
// the keys of whatever has the keyboard), the status bar, and on a narrow
// screen the tab bar; in compare mode the run bar and each run's title
// line. It keeps the notice: what the last key did.
type statusBar struct {
	*kit
	stepper *stepper
	notice  string // one line: what the last key did ("lesson tour: …")
	resume  string // Config.Resume: the command that reopens the session
}

// helpLine is the latest notice ("cancelled: …", "idle — …") followed by
// the short help for what has the keys (km); top is the dialog on top.
func (b *statusBar) helpLine(w int, top dialog, km help.KeyMap) string {
	if w <= 0 {
		return ""
	}
	notice := ""
	text := b.noticeText(top)
	if _, quitting := top.(quitDialog); quitting {
		text = b.quitText(w) // fitted to the line
	}
	if text != "" {
		notice = b.th.Warning.Render(cell.Truncate(text, w, "…")) + "  "
	}
	return notice + b.shortHelp(w-cell.Width(notice), km)
}

// noticeText is the latest notice: the parent's own, else what happened to
// the runs (each named in compare mode). top is the dialog on top.
func (b *statusBar) noticeText(top dialog) string {
	if _, quitting := top.(quitDialog); quitting {
		return b.quitText(0)
	}
	l := b.lang
	if r := b.stepper.hiddenDialogRun(); r != nil && b.notice == "" {
		if r.ask != nil {
			return l.T("the question dialog is hidden and the step waits for you: space (or enter) brings it back")
		}
		return l.T("the approval dialog is hidden and the step waits for you: space (or enter) brings it back")
	}
	if b.notice != "" {
		return b.notice
	}
	var parts []string
	for _, r := range b.stepper.runs {
		if r.notice == "" {
			continue
		}
		if b.stepper.compare() {
			parts = append(parts, r.name+": "+r.notice)
		} else {
			parts = append(parts, r.notice)
		}
	}
	return strings.Join(parts, " · ")
}

// tempNote says that quitting removes the workspace copy, when the
// workspace label says it is one.
func (b *statusBar) tempNote() string {
	for _, r := range b.stepper.runs {
		if r.temporary {
			return b.lang.T(", and the temporary workspace copy is removed")
		}
	}
	return ""
}

// quitText asks before quitting and says what quitting keeps: with a
// session, the command that reopens it when it fits in w columns beside
// the keys (w 0: no limit); it is printed on exit in any case.
func (b *statusBar) quitText(w int) string {
	if b.resume == "" {
		return b.lang.T("quit glassbox? the steps on screen are lost") + b.tempNote()
	}
	full := b.lang.F("quit glassbox? the session is kept: %s", b.resume)
	keys := b.help
	keys.Width = 0 // all of them
	if w == 0 || ansi.StringWidth(full)+2+ansi.StringWidth(keys.View(b.quitKeys)) <= w {
		return full
	}
	return b.lang.T("quit glassbox? the session is kept")
}

// shortHelp is the short help of km at width w, drawn once per width and
// keys (helpMemo).
func (b *statusBar) shortHelp(w int, km help.KeyMap) string {
	if w <= 0 {
		return ""
	}
	keys := km.ShortHelp() // what help.Model.View draws (ShowAll is never set)
	return b.drawnHelp.lines(helpKey("short", w, keys), func() []string {
		h := b.help
		h.Width = w
		return []string{h.ShortHelpView(keys)}
	})[0]
}

// status is the status bar: the run shown when one run is on screen or has
// the keys; in compare mode with both runs acting, a short segment per run.
func (b *statusBar) status(lk look, w int) string {
	s := b.stepper
	if !s.compare() || s.run >= 0 {
		r := s.cur()
		line := runStatus(r, lk, w-b.runTagWidth())
		if s.compare() {
			line = b.th.Current.Render(" "+r.title()+" ") + line
		}
		return line
	}
	th := b.th
	var parts []string
	for _, r := range s.runs {
		state, t := r.shownState()
		iteration := r.live.iteration
		if t != nil && r.live.travelling() {
			iteration = t.Iteration
		}
		seg := th.StatusKey.Render(" "+r.title()+" ") + th.StatusBar.Render(b.lang.F(" %s · iter %d/%d · %s ", stateLabel(r, lk, state), iteration, r.maxIter, strings.ToUpper(r.backend)))
		if r.live.travelling() {
			seg = th.Current.Render(fmt.Sprintf(" ◀ %d/%d ", r.live.selectedIndex()+1, len(r.live.steps))) + seg
		}
		parts = append(parts, seg)
	}
	return fitStyled(th.StatusBar, strings.Join(parts, th.StatusBar.Render(" │ ")), w)
}

// runTagWidth is the room the run's name takes in front of the status bar
// in compare mode.
func (b *statusBar) runTagWidth() int {
	if !b.stepper.compare() {
		return 0
	}
	return ansi.StringWidth(b.stepper.cur().title()) + 2
}

// runBar names the runs when one run's panes are on screen: the run shown
// is lit, and the line says which runs the keys act on (tab picks) and that
// v shows the other run without changing that.
func (b *statusBar) runBar(w int) string {
	s := b.stepper
	var parts []string
	for i, r := range s.runs {
		name := " " + r.title() + " "
		if i == s.cur().id {
			name = " ▶ " + b.lang.F("showing %s", r.title()) + " "
		}
		st := b.th.Muted
		if i == s.cur().id {
			st = b.th.Current
		}
		parts = append(parts, st.Render(name))
	}
	hint := b.lang.T("keys act on both runs · tab picks one · v shows the other run · z: a pane of both")
	if s.run >= 0 {
		hint = b.lang.F("keys act on %s alone · tab: next", s.runs[s.run].title())
	}
	return ansi.Truncate(strings.Join(parts, b.th.Muted.Render("│"))+b.th.Muted.Render("  "+hint), w, "…")
}

// runHead is run i's title line above its column (compare mode, wide): its
// name, backend and state, lit when the keys act on it alone.
func (b *statusBar) runHead(lk look, i, w int) string {
	r := b.stepper.runs[i]
	state, _ := r.shownState()
	name := r.title()
	if r.label != "" {
		name = b.lang.Dyn(r.label)
	}
	head := fmt.Sprintf(" %s · %s %s · %s ", name, r.model, strings.ToUpper(r.backend), stateLabel(r, lk, state))
	st := b.th.Bold
	if b.stepper.run == i {
		st = b.th.Current
		head = " ▶" + head // the keys act on this run alone
	}
	return st.Render(ansi.Truncate(head, w, "…"))
}

// tabBar is the row of pane names in tabs mode; tab switches.
func (b *statusBar) tabBar(w int) string {
	var parts []string
	// The key that changes the pane: tab, or in compare mode (where tab
	// picks the run) shift+tab.
	hint := b.th.Muted.Render("  " + b.keys.Focus.Help().Key + " ⇥")
	if b.stepper.compare() {
		hint = b.th.Muted.Render("  " + b.keys.FocusBack.Help().Key + " ⇤")
	}
	titles := tabTitles(w-cell.Width(hint)+1, b.lang, b.stepper.cur().panes) // the hint is on the same line

	for p := paneID(0); p < numPanes; p++ {
		name := " " + titles[p] + " "
		if p == b.stepper.pane {
			parts = append(parts, b.th.Current.Render(name))
		} else {
			parts = append(parts, b.th.Muted.Render(name))
		}
	}
	return cell.Truncate(strings.Join(parts, b.th.Muted.Render("│"))+hint, w, "…")
}

// runStatus is run r's status bar: provider, model, backend, iteration,
// state, last latency, tokens, context size and the run's health. When the
// terminal is narrow the least important segments go first.
func runStatus(r *runView, lk look, w int) string {
	line, whole := statusLine(r, lk, w)
	if !whole {
		return fitStyled(lk.th.StatusBar, line, w) // no room left for the health
	}
	// Last and lowest: the run's health in the room that is left, its parts
	// falling from the end as the room shrinks (the help overlay has it in
	// full).
	room := w - cell.Width(line) - cell.Width(lk.statusSegment(r.lang.T("health"), ""))
	if v := fitHealth(r.live.healthLine, room); v != "" {
		line += lk.statusSegment(r.lang.T("health"), v)
	}
	return fitStyled(lk.th.StatusBar, line, w)
}

// statusSegment is one labelled segment of the status bar.
func (lk look) statusSegment(k, v string) string {
	return lk.statusKey.Render(" "+k+" ") + lk.statusBar.Render(v+" ")
}

// statusLine is the status bar's segments that fit in w; whole says none
// had to go. The backend's reason is shown only when every segment fits
// with it.
func statusLine(r *runView, lk look, w int) (line string, whole bool) {
	backend := strings.ToUpper(r.backend)
	if backend == "" {
		backend = "?"
	}
	parts, backendAt := statusParts(r, lk, backend)
	if r.reason != "" {
		withReason := slices.Clone(parts)
		withReason[backendAt] = lk.statusSegment(r.lang.T("backend"), backend+" ("+lk.who.BackendReason(r.lang, r.reasonIn(r.lang))+")")
		if l := strings.Join(withReason, ""); cell.Width(l) <= w {
			return l, true
		}
	}
	all := len(parts)
	for len(parts) > 1 && cell.Width(strings.Join(parts, "")) > w {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, ""), len(parts) == all
}

// statusParts are the status bar's segments in order of importance (the
// later ones are dropped first), and where the backend's is among them.
func statusParts(r *runView, lk look, backend string) (parts []string, backendAt int) {
	l := r.lang
	seg := lk.statusSegment
	state, t := r.shownState()
	iteration := r.live.iteration
	if t != nil && r.live.travelling() {
		iteration = t.Iteration
	}
	tot := r.live.shownTotals()
	latency := "-"
	if tot.hasLatency {
		latency = fmt.Sprintf("%d ms", tot.lastLatencyMS)
	}
	if travel := travelSegment(r, lk); travel != "" {
		parts = append(parts, travel)
	}
	if r.tapStatus != nil {
		parts = append(parts, seg("tap", r.tapStatus(l)))
	}
	if r.status != nil {
		if k, v := r.status(); k != "" {
			parts = append(parts, seg(l.Dyn(k), v)) // the serve side's label ("followers")
		}
	}
	if r.predict != "" {
		parts = append(parts, seg(l.T("predict"), r.predict))
	}
	parts = append(parts, seg(l.T("state"), stateLabel(r, lk, state)))
	if r.live.queued > 0 {
		// Right after the state: an event waiting is what space acts on next.
		parts = append(parts, seg(l.T("queue"), l.F("%d event%s", r.live.queued, plural(r.live.queued))))
	}
	if b := r.breakSegment(seg); b != "" {
		parts = append(parts, b) // which breakpoint stopped the run, or how many are set
	}
	parts = append(parts,
		seg(l.T("iter"), r.iterOf(iteration)),
		seg(r.provider, r.model),
	)
	backendAt = len(parts)
	parts = append(parts, seg(l.T("backend"), backend))
	if r.telemetry != nil {
		// Right after the backend: where the run's spans go, and any lost.
		parts = append(parts, seg("otlp", telemetrySegment(l, r.telemetry())))
	}
	if on, _, ok := strings.Cut(lk.sandbox, " — "); ok {
		parts = append(parts, seg(l.T("sandbox"), onOff(l, on)))
	}
	parts = append(parts,
		seg(l.T("latency"), latency),
		seg(l.T("tokens"), l.F("%d in / %d out", tot.tokensIn, tot.tokensOut)),
		seg(l.T("context"), l.F("%d msg%s ≈%s tok", tot.messages, plural(tot.messages), approxTokens(tot.chars))),
	)
	return parts, backendAt
}

// telemetrySegment is the OpenTelemetry export in a few words: spans
// sent, and those dropped with the first reason ("12 sent · 3 dropped:
// refused"); the whole reasons are printed when glassbox ends.
func telemetrySegment(l lang.Lang, s telemetry.Stats) string {
	v := l.F("%d sent", s.Sent)
	if n := s.DroppedTotal(); n > 0 {
		why := l.Dyn(s.Dropped[0].Reason.Short())
		if d := s.Dropped[0].Detail; d != "" {
			why = d // "HTTP 401" says more than "rejected"
		}
		v += " · " + l.F("%d dropped: %s", n, why)
	}
	return v
}

// travelSegment is the status bar's first segment when the run shows a
// past step or an abandoned branch, and what to press there; "" otherwise.
func travelSegment(r *runView, lk look) string {
	switch {
	case r.viewing != nil:
		return lk.th.Current.Render(" ◀ " + r.lang.F("abandoned branch · step %d/%d · B", r.live.selectedIndex()+1, len(r.live.steps)) + " ")
	case r.live.travelling():
		hint := r.lang.T("f forks")
		if r.eng == nil {
			hint = r.lang.T("space catches up") // a followed run: nothing forks here
		}
		return lk.th.Current.Render(" ◀ " + r.lang.F("step %d/%d · %s", r.live.selectedIndex()+1, len(r.live.steps), hint) + " ")
	}
	return ""
}

// onOff is the sandbox's state, "on" or "off" and what follows it ("on
// (open: TCP, UDP)"), with the word in language l.
func onOff(l lang.Lang, s string) string {
	word, rest, _ := strings.Cut(s, " ")
	if word != "on" && word != "off" {
		return s
	}
	return strings.TrimSpace(l.Dyn(word) + " " + rest)
}

// fitHealth drops the health line's parts from the end until it fits in
// room; "" when not even its first part fits.
func fitHealth(v string, room int) string {
	if room <= 0 {
		return ""
	}
	for cell.Width(v) > room {
		i := strings.LastIndex(v, " · ")
		if i < 0 {
			return ""
		}
		v = v[:i]
	}
	return v
}

// stateLabel is run r's state s for the status bar, with the spinner while
// a step works on it.
func stateLabel(r *runView, lk look, s loop.State) string {
	if r.busy && !r.live.travelling() && !r.waitsForPerson() { // a dialog waits for the person, not the machine
		return lk.spin + " " + string(s) + "…"
	}
	return string(s)
}

// fitStyled truncates or pads a status line, painting the padding.
func fitStyled(th interface{ Render(...string) string }, s string, w int) string {
	sw := cell.Width(s)
	if sw > w {
		return cell.Truncate(s, w, "…")
	}
	return s + th.Render(strings.Repeat(" ", w-sw))
}

func approxTokens(chars int) string {
	t := chars / 4
	if t >= 1000 {
		return fmt.Sprintf("%.1fk", float64(t)/1000)
	}
	return fmt.Sprint(t)
}

// iterOf is an iteration against the run's limit ("2/10"), or alone when
// the limit is not known (a trace file's agent keeps its own).
func (r *runView) iterOf(iteration int) string {
	if r.maxIter == 0 {
		return fmt.Sprint(iteration)
	}
	return fmt.Sprintf("%d/%d", iteration, r.maxIter)
}
