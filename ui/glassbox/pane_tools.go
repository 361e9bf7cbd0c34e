package glassbox

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// toolsPane is the Tool calls pane of a run: the calls of the iteration
// shown, each with its verdict, rule, status and result. It follows the
// loop: the call being worked on is kept in view (until the learner
// scrolls; a new step shown starts following again), and marks say when
// calls lie above or below.
type toolsPane struct {
	r *runView
	scroller
	pinned bool
	// The look and the size it was last given (sync): a key or the wheel
	// settles the pane for them.
	lk look
	in rect
}

var (
	_ component = (*toolsPane)(nil)
	_ sizer     = (*toolsPane)(nil)
	_ wheel     = (*toolsPane)(nil)
)

func (*toolsPane) title(l lang.Lang) string      { return l.T("Tool calls") }
func (*toolsPane) shortTitle(l lang.Lang) string { return l.T("Tools") }

// sync keeps the lines of the call the loop is on in view, unless the
// learner has scrolled, and clamps the scroll.
func (p *toolsPane) sync(lk look, in rect) {
	p.lk, p.in = lk, in
	lines, _, at := p.toolLines(lk, in)
	if !p.pinned && at.at >= 0 {
		switch {
		case at.at < p.off:
			p.off = at.at
		case at.end > p.off+in.h:
			p.off = min(at.at, at.end-in.h)
		}
	}
	p.clamp(len(lines), in.h)
}

func (p *toolsPane) key(msg tea.KeyMsg, k keyMap, page int) keyReply {
	if !p.scroller.key(msg, k.scrolling(), page) {
		return passed
	}
	p.pinned = true // the learner scrolls: stop following
	p.sync(p.lk, p.in)
	return taken(nil)
}

func (p *toolsPane) scroll(delta int) {
	p.scroller.scroll(delta)
	p.pinned = true
	p.sync(p.lk, p.in)
}

func (p *toolsPane) view(lk look, in rect, _ bool) ([]string, string) {
	return p.toolsView(lk, in)
}

func (*toolsPane) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Down, k.Up, k.Top, k.Bottom}
}

// reset follows the loop again, from the top: a new step is shown.
func (p *toolsPane) reset() { p.off, p.pinned = 0, false }

// callSpan is where the call being worked on sits in the Tool calls pane's
// lines: [at, end), or at -1.
type callSpan struct{ at, end int }

// currentCall is the index of the first call that has not finished.
func currentCall(calls []loop.PendingCall) int {
	for i, pc := range calls {
		if pc.Status == loop.CallPending || pc.Status == loop.CallWaiting || pc.Status == loop.CallRunning {
			return i
		}
	}
	return -1
}

// decisionLines are the security layer's verdict, its rule (never cut: the
// rule's name is the lesson), the person's approval and the reason.
func decisionLines(th theme.Theme, l lang.Lang, pc loop.PendingCall, w int) []string {
	d := pc.Decision
	verdict := th.Verdict(string(d.Verdict)).Render(string(d.Verdict))
	var out []string
	if line := "  " + verdict + th.Muted.Render(" · "+l.T("rule")+" ") + d.Rule; ansi.StringWidth(line) <= w {
		out = append(out, line)
	} else {
		// The verdict and the rule do not fit on one line: the rule gets
		// its own.
		out = append(out, ansi.Truncate("  "+verdict, w, "…"))
		out = append(out, ruleLines(th, l, d.Rule, w)...)
	}
	if a := pc.Approval; a != nil && *a != loop.Deny {
		how := "  → " + l.T("approved once")
		if *a == loop.AllowSession {
			how = "  → " + l.T("approved for the session (this exact call)")
		}
		out = append(out, th.Success.Render(ansi.Truncate(how, w, "…")))
	}
	if d.Reason == "" {
		return out
	}
	reason := wrapLines(ruleReason(l, d.Reason), w-2)
	if len(reason) > 2 {
		reason = reason[:2]
		reason[1] = ansi.Truncate(reason[1], w-3, "") + "…"
	}
	for _, ln := range reason {
		out = append(out, "  "+th.Muted.Render(ln))
	}
	return out
}

// ruleLines wraps "rule NAME" under the verdict, the name whole.
func ruleLines(th theme.Theme, l lang.Lang, rule string, w int) []string {
	var out []string
	prefix := l.T("rule") + " "
	if ansi.StringWidth(rule)+ansi.StringWidth(prefix) > w-2 {
		out = append(out, "  "+th.Muted.Render(l.T("rule")))
		prefix = ""
	}
	for i, ln := range wrapLines(prefix+rule, max(w-2, 1)) {
		if i == 0 && prefix != "" {
			ln = th.Muted.Render(prefix) + strings.TrimPrefix(ln, prefix)
		}
		out = append(out, "  "+ln)
	}
	return out
}

// statusStyle colours a call's status.
func statusStyle(th theme.Theme, s loop.CallStatus) lipgloss.Style {
	switch s {
	case loop.CallDone:
		return th.Success
	case loop.CallFailed:
		return th.Error
	case loop.CallDenied:
		return th.VerdictDeny
	case loop.CallWaiting:
		return th.Warning
	}
	return th.Muted
}

// toolsView lists this iteration's tool calls at the selected step, with a
// mark on the first and last line when calls lie above or below the window.
func (p *toolsPane) toolsView(lk look, in rect) ([]string, string) {
	r := p.r
	lines, info, _ := p.toolLines(lk, in)
	win := p.window(lines, in.h)
	if len(lines) <= in.h || in.h < 3 {
		return win, info
	}
	win = append([]string(nil), win...)
	off := min(max(p.off, 0), len(lines)-in.h)
	if off > 0 {
		win[0] = lk.th.Warning.Render(ansi.Truncate("↑ "+r.lang.F("%d more line%s above (↑/k)", off, plural(off)), in.w, "…"))
	}
	if below := len(lines) - off - in.h; below > 0 {
		win[len(win)-1] = lk.th.Warning.Render(ansi.Truncate("↓ "+r.lang.F("%d more line%s below (↓/j)", below, plural(below)), in.w, "…"))
	}
	return win, info
}

