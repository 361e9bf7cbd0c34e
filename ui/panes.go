package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/payload"
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

func (r *runView) historyView(lk look, in rect, focused bool) ([]string, string) {
	end := r.histEnd()
	info := ""
	if r.live.messages > 0 {
		info = fmt.Sprintf("%d message%s", r.live.messages, plural(r.live.messages))
	}
	if r.live.travelling() {
		info = "as of step #" + fmt.Sprint(r.live.selected().t.Seq)
	} else if !r.hist.atBottom(end) {
		info = "↓ more below (G)"
	}
	return r.hist.view(end, focused), info
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

func (r *runView) diagramView(lk look, in rect, focused bool) ([]string, string) {
	state, t := r.shownState()
	v := diagram.View{Current: state, Breakpoints: r.diag.breakpoints}
	if t != nil {
		v.LastFrom, v.LastEdge = t.From, t.Edge
	}
	if focused {
		v.Selected = r.diag.selected()
	}
	// The diagram's own footer says what is happening now; the frame's
	// title adds whether a step is working on it.
	out := r.diag.render(lk, v, in.w, in.h)
	iteration := r.live.iteration
	if t != nil && r.live.travelling() {
		iteration = t.Iteration
	}
	info := fmt.Sprintf("iteration %d/%d", iteration, r.maxIter)
	switch {
	case r.viewing != nil:
		info = fmt.Sprintf("◀ abandoned branch, step %d of %d — B or a step key returns · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.live.travelling():
		info = fmt.Sprintf("◀ viewing step %d of %d — ] returns, f forks from here · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.confirm != nil:
		info = "waiting for your approval · " + info
	case r.ask != nil:
		info = "waiting for your answer · " + info
	case r.busy:
		info = lk.spin + " working on " + string(state) + "… · " + info
	}
	if focused {
		info = "←/→ select " + string(r.diag.selected()) + " · b breakpoint"
	}
	return out[:min(len(out), in.h)], info
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

// payloadView shows the raw HTTP exchange of the selected step's LLM call.
func (r *runView) payloadView(lk look, in rect) ([]string, string) {
	lines, info := r.payloadLines(lk, in)
	win := r.payload.scroll.window(lines, in.h)
	p := r.payload
	if edge := r.decidingEdge(); edge != "" && p.mark >= 0 && p.markOf == pageOf(lines) {
		off := min(max(p.scroll.off, 0), max(len(lines)-in.h, 0))
		if i := p.mark - off; i >= 0 && i < len(win) {
			win = append([]string(nil), win...)
			win[i] = markLine(lk, win[i], in.w)
			info += " · ▶ " + string(edge)
		}
	}
	if len(lines) > in.h {
		info += fmt.Sprintf(" · %d%%", r.payload.scroll.percent(len(lines), in.h))
	}
	return win, info
}

// payloadLines is every line of the Raw payload pane (payloadView scrolls
// them) and the pane's title info.
func (r *runView) payloadLines(lk look, in rect) ([]string, string) {
	if r.busy && r.inflight != nil && !r.live.travelling() {
		return r.livePayloadLines(lk, in)
	}
	sel := r.live.selectedIndex()
	if s := r.live.selected(); s != nil && s.preview != nil && s.t.Edge == loop.EdgeContextReady {
		return r.previewLines(lk, in, s.preview)
	}
	es := r.live.exchangeStep(sel)
	if es < 0 {
		return r.payloadHint(lk, in.w), ""
	}
	t := &r.live.steps[es].t
	switch s := &r.live.steps[es]; {
	case s.loadErr != "":
		return wrapStyled(lk.th.Error, s.loadErr, in.w), ""
	case s.spilled:
		return wrapStyled(lk.th.Muted, fmt.Sprintf("Reading the payload of step #%d back from the session…", t.Seq), in.w), ""
	}
	if len(t.Exchanges) == 0 {
		return wrapStyled(lk.th.Muted, "This model call has no captured HTTP exchange (the provider did not reach the wire).", in.w), ""
	}
	idx := r.payload.exchangeIndex(len(t.Exchanges))
	ex := t.Exchanges[idx]
	v := payload.View{
		Exchanges:  t.Exchanges,
		Index:      idx,
		Response:   r.payload.response,
		Headers:    r.payload.headers,
		Parse:      t.Parse,
		Divergence: ex.Divergence,
	}
	lines := r.payload.r.Lines(lk.th, v, in.w)
	side := "request"
	if r.payload.response {
		side = "response"
	}
	info := side + " (r)"
	if len(t.Exchanges) > 1 {
		info += fmt.Sprintf(" · exchange %d/%d (x)", idx+1, len(t.Exchanges))
	}
	if es != sel {
		info += fmt.Sprintf(" · of step #%d", t.Seq)
	}
	return lines, info
}

// previewLines shows the request a context_ready step assembled, built by
// the SDK exactly as it will go on the wire, before it is sent.
func (r *runView) previewLines(lk look, in rect, p *preview) ([]string, string) {
	if p.err != nil {
		return wrapStyled(lk.th.Warning, "The request is assembled, but glassbox could not build its HTTP form to show it here ("+sanitize(p.err.Error())+"). Press space to send it: the exchange appears here then.", in.w), "not sent yet"
	}
	lines := wrapStyled(lk.th.Warning, "Not sent yet: this is the request exactly as the SDK will put it on the wire. Press space to send it.", in.w)
	if r.payload.response {
		lines = append(lines, wrapStyled(lk.th.Muted, "There is no response yet (r shows the request).", in.w)...)
		return lines, "not sent yet · response (r)"
	}
	info := "not sent yet · request (r)"
	if r.edit != "" && !r.live.travelling() {
		info = "edited (what-if) · " + info
		lines = append(lines, lk.th.Bold.Render("What you changed in the context (what-if):"))
		lines = append(lines, previewLines(lk.th, r.edit, in.w)...)
		lines = append(lines, "")
	}
	v := payload.View{Exchanges: []providers.Exchange{p.ex}, Headers: r.payload.headers}
	return append(lines, r.payload.r.Lines(lk.th, v, in.w)...), info
}

// livePayloadLines shows the provider call still in flight: the request as it
// went out, and the response chunks that have arrived so far.
func (r *runView) livePayloadLines(lk look, in rect) ([]string, string) {
	v := payload.View{
		Exchanges: []providers.Exchange{*r.inflight},
		Response:  r.payload.response,
		Headers:   r.payload.headers,
		Live:      true,
	}
	lines := r.payload.r.Lines(lk.th, v, in.w)
	info := "live · request (r)"
	if r.payload.response {
		info = "live · response (r)"
	}
	if n := len(r.inflight.Chunks); n > 0 && !r.payload.response {
		info += fmt.Sprintf(" · %d chunk%s arrived", n, plural(n))
	}
	return lines, info
}

func (r *runView) payloadHint(lk look, w int) []string {
	var s string
	state, _ := r.shownState()
	switch {
	case len(r.live.steps) == 0:
		s = "No model call yet. Send a request, then step (space) until AWAITING_LLM_RESPONSE: the exact HTTP request and the model's response appear here."
	case r.busy && state == loop.AwaitingLLMResponse && !r.live.travelling():
		s = lk.spin + " The request is on the wire; the exchange appears here when the model answers."
	case state == loop.AwaitingLLMResponse && r.live.travelling():
		s = "This step assembled the request; the step after it sent it. Press ] to see the raw request and response."
	case state == loop.AwaitingLLMResponse:
		s = "The request is assembled but not sent yet. Press space: the provider call goes out and its raw request and response appear here."
	default:
		s = "This step has no model call of its own. Step to AWAITING_LLM_RESPONSE and past it to see the raw exchange; [ and ] move through earlier steps."
	}
	return wrapStyled(lk.th.Muted, s, w)
}

// statusView is the bottom bar: provider, model, backend, iteration, state,
// last latency, tokens and context size. When the terminal is narrow the
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
		parts = append(parts, th.Current.Render(fmt.Sprintf(" ◀ step %d/%d · f forks ", r.live.selectedIndex()+1, len(r.live.steps))))
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
		seg("context", fmt.Sprintf("%d msgs ≈%s tok", tot.messages, approxTokens(tot.chars))),
	)
	if r.live.queued > 0 {
		// Right after the state: an event waiting is what space acts on next.
		afterState := slices.Index(parts, seg("state", r.stateLabel(lk, state))) + 1
		parts = slices.Insert(parts, afterState, seg("queue", fmt.Sprintf("%d event%s", r.live.queued, plural(r.live.queued))))
	}
	if r.reason != "" {
		withReason := slices.Clone(parts)
		i := slices.Index(parts, seg("backend", backend))
		withReason[i] = seg("backend", backend+" ("+r.reason+")")
		if line := strings.Join(withReason, ""); ansi.StringWidth(line) <= w {
			return fitStyled(th.StatusBar, line, w)
		}
	}
	for len(parts) > 1 && ansi.StringWidth(strings.Join(parts, "")) > w {
		parts = parts[:len(parts)-1]
	}
	return fitStyled(th.StatusBar, strings.Join(parts, ""), w)
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
