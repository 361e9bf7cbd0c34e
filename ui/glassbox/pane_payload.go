package glassbox

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

// payloadPane is the Raw payload pane of a run: the HTTP exchange of the
// model call at the step shown, request or response (r), headers (h),
// retries' exchanges (x), and its scroll. At a step the reply decided it
// scrolls to the bytes that decided the edge and marks them.
type payloadPane struct {
	r        *runView
	render   *payload.Renderer
	response bool
	headers  bool
	index    int      // -1: the last exchange (the one that answered)
	pos      scroller // the scroll
	// pinned: the learner scrolled, so the pane stays where they put it.
	// mark is the line that decided the step's edge (-1: none), found on
	// the page identified by markOf.
	pinned bool
	mark   int
	markOf pageID
	// The look and the size it was last given (sync): a key or the wheel
	// settles the pane for them.
	lk look
	in rect
}

// pageID tells one page of payload lines from another without comparing
// them: the renderer hands out the same slice while nothing changes.
type pageID struct {
	first *string
	n     int
}

func pageOf(lines []string) pageID {
	if len(lines) == 0 {
		return pageID{}
	}
	return pageID{&lines[0], len(lines)}
}

func newPayloadPane(r *runView) *payloadPane {
	return &payloadPane{r: r, render: payload.NewRenderer(), index: -1, mark: -1}
}

// settle clamps the scroll for a page of lines shown h at a time and, at a
// step the model's reply decided (edge), finds the line that decided it and
// scrolls there, unless the learner has scrolled.
func (p *payloadPane) settle(lines []string, h int, edge loop.Edge, l lang.Lang) {
	if id := pageOf(lines); id != p.markOf {
		p.markOf, p.mark = id, decidingLine(lines, edge, l)
		if p.mark >= 0 && !p.pinned {
			p.pos.off = max(p.mark-2, 0) // two lines of what leads to it
		}
	}
	p.pos.clamp(len(lines), h)
}

// follow resets the pane for the step t now shown: the last exchange, from
// the top, on the side that step is about. A step the model's reply decided
// (tool_call, final_answer, malformed_response, llm_failure) shows the
// response; context_ready, which assembled the next request, shows the
// request; any other step keeps the side the learner picked.
func (p *payloadPane) follow(t *loop.Transition) {
	p.index = -1
	p.pos.off = 0
	p.pinned, p.markOf, p.mark = false, pageID{}, -1
	if t == nil {
		return
	}
	switch t.Edge {
	case loop.EdgeToolCall, loop.EdgeFinalAnswer, loop.EdgeMalformedResponse, loop.EdgeLLMFailure:
		p.response = true
	case loop.EdgeContextReady:
		p.response = false
	}
}

func (p *payloadPane) exchangeIndex(n int) int {
	if p.index < 0 || p.index >= n {
		return n - 1
	}
	return p.index
}

// flip shows the other side of the exchange (r), from the top.
func (p *payloadPane) flip() {
	p.response = !p.response
	p.pos.off = 0
	p.pinned = false
}

// nextExchange cycles through the exchanges of one call.
func (p *payloadPane) nextExchange(n int) {
	if n <= 1 {
		return
	}
	p.index = (p.exchangeIndex(n) + 1) % n
	p.pos.off = 0
}

var (
	_ component = (*payloadPane)(nil)
	_ sizer     = (*payloadPane)(nil)
	_ wheel     = (*payloadPane)(nil)
)

func (*payloadPane) title(l lang.Lang) string      { return l.T("Raw payload") }
func (*payloadPane) shortTitle(l lang.Lang) string { return l.T("Raw") }

func (p *payloadPane) sync(lk look, in rect) {
	p.lk, p.in = lk, in
	lines, _ := p.payloadLines(lk, in)
	p.settle(lines, in.h, p.decidingEdge(), p.r.lang)
}

func (p *payloadPane) key(msg tea.KeyMsg, k keyMap, page int) keyReply {
	switch {
	case key.Matches(msg, k.Headers):
		p.headers = !p.headers
		p.pos.off = 0
	case p.pos.key(msg, k.scrolling(), page):
	default:
		return passed
	}
	p.pinned = true // the learner moved: the pane stays where they put it
	p.sync(p.lk, p.in)
	return taken(nil)
}

func (p *payloadPane) scroll(delta int) {
	p.pos.scroll(delta)
	p.pinned = true
	p.sync(p.lk, p.in)
}

