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
)

// paneView draws pane p, framed, in r.
func (m Model) paneView(p paneID, r rect) []string {
	in := r.inner()
	focused := !m.inputFocused && m.pane == p
	var content []string
	var info string
	switch p {
	case paneHistory:
		content, info = m.historyView(in, focused)
	case paneDiagram:
		content, info = m.diagramView(in)
	case paneTools:
		content, info = m.toolsView(in)
	case panePayload:
		content, info = m.payloadView(in)
	}
	if m.zoomed && m.pane == p {
		info = strings.TrimPrefix(strings.TrimSpace(info+" · zoomed (z)"), "· ")
	}
	return frame(m.th, p.title(), info, focused, r, content)
}

// histEnd is how many History entries existed at the selected step.
func (m Model) histEnd() int {
	if m.live.travelling() {
		if s := m.live.selected(); s != nil {
			return s.entries
		}
	}
	return m.hist.len()
}

func (m Model) historyView(in rect, focused bool) ([]string, string) {
	m.hist.setSize(m.th, in.w-2, in.h)
	end := m.histEnd()
	info := ""
	if m.live.messages > 0 {
		info = fmt.Sprintf("%d message%s", m.live.messages, plural(m.live.messages))
	}
	if m.live.travelling() {
		info = "as of step #" + fmt.Sprint(m.live.selected().t.Seq)
	} else if !m.hist.atBottom(end) {
		info = "↓ more below (G)"
	}
	return m.hist.view(end, focused), info
}

// shownState is the state the diagram lights: the selected step's target,
// or the engine's state now.
func (m Model) shownState() (loop.State, *loop.Transition) {
	if s := m.live.selected(); s != nil && m.live.travelling() {
		return s.t.To, &s.t
	}
	if s := m.live.selected(); s != nil {
		return m.live.state, &s.t
	}
	return m.live.state, nil
}

func (m Model) diagramView(in rect) ([]string, string) {
	state, t := m.shownState()
	v := diagram.View{Current: state, Breakpoints: m.diag.breakpoints}
	if t != nil {
		v.LastFrom, v.LastEdge = t.From, t.Edge
	}
	focused := !m.inputFocused && m.pane == paneDiagram
	if focused {
		v.Selected = m.diag.selected()
	}
	// The diagram's own footer says what is happening now; the frame's
	// title adds whether a step is working on it.
	out := strings.Split(diagram.Render(m.th, v, in.w, in.h), "\n")
	iteration := m.live.iteration
	if t != nil && m.live.travelling() {
		iteration = t.Iteration
	}
	info := fmt.Sprintf("iteration %d/%d", iteration, m.maxIter)
	switch {
	case m.live.travelling():
		info = fmt.Sprintf("◀ step %d of %d (] returns) · %s", m.live.selectedIndex()+1, len(m.live.steps), info)
	case m.confirm != nil:
		info = "waiting for your approval · " + info
	case m.ask != nil:
		info = "waiting for your answer · " + info
	case m.busy:
		info = m.spin.View() + " working on " + string(state) + "… · " + info
	}
	if focused {
		info = "←/→ select " + string(m.diag.selected()) + " · b breakpoint"
	}
	return out[:min(len(out), in.h)], info
}

// toolsView lists this iteration's tool calls at the selected step.
func (m Model) toolsView(in rect) ([]string, string) {
	s := m.live.selected()
	if s == nil {
		return []string{m.th.Muted.Render("No tool calls yet.")}, ""
	}
	t := &s.t
	live := !m.live.travelling()
	var out []string
	if len(t.Pending) == 0 {
		var msg string
		es := m.live.exchangeStep(m.live.selectedIndex())
		switch {
		case t.Iteration == 0:
			msg = "No tool calls: no iteration has started."
		case es >= 0 && m.live.steps[es].t.Edge == loop.EdgeLLMFailure:
			msg = fmt.Sprintf("Iteration %d: the model call failed, so there are no tool calls (History says why).", t.Iteration)
		case es >= 0 && m.live.steps[es].t.Edge == loop.EdgeMalformedResponse:
			msg = fmt.Sprintf("Iteration %d: the model's reply could not be read as a tool call or an answer; the loop told it what was wrong.", t.Iteration)
		case es >= 0 && m.live.steps[es].t.LLM != nil && len(m.live.steps[es].t.LLM.ToolCalls) == 0:
			msg = fmt.Sprintf("Iteration %d: the model answered without calling a tool.", t.Iteration)
		default:
			msg = fmt.Sprintf("Iteration %d: no tool calls yet — the model has not answered.", t.Iteration)
		}
		for _, ln := range wrapLines(msg, in.w) {
			out = append(out, m.th.Muted.Render(ln))
		}
	}
	current := currentCall(t.Pending)
	for i, pc := range t.Pending {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, m.callLines(i, pc, i == current, live, in.w)...)
	}
	info := fmt.Sprintf("iter %d · %d call%s", t.Iteration, len(t.Pending), plural(len(t.Pending)))
	return m.calls.window(out, in.h), info
}

