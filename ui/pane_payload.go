package ui

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/payload"
)

// payloadComponent is the Raw payload pane of a run: the HTTP exchange of
// the model call at the step shown, request or response (r), headers (h),
// retries' exchanges (x). At a step the reply decided it scrolls to the
// bytes that decided the edge and marks them.
type payloadComponent struct{ r *runView }

var _ component = payloadComponent{}

func (payloadComponent) title(l lang.Lang) string      { return l.T("Raw payload") }
func (payloadComponent) shortTitle(l lang.Lang) string { return l.T("Raw") }

func (c payloadComponent) sync(lk look, in rect) {
	lines, _ := c.payloadLines(lk, in)
	c.r.payload.settle(lines, in.h, c.r.decidingEdge(), c.r.lang)
}

func (c payloadComponent) key(msg tea.KeyMsg, k keyMap, page int) bool {
	p := c.r.payload
	switch {
	case key.Matches(msg, k.Headers):
		p.headers = !p.headers
		p.scroll.off = 0
	case p.scroll.key(msg, k.scrolling(), page):
	default:
		return false
	}
	p.pinned = true // the learner moved: the pane stays where they put it
	return true
}

func (c payloadComponent) scroll(delta int) {
	c.r.payload.scroll.scroll(delta)
	c.r.payload.pinned = true
}

func (c payloadComponent) view(lk look, in rect, _ bool) ([]string, string) {
	return c.payloadView(lk, in)
}

func (payloadComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.ReqResp, k.Headers, k.Exchange, k.Top, k.Bottom}
}