func (p *payloadPane) view(lk look, in rect, _ bool) ([]string, string) {
	return p.payloadView(lk, in)
}

func (*payloadPane) keys(k keyMap) []key.Binding {
	return []key.Binding{k.ReqResp, k.Headers, k.Exchange, k.Top, k.Bottom}
}

// payloadView shows the raw HTTP exchange of the selected step's LLM call.
func (p *payloadPane) payloadView(lk look, in rect) ([]string, string) {
	lines, info := p.payloadLines(lk, in)
	win := p.pos.window(lines, in.h)
	if edge := p.decidingEdge(); edge != "" && p.mark >= 0 && p.markOf == pageOf(lines) {
		off := min(max(p.pos.off, 0), max(len(lines)-in.h, 0))
		if i := p.mark - off; i >= 0 && i < len(win) {
			win = append([]string(nil), win...)
			win[i] = markLine(lk, win[i], in.w)
			info += " · ▶ " + string(edge)
		}
	}
	if len(lines) > in.h {
		info += fmt.Sprintf(" · %d%%", p.pos.percent(len(lines), in.h))
	}
	return win, info
}

// payloadLines is every line of the Raw payload pane (payloadView scrolls
// them) and the pane's title info.
func (p *payloadPane) payloadLines(lk look, in rect) ([]string, string) {
	r := p.r
	if r.busy && !r.live.travelling() {
		if r.inflight != nil {
			return p.livePayloadLines(lk, in)
		}
		if len(r.liveFrames) > 0 {
			return p.liveMCPLines(lk, in)
		}
	}
	if s := r.live.selected(); s != nil && len(s.t.MCP) > 0 {
		return p.mcpLines(lk, in, s.t.Seq, s.t.MCP)
	}
	if s := r.live.selected(); s != nil && s.preview != nil && s.t.Edge == loop.EdgeContextReady {
		return p.previewLines(lk, in, s.preview)
	}
	return p.exchangeLines(lk, in)
}

// liveMCPLines are the MCP frames of the step in work, as they arrive.
func (p *payloadPane) liveMCPLines(lk look, in rect) ([]string, string) {
	r := p.r
	seq := 1
	if n := len(r.live.steps); n > 0 {
		seq = r.live.steps[n-1].t.Seq + 1
	}
	lines, info := p.mcpLines(lk, in, seq, r.liveFrames)
	return lines, p.r.lang.T("live") + " · " + info
}