// currentCall is the index of the first call that has not finished.
func currentCall(calls []loop.PendingCall) int {
	for i, pc := range calls {
		if pc.Status == loop.CallPending || pc.Status == loop.CallWaiting || pc.Status == loop.CallRunning {
			return i
		}
	}
	return -1
}

func (m Model) callLines(i int, pc loop.PendingCall, current, live bool, w int) []string {
	th := m.th
	name := th.RoleTool.Render(fmt.Sprintf("%d %s", i+1, sanitize(pc.Call.Name)))
	args := th.Muted.Render(" " + sanitize(compactJSON(string(pc.Call.Args))))
	out := []string{ansi.Truncate(name+args, w, "…")}

	if d := pc.Decision; d != nil {
		verdict := th.Verdict(string(d.Verdict)).Render(string(d.Verdict))
		line := "  " + verdict + th.Muted.Render(" · rule ") + d.Rule
		out = append(out, ansi.Truncate(line, w, "…"))
		if a := pc.Approval; a != nil && *a != loop.Deny {
			how := "  → approved once"
			if *a == loop.AllowSession {
				how = "  → approved for the session (this exact call)"
			}
			out = append(out, th.Success.Render(ansi.Truncate(how, w, "…")))
		}
		if d.Reason != "" {
			reason := wrapLines(d.Reason, w-2)
			if len(reason) > 2 {
				reason = reason[:2]
				reason[1] = ansi.Truncate(reason[1], w-3, "") + "…"
			}
			for _, ln := range reason {
				out = append(out, "  "+th.Muted.Render(ln))
			}
		}
	} else {
		out = append(out, th.Muted.Render("  not checked by the security layer yet"))
	}

	status := string(pc.Status)
	st := th.Muted
	switch pc.Status {
	case loop.CallDone:
		st = th.Success
	case loop.CallFailed:
		st = th.Error
	case loop.CallDenied:
		st = th.VerdictDeny
	case loop.CallWaiting:
		st = th.Warning
	}
	if current && live && m.busy {
		switch m.live.state {
		case loop.ExecutingTool:
			status, st = m.spin.View()+" running", th.Warning
			if m.ask != nil {
				status = "running: waiting for your answer"
			}
		case loop.CheckingPolicy:
			status, st = m.spin.View()+" checking policy", th.Warning
		case loop.AwaitingUserConfirmation:
			status, st = "awaiting approval (answer the modal)", th.Warning
		}
	} else if current && pc.Status == loop.CallPending && pc.Decision != nil {
		status = "pending: allowed, runs next"
	}
	line := "  status: " + st.Render(status)
	if pc.Result != nil {
		line += th.Muted.Render(fmt.Sprintf(" · %d ms", pc.Result.DurationMS))
		first := strings.TrimSpace(strings.SplitN(sanitize(pc.Result.Content), "\n", 2)[0])
		out = append(out, ansi.Truncate(line, w, "…"))
		rs := th.Muted
		if pc.Result.IsError {
			rs = th.Error
		}
		out = append(out, rs.Render(ansi.Truncate("  ⇒ "+first, w, "…")))
		return out
	}
	return append(out, ansi.Truncate(line, w, "…"))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// payloadView shows the raw HTTP exchange of the selected step's LLM call.
func (m Model) payloadView(in rect) ([]string, string) {
	if m.busy && m.inflight != nil && !m.live.travelling() {
		return m.livePayloadView(in)
	}
	sel := m.live.selectedIndex()
	es := m.live.exchangeStep(sel)
	if es < 0 {
		return m.payloadHint(in.w), ""
	}
	t := &m.live.steps[es].t
	if len(t.Exchanges) == 0 {
		return wrapStyled(m.th.Muted, "This model call has no captured HTTP exchange (the provider did not reach the wire).", in.w), ""
	}
	idx := m.payload.exchangeIndex(len(t.Exchanges))
	ex := t.Exchanges[idx]
	v := payload.View{
		Exchanges:  t.Exchanges,
		Index:      idx,
		Response:   m.payload.response,
		Headers:    m.payload.headers,
		Parse:      t.Parse,
		Divergence: ex.Divergence,
	}
	lines := m.payload.r.Lines(m.th, v, in.w)
	side := "request"
	if m.payload.response {
		side = "response"
	}
	info := side + " (r)"
	if len(t.Exchanges) > 1 {
		info += fmt.Sprintf(" · exchange %d/%d (x)", idx+1, len(t.Exchanges))
	}
	if es != sel {
		info += fmt.Sprintf(" · of step #%d", t.Seq)
	}
	if len(lines) > in.h {
		info += fmt.Sprintf(" · %d%%", m.payload.scroll.percent(len(lines), in.h))
	}
	return m.payload.scroll.window(lines, in.h), info
}

// livePayloadView shows the provider call still in flight: the request as it
// went out, and the response chunks that have arrived so far.
func (m Model) livePayloadView(in rect) ([]string, string) {
	v := payload.View{
		Exchanges: []providers.Exchange{*m.inflight},
		Response:  m.payload.response,
		Headers:   m.payload.headers,
		Live:      true,
	}
	lines := m.payload.r.Lines(m.th, v, in.w)
	info := "live · request (r)"
	if m.payload.response {
		info = "live · response (r)"
	}
	if n := len(m.inflight.Chunks); n > 0 && !m.payload.response {
		info += fmt.Sprintf(" · %d chunk%s arrived", n, plural(n))
	}
	return m.payload.scroll.window(lines, in.h), info
}

func (m Model) payloadHint(w int) []string {
	var s string
	state, _ := m.shownState()
	switch {
	case len(m.live.steps) == 0:
		s = "No model call yet. Send a request, then step (space) until AWAITING_LLM_RESPONSE: the exact HTTP request and the model's response appear here."
	case m.busy && state == loop.AwaitingLLMResponse && !m.live.travelling():
		s = m.spin.View() + " The request is on the wire; the exchange appears here when the model answers."
	case state == loop.AwaitingLLMResponse:
		s = "The request is assembled but not sent yet. Press space: the provider call goes out and its raw request and response appear here."
	default:
		s = "This step has no model call of its own. Step to AWAITING_LLM_RESPONSE and past it to see the raw exchange; [ and ] move through earlier steps."
	}
	return wrapStyled(m.th.Muted, s, w)
}

// statusView is the bottom bar: provider, model, backend, iteration, state,
// last latency, tokens and context size. When the terminal is narrow the
// least important segments go first.
func (m Model) statusView(w int) string {
	th := m.th
	seg := func(k, v string) string {
		return th.StatusKey.Render(" "+k+" ") + th.StatusBar.Render(v+" ")
	}
	backend := strings.ToUpper(m.backend)
	if backend == "" {
		backend = "?"
	}
	state, t := m.shownState()
	iteration := m.live.iteration
	if t != nil && m.live.travelling() {
		iteration = t.Iteration
	}
	tot := m.live.shownTotals()
	latency := "-"
	if tot.hasLatency {
		latency = fmt.Sprintf("%d ms", tot.lastLatencyMS)
	}
	// In order of importance; the later ones are dropped first.
	parts := []string{}
	if m.live.travelling() {
		parts = append(parts, th.Current.Render(fmt.Sprintf(" ◀ step %d/%d ", m.live.selectedIndex()+1, len(m.live.steps))))
	}
	parts = append(parts,
		seg("state", m.stateLabel(state)),
		seg("iter", fmt.Sprintf("%d/%d", iteration, m.maxIter)),
		seg(m.provider, m.model),
		seg("backend", backend),
		seg("latency", latency),
		seg("tokens", fmt.Sprintf("%d in / %d out", tot.tokensIn, tot.tokensOut)),
		seg("context", fmt.Sprintf("%d msgs ≈%s tok", tot.messages, approxTokens(tot.chars))),
	)
	if m.live.queued > 0 {
		// Right after the state: an event waiting is what space acts on next.
		parts = slices.Insert(parts, len(parts)-6, seg("queue", fmt.Sprintf("%d event%s", m.live.queued, plural(m.live.queued))))
	}
	if m.cfg.BackendReason != "" {
		withReason := slices.Clone(parts)
		i := slices.Index(parts, seg("backend", backend))
		withReason[i] = seg("backend", backend+" ("+m.cfg.BackendReason+")")
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
func (m Model) stateLabel(s loop.State) string {
	if m.busy && !m.live.travelling() {
		return m.spin.View() + " " + string(s) + "…"
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
