package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// look is what a run's panes need from the parent to draw themselves: the
// theme and the spinner's current frame.
type look struct {
	th      theme.Theme
	spin    string
	sandbox string // "on — …", "off — reason" or "" (not told)
	// The status bar's two styles as brushes: a bar is some twenty
	// segments, each a label and a value.
	statusKey, statusBar theme.Brush
}

// paneView draws the run's pane p, framed, in rc. focused: the pane has the
// keyboard; zoomed: it fills the body.
func (r *runView) paneView(lk look, p paneID, rc rect, focused, zoomed bool) []string {
	c := r.panes[p]
	content, info := c.view(lk, rc.inner(), focused)
	if zoomed {
		info = strings.TrimSuffix(r.lang.T("zoomed (z)")+" · "+info, " · ")
	}
	title := c.title(r.lang)
	if frameFits(title, info, rc.w) != frameFits(c.shortTitle(r.lang), info, rc.w) {
		title = c.shortTitle(r.lang) // the short name leaves the status whole
	}
	return frame(lk.th, title, info, focused, rc, content)
}

// frameFits reports whether a frame w cells wide shows title and info
// whole (frame's own arithmetic: a corner and a rule before the title, a
// rule and a corner after the info, a space either side of each).
func frameFits(title, info string, w int) bool {
	return 1+1+ansi.StringWidth(title)+2+ansi.StringWidth(info)+2+1+1 <= w
}

// followShown has the Raw payload follow the step the panes show now.
func (r *runView) followShown() {
	if s := r.live.selected(); s != nil {
		r.payload.follow(&s.t)
	}
}

// shownState is the state the diagram lights: the selected step's target,
// or the engine's state now.
func (r *runView) shownState() (loop.State, *loop.Transition) {
	if s := r.live.selected(); s != nil && r.live.travelling() {
		return s.t.To, &s.t
	}
	if s := r.live.selected(); s != nil {
		return r.live.state, &s.t
	}
	return r.live.state, nil
}

// resultGist is a tool result in at most two lines of width w: its lines
// joined (a list_files result shows its names, not only the first), cut
// with … when there is more.
func resultGist(content string, w int) []string {
	var parts []string
	for _, ln := range strings.Split(sanitize(content), "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			parts = append(parts, ln)
		}
	}
	lines := wrapLines("⇒ "+strings.Join(parts, " · "), max(w-2, 1))
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = cell.Truncate(lines[1], max(w-3, 1), "") + "…"
	}
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return lines
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isAre agrees a verb with a count: "1 step is", "2 steps are". A
// Japanese format drops it (and plural's "s") with %.0s.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// statusView is the bottom bar: provider, model, backend, iteration, state,
// last latency, tokens, context size and the run's health. When the terminal is narrow the
// least important segments go first.
func (r *runView) statusView(lk look, w int) string {
	line, whole := r.statusLine(lk, w)
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
func (r *runView) statusLine(lk look, w int) (line string, whole bool) {
	backend := strings.ToUpper(r.backend)
	if backend == "" {
		backend = "?"
	}
	parts, backendAt := r.statusParts(lk, backend)
	if r.reason != "" {
		withReason := slices.Clone(parts)
		withReason[backendAt] = lk.statusSegment(r.lang.T("backend"), backend+" ("+backendReason(r.lang, r.reason)+")")
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
func (r *runView) statusParts(lk look, backend string) (parts []string, backendAt int) {
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
	if travel := r.travelSegment(lk); travel != "" {
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
	parts = append(parts, seg(l.T("state"), r.stateLabel(lk, state)))
	if r.live.queued > 0 {
		// Right after the state: an event waiting is what space acts on next.
		parts = append(parts, seg(l.T("queue"), l.F("%d event%s", r.live.queued, plural(r.live.queued))))
	}
	parts = append(parts,
		seg(l.T("iter"), r.iterLabel(iteration)),
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

// iterLabel is the iteration out of the limit; another agent's (a tap)
// has a limit of its own that glassbox does not know.
func (r *runView) iterLabel(iteration int) string {
	if r.maxIter == 0 {
		return fmt.Sprint(iteration)
	}
	return fmt.Sprintf("%d/%d", iteration, r.maxIter)
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
func (r *runView) travelSegment(lk look) string {
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

// stateLabel is the state for the status bar, with the spinner while a
// step works on it.
func (r *runView) stateLabel(lk look, s loop.State) string {
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

func wrapStyled(st interface{ Render(...string) string }, s string, w int) []string {
	lines := wrapLines(s, w)
	for i := range lines {
		lines[i] = st.Render(lines[i])
	}
	return lines
}