// exchangeLines shows the HTTP exchange of the model call the selected
// step belongs to, or says why there is none to show.
func (p *payloadPane) exchangeLines(lk look, in rect) ([]string, string) {
	r := p.r
	sel := r.live.selectedIndex()
	es := r.live.exchangeStep(sel)
	if es < 0 {
		return p.payloadHint(lk, in.w), ""
	}
	t := &r.live.steps[es].t
	switch s := &r.live.steps[es]; {
	case s.loadErr != "":
		return wrapStyled(lk.th.Error, s.loadErr, in.w), ""
	case s.spilled:
		return wrapStyled(lk.th.Muted, r.lang.F("Reading the payload of step #%d back from the session…", t.Seq), in.w), ""
	}
	if len(t.Exchanges) == 0 && r.backend == "file" {
		return wrapStyled(lk.th.Muted, r.lang.T("This trace records the call's messages, not its HTTP exchange: History shows what was sent and answered, Tool calls the calls and results."), in.w), ""
	}
	if len(t.Exchanges) == 0 {
		return wrapStyled(lk.th.Muted, r.lang.T("This model call has no captured HTTP exchange (the provider did not reach the wire)."), in.w), ""
	}
	idx := p.exchangeIndex(len(t.Exchanges))
	ex := t.Exchanges[idx]
	v := payload.View{
		Exchanges:  t.Exchanges,
		Index:      idx,
		Response:   p.response,
		Headers:    p.headers,
		Parse:      t.Parse,
		Divergence: ex.Divergence,
		Lang:       r.lang,
	}
	lines := p.render.Lines(lk.th, v, in.w)
	info := r.lang.T("request (r)")
	if p.response {
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
func (p *payloadPane) mcpLines(lk look, in rect, seq int, frames []tools.Frame) ([]string, string) {
	l := p.r.lang
	dir, arrow, side := "send", "→", l.T("sent")
	if p.response {
		dir, arrow, side = "recv", "←", l.T("received")
	}
	lines := wrapStyled(lk.th.Muted, l.F("MCP frames of step #%d: JSON-RPC between glassbox and its MCP servers (r: sent / received).", seq), in.w)
	n, other := 0, 0
	for _, f := range frames {
		if f.Dir != dir {
			other++
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
	sent, received := n, other
	if p.response {
		sent, received = other, n
	}
	if n == 0 {
		lines = append(lines, "")
		lines = append(lines, wrapStyled(lk.th.Muted, l.F("No frame was %s in this step.", side), in.w)...)
		if other > 0 {
			lines = append(lines, wrapStyled(lk.th.Muted, l.F("r shows the %d frame%s the other way.", other, plural(other)), in.w)...)
		}
	}
	// The title counts both ways: the side shown may have none while the
	// step did send (the answer going back over the bus).
	return lines, l.F("MCP · %s (r) · %d sent · %d received", side, sent, received)
}

// previewLines shows the request a context_ready step assembled, built by
// the SDK exactly as it will go on the wire, before it is sent.
func (p *payloadPane) previewLines(lk look, in rect, pv *preview) ([]string, string) {
	r := p.r
	if pv.err != nil {
		return wrapStyled(lk.th.Warning, r.lang.F("The request is assembled, but glassbox could not build its HTTP form to show it here (%s). Press space to send it: the exchange appears here then.", sanitize(pv.err.Error())), in.w), r.lang.T("not sent yet")
	}
	if r.live.travelling() {
		return p.pastPreviewLines(lk, in, pv)
	}
	lines := wrapStyled(lk.th.Warning, r.lang.T("Not sent yet: this is the request exactly as the SDK will put it on the wire. Press space to send it."), in.w)
	if p.response {
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
	v := payload.View{Exchanges: []providers.Exchange{pv.ex}, Headers: p.headers, Lang: r.lang}
	return append(lines, p.render.Lines(lk.th, v, in.w)...), info
}

// pastPreviewLines is a past context_ready step: the request it assembled,
// which the step after it sent (or, last on an abandoned branch, nobody
// did). Space there returns to the present, as any stepping key at a past
// step does, so the text says that, never "space sends it".
func (p *payloadPane) pastPreviewLines(lk look, in rect, pv *preview) ([]string, string) {
	l := p.r.lang
	say := l.T("This step assembled this request; the step after it sent it (] shows what went out and the reply). space returns to the present.")
	if p.r.live.selectedIndex() == len(p.r.live.steps)-1 {
		say = l.T("This request was assembled and never sent: the branch was abandoned here. B (or a step key) returns to the run.")
	}
	lines := wrapStyled(lk.th.Muted, say, in.w)
	if p.response {
		lines = append(lines, wrapStyled(lk.th.Muted, l.T("There is no response at this step (r shows the request)."), in.w)...)
		return lines, l.T("as assembled · response (r)")
	}
	v := payload.View{Exchanges: []providers.Exchange{pv.ex}, Headers: p.headers, Lang: l}
	return append(lines, p.render.Lines(lk.th, v, in.w)...), l.T("as assembled · request (r)")
}

// livePayloadLines shows the provider call still in flight: the request as it
// went out, and the response chunks that have arrived so far.
func (p *payloadPane) livePayloadLines(lk look, in rect) ([]string, string) {
	r := p.r
	v := payload.View{
		Exchanges: []providers.Exchange{*r.inflight},
		Response:  p.response,
		Headers:   p.headers,
		Live:      true,
		Lang:      r.lang,
	}
	lines := p.render.Lines(lk.th, v, in.w)
	info := r.lang.T("live") + " · " + r.lang.T("request (r)")
	if p.response {
		info = r.lang.T("live") + " · " + r.lang.T("response (r)")
	}
	if n := len(r.inflight.Chunks); n > 0 && !p.response {
		info += " · " + r.lang.F("%d chunk%s arrived", n, plural(n))
	}
	return lines, info
}

func (p *payloadPane) payloadHint(lk look, w int) []string {
	r := p.r
	var s string
	state, _ := r.shownState()
	switch {
	case len(r.live.steps) == 0 && r.backend == "file":
		s = r.lang.T("No model call yet: space steps through the file to its first call; what the file holds of it appears here.")
	case len(r.live.steps) == 0 && r.live.outside:
		s = r.lang.T("No model call yet: point the agent at the tap (History says how). Each call's exact HTTP request and reply appear here, held until space.")
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
