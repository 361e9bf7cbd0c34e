package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// look is what a run's panes need from the parent to draw themselves: the
// theme and the spinner's current frame.
type look struct {
	th      theme.Theme
	spin    string
	sandbox string // "on — …", "off — reason" or "" (not told)
}

// paneView draws the run's pane p, framed, in rc. focused: the pane has the
// keyboard; zoomed: it fills the body.
func (r *runView) paneView(lk look, p paneID, rc rect, focused, zoomed bool) []string {
	c := r.pane(p)
	content, info := c.view(lk, rc.inner(), focused)
	if zoomed {
		info = strings.TrimSuffix("zoomed (z) · "+info, " · ")
	}
	return frame(lk.th, c.title(), info, focused, rc, content)
}

// histEnd is how many History entries existed at the selected step.
func (r *runView) histEnd() int {
	if r.live.travelling() {
		if s := r.live.selected(); s != nil {
			return s.entries
		}
	}
	return r.hist.len()
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
		lines[1] = ansi.Truncate(lines[1], max(w-3, 1), "") + "…"
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

// isAre agrees a verb with a count: "1 step is", "2 steps are".
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
	th := lk.th
	seg := func(k, v string) string {
		return th.StatusKey.Render(" "+k+" ") + th.StatusBar.Render(v+" ")
	}
	backend := strings.ToUpper(r.backend)
	if backend == "" {
		backend = "?"
	}
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
	// In order of importance; the later ones are dropped first.
	parts := []string{}
	switch {
	case r.viewing != nil:
		parts = append(parts, th.Current.Render(fmt.Sprintf(" ◀ abandoned branch · step %d/%d · B ", r.live.selectedIndex()+1, len(r.live.steps))))
	case r.live.travelling():
		hint := "f forks"
		if r.eng == nil {
			hint = "space catches up" // a followed run: nothing forks here
		}
		parts = append(parts, th.Current.Render(fmt.Sprintf(" ◀ step %d/%d · %s ", r.live.selectedIndex()+1, len(r.live.steps), hint)))
	}
	if r.status != nil {
		if k, v := r.status(); k != "" {
			parts = append(parts, seg(k, v))
		}
	}
	if r.predict != "" {
		parts = append(parts, seg("predict", r.predict))
	}
	parts = append(parts,
		seg("state", r.stateLabel(lk, state)),
		seg("iter", fmt.Sprintf("%d/%d", iteration, r.maxIter)),
		seg(r.provider, r.model),
		seg("backend", backend),
	)
	if on, _, ok := strings.Cut(lk.sandbox, " — "); ok {
		parts = append(parts, seg("sandbox", on))
	}
	parts = append(parts,
		seg("latency", latency),
		seg("tokens", fmt.Sprintf("%d in / %d out", tot.tokensIn, tot.tokensOut)),
		seg("context", fmt.Sprintf("%d msg%s ≈%s tok", tot.messages, plural(tot.messages), approxTokens(tot.chars))),
	)
	if r.live.queued > 0 {
		// Right after the state: an event waiting is what space acts on next.
		afterState := slices.Index(parts, seg("state", r.stateLabel(lk, state))) + 1
		parts = slices.Insert(parts, afterState, seg("queue", fmt.Sprintf("%d event%s", r.live.queued, plural(r.live.queued))))
	}
	line := ""
	if r.reason != "" {
		withReason := slices.Clone(parts)
		i := slices.Index(parts, seg("backend", backend))
		withReason[i] = seg("backend", backend+" ("+r.reason+")")
		if l := strings.Join(withReason, ""); ansi.StringWidth(l) <= w {
			line = l
		}
	}
	if line == "" {
		all := len(parts)
		for len(parts) > 1 && ansi.StringWidth(strings.Join(parts, "")) > w {
			parts = parts[:len(parts)-1]
		}
		line = strings.Join(parts, "")
		if len(parts) < all {
			return fitStyled(th.StatusBar, line, w) // no room left for the health
		}
	}
	// Last and lowest: the run's health in the room that is left, its parts
	// falling from the end as the room shrinks (the help overlay has it in
	// full).
	room := w - ansi.StringWidth(line) - ansi.StringWidth(seg("health", ""))
	v := r.live.healthLine
	for room > 0 && ansi.StringWidth(v) > room {
		i := strings.LastIndex(v, " · ")
		if i < 0 {
			v = ""
			break
		}
		v = v[:i]
	}
	if room > 0 && v != "" {
		line += seg("health", v)
	}
	return fitStyled(th.StatusBar, line, w)
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
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
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