// toolLines is every line of the Tool calls pane (toolsView scrolls them),
// its title info, and the lines of the call the loop is on.
func (p *toolsPane) toolLines(lk look, in rect) ([]string, string, callSpan) {
	r := p.r
	s := r.live.selected()
	span := callSpan{-1, -1}
	if s == nil {
		return wrapStyled(lk.th.Muted, r.lang.T("No tool calls yet."), in.w), "", span
	}
	t := &s.t
	live := !r.live.travelling()
	var out []string
	if len(t.Pending) == 0 {
		out = wrapStyled(lk.th.Muted, p.noCallsText(t), in.w)
	}
	current := currentCall(t.Pending)
	for i, pc := range t.Pending {
		if i > 0 {
			out = append(out, "")
		}
		if i == current {
			span.at = len(out)
		}
		out = append(out, p.callLines(lk, i, pc, i == current, live, in.w)...)
		if i == current {
			span.end = len(out)
		}
	}
	info := r.lang.F("iter %d · %d call%s", t.Iteration, len(t.Pending), plural(len(t.Pending)))
	if current >= 0 && len(t.Pending) > 1 {
		info = r.lang.F("call %d/%d · iter %d", current+1, len(t.Pending), t.Iteration)
	}
	return out, info, span
}

// noCallsText says why the iteration of step t has no tool calls.
func (p *toolsPane) noCallsText(t *loop.Transition) string {
	r := p.r
	if t.Iteration == 0 {
		return r.lang.T("No tool calls: no iteration has started.")
	}
	es := r.live.exchangeStep(r.live.selectedIndex())
	if es < 0 {
		return r.lang.F("Iteration %d: no tool calls yet — the model has not answered.", t.Iteration)
	}
	call := r.live.steps[es].t
	switch {
	case call.Edge == loop.EdgeLLMFailure && call.Error != nil && call.Error.Kind == loop.KindRepeatedFailure:
		return r.lang.F("Iteration %d: the reply was unusable the same way as the one fed back before it, so the loop halted instead of feeding it back again (History says why).", t.Iteration)
	case call.Edge == loop.EdgeLLMFailure:
		return r.lang.F("Iteration %d: the model call failed, so there are no tool calls (History says why).", t.Iteration)
	case call.Edge == loop.EdgeMalformedResponse:
		return r.lang.F("Iteration %d: the model's reply could not be read as a tool call or an answer; the loop told it what was wrong.", t.Iteration)
	case call.LLM != nil && len(call.LLM.ToolCalls) == 0:
		return r.lang.F("Iteration %d: the model answered without calling a tool.", t.Iteration)
	}
	return r.lang.F("Iteration %d: no tool calls yet — the model has not answered.", t.Iteration)
}

// callLines is one call: its name and arguments, the security layer's
// verdict and rule, how the person answered, its status and result.
func (p *toolsPane) callLines(lk look, i int, pc loop.PendingCall, current, live bool, w int) []string {
	th := lk.th
	name := th.RoleTool.Render(fmt.Sprintf("%d %s", i+1, sanitize(pc.Call.Name)))
	args := th.Muted.Render(" " + sanitize(compactJSON(string(pc.Call.Args))))
	out := []string{ansi.Truncate(name+args, w, "…")}
	if pc.Decision == nil {
		out = append(out, th.Muted.Render(ansi.Truncate("  "+p.r.lang.T("not checked by the security layer yet"), w, "…")))
	} else {
		out = append(out, decisionLines(th, p.r.lang, pc, w)...)
	}
	status, st := p.callStatus(lk, pc, current, live)
	line := "  " + p.r.lang.F("status: %s", st.Render(status))
	if pc.Result == nil {
		return append(out, ansi.Truncate(line, w, "…"))
	}
	line += th.Muted.Render(fmt.Sprintf(" · %d ms", pc.Result.DurationMS))
	out = append(out, ansi.Truncate(line, w, "…"))
	rs := th.Muted
	if pc.Result.IsError {
		rs = th.Error
	}
	for _, ln := range resultGist(pc.Result.Content, w) {
		out = append(out, rs.Render(ln))
	}
	return out
}

// callStatus is a call's status and its style: while a step works on the
// current call, what it is doing.
func (p *toolsPane) callStatus(lk look, pc loop.PendingCall, current, live bool) (string, lipgloss.Style) {
	r := p.r
	th := lk.th
	if current && live && r.busy {
		switch {
		case r.live.state == loop.ExecutingTool && r.ask != nil:
			return r.lang.T("running: waiting for your answer"), th.Warning
		case r.live.state == loop.ExecutingTool:
			return lk.spin + " " + r.lang.T("running"), th.Warning
		case r.live.state == loop.CheckingPolicy:
			return lk.spin + " " + r.lang.T("checking policy"), th.Warning
		case r.live.state == loop.AwaitingUserConfirmation:
			return r.lang.T("waiting for you"), th.Warning
		}
		return r.lang.Dyn(string(pc.Status)), statusStyle(th, pc.Status)
	}
	if current && pc.Status == loop.CallPending && pc.Decision != nil {
		return r.lang.T("pending: allowed, runs next"), th.Muted
	}
	return r.lang.Dyn(string(pc.Status)), statusStyle(th, pc.Status)
}