// payloadView shows the raw HTTP exchange of the selected step's LLM call.
func (c payloadComponent) payloadView(lk look, in rect) ([]string, string) {
	r := c.r
	lines, info := c.payloadLines(lk, in)
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
func (c payloadComponent) payloadLines(lk look, in rect) ([]string, string) {
	r := c.r
	if r.busy && !r.live.travelling() {
		if r.inflight != nil {
			return c.livePayloadLines(lk, in)
		}
		if len(r.liveFrames) > 0 {
			return c.liveMCPLines(lk, in)
		}
	}
	if s := r.live.selected(); s != nil && len(s.t.MCP) > 0 {
		return c.mcpLines(lk, in, s.t.Seq, s.t.MCP)
	}
	if s := r.live.selected(); s != nil && s.preview != nil && s.t.Edge == loop.EdgeContextReady {
		return c.previewLines(lk, in, s.preview)
	}
	return c.exchangeLines(lk, in)
}

// liveMCPLines are the MCP frames of the step in work, as they arrive.
func (c payloadComponent) liveMCPLines(lk look, in rect) ([]string, string) {
	r := c.r
	seq := 1
	if n := len(r.live.steps); n > 0 {
		seq = r.live.steps[n-1].t.Seq + 1
	}
	lines, info := c.mcpLines(lk, in, seq, r.liveFrames)
	return lines, c.r.lang.T("live") + " · " + info
}

// exchangeLines shows the HTTP exchange of the model call the selected
// step belongs to, or says why there is none to show.
func (c payloadComponent) exchangeLines(lk look, in rect) ([]string, string) {
	r := c.r
	sel := r.live.selectedIndex()
	es := r.live.exchangeStep(sel)
	if es < 0 {
		return c.payloadHint(lk, in.w), ""
	}
	t := &r.live.steps[es].t
	switch s := &r.live.steps[es]; {
	case s.loadErr != "":
		return wrapStyled(lk.th.Error, s.loadErr, in.w), ""
	case s.spilled:
		return wrapStyled(lk.th.Muted, r.lang.F("Reading the payload of step #%d back from the session…", t.Seq), in.w), ""
	}
	if len(t.Exchanges) == 0 {
		return wrapStyled(lk.th.Muted, r.lang.T("This model call has no captured HTTP exchange (the provider did not reach the wire)."), in.w), ""
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
		Lang:       r.lang,
	}
	lines := r.payload.r.Lines(lk.th, v, in.w)
	info := r.lang.T("request (r)")
	if r.payload.response {
		info = r.lang.T("response (r)")
	}
	if len(t.Exchanges) > 1 {
		info += " · " + r.lang.F("exchange %d/%d (x)", idx+1, len(t.Exchanges))
	}
	if es != sel {
		info += " · " + r.lang.F("of step #%d", t.Seq)
	}
	return lines, info
}

// mcpLines shows the JSON-RPC frames a step exchanged with MCP servers
// (docs/mcp.md): those glassbox sent, or with r those it received, each
// with its server, method and arrival time, the message indented.
func (c payloadComponent) mcpLines(lk look, in rect, seq int, frames []tools.Frame) ([]string, string) {
	l := c.r.lang
	dir, arrow, side := "send", "→", l.T("sent")
	if c.r.payload.response {
		dir, arrow, side = "recv", "←", l.T("received")
	}
	lines := wrapStyled(lk.th.Muted, l.F("MCP frames of step #%d: JSON-RPC between glassbox and its MCP servers (r: sent / received).", seq), in.w)
	n := 0
	for _, f := range frames {
		if f.Dir != dir {
			continue
		}
		n++
		method := f.Method
		if method == "" {
			method = "-"
		}
		lines = append(lines, "")
		lines = append(lines, wrapStyled(lk.th.Bold, fmt.Sprintf("%s %s · %s · %s", arrow, f.Server, method, f.Time.Format("15:04:05.000")), in.w)...)
		if f.Error != "" {
			lines = append(lines, wrapStyled(lk.th.Error, l.F("error: %s", f.Error), in.w)...)
			continue
		}
		var pretty bytes.Buffer
		if json.Indent(&pretty, f.Body, "", "  ") != nil {
			pretty.Reset()
			pretty.Write(f.Body)
		}
		lines = append(lines, wrapLines(pretty.String(), in.w)...)
	}
	if n == 0 {
		lines = append(lines, "", lk.th.Muted.Render(l.F("No frame was %s in this step.", side)))
	}
	return lines, l.F("MCP · %s (r) · %d frame%s", side, n, plural(n))
}

// previewLines shows the request a context_ready step assembled, built by
// the SDK exactly as it will go on the wire, before it is sent.
func (c payloadComponent) previewLines(lk look, in rect, p *preview) ([]string, string) {
	r := c.r
	if p.err != nil {
		return wrapStyled(lk.th.Warning, r.lang.F("The request is assembled, but glassbox could not build its HTTP form to show it here (%s). Press space to send it: the exchange appears here then.", sanitize(p.err.Error())), in.w), r.lang.T("not sent yet")
	}
	lines := wrapStyled(lk.th.Warning, r.lang.T("Not sent yet: this is the request exactly as the SDK will put it on the wire. Press space to send it."), in.w)
	if r.payload.response {
		lines = append(lines, wrapStyled(lk.th.Muted, r.lang.T("There is no response yet (r shows the request)."), in.w)...)
		return lines, r.lang.T("not sent yet · response (r)")
	}
	info := r.lang.T("not sent yet · request (r)")
	if r.edit != "" && !r.live.travelling() {
		info = r.lang.T("edited (what-if)") + " · " + info
		lines = append(lines, lk.th.Bold.Render(r.lang.T("What you changed in the context (what-if):")))
		lines = append(lines, previewLines(lk.th, r.edit, in.w)...)
		lines = append(lines, "")
	}
	v := payload.View{Exchanges: []providers.Exchange{p.ex}, Headers: r.payload.headers, Lang: r.lang}
	return append(lines, r.payload.r.Lines(lk.th, v, in.w)...), info
}

// livePayloadLines shows the provider call still in flight: the request as it
// went out, and the response chunks that have arrived so far.
func (c payloadComponent) livePayloadLines(lk look, in rect) ([]string, string) {
	r := c.r
	v := payload.View{
		Exchanges: []providers.Exchange{*r.inflight},
		Response:  r.payload.response,
		Headers:   r.payload.headers,
		Live:      true,
		Lang:      r.lang,
	}
	lines := r.payload.r.Lines(lk.th, v, in.w)
	info := r.lang.T("live") + " · " + r.lang.T("request (r)")
	if r.payload.response {
		info = r.lang.T("live") + " · " + r.lang.T("response (r)")
	}
	if n := len(r.inflight.Chunks); n > 0 && !r.payload.response {
		info += " · " + r.lang.F("%d chunk%s arrived", n, plural(n))
	}
	return lines, info
}

func (c payloadComponent) payloadHint(lk look, w int) []string {
	r := c.r
	var s string
	state, _ := r.shownState()
	switch {
	case len(r.live.steps) == 0:
		s = r.lang.T("No model call yet. Send a request, then step (space) until AWAITING_LLM_RESPONSE: the exact HTTP request and the model's response appear here.")
	case r.busy && state == loop.AwaitingLLMResponse && !r.live.travelling():
		s = lk.spin + " " + r.lang.T("The request is on the wire; the exchange appears here when the model answers.")
	case state == loop.AwaitingLLMResponse && r.live.travelling():
		s = r.lang.T("This step assembled the request; the step after it sent it. Press ] to see the raw request and response.")
	case state == loop.AwaitingLLMResponse:
		s = r.lang.T("The request is assembled but not sent yet. Press space: the provider call goes out and its raw request and response appear here.")
	default:
		s = r.lang.T("This step has no model call of its own. Step to AWAITING_LLM_RESPONSE and past it to see the raw exchange; [ and ] move through earlier steps.")
	}
	return wrapStyled(lk.th.Muted, s, w)
}
