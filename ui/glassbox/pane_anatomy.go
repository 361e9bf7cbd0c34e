package glassbox

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/wire"
	anatomycmd "github.com/glassbox-dev/glassbox/ui/anatomy"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// anatomyPane is the Anatomy pane of a run: the request of the model call
// at the step shown, read from its bytes (docs/anatomy.md) — what it is
// made of, kind by kind and part by part, with the bytes and tokens of
// each (every token figure says whether it was reported or estimated);
// the total and how it squares with what the provider reported; what it
// kept from the call before and appended to it (what a prompt cache can
// reuse, and where the cache breaks); and how the run's requests grow,
// call by call, as a chart. It follows the step shown and time travel: a
// request assembled and not sent yet (context_ready) and one on the wire
// are read too. Small, it says the gist; zoomed (z), everything.
type anatomyPane struct {
	r      *runView
	pos    scroller
	pinned bool // the learner scrolled this call: it stays where they put it
	calls  callIndex
	shown  anatomyShown
	// What sync laid out for the size it was given: the lines above the
	// parts (head), the parts table's rows (drawn in view, a window of
	// them: a long run's request has thousands), the lines below (tail).
	head, tail []string
	parts      bool // the parts table is shown (the pane is large enough)
	info       string
	// The look and the size it was last given (sync): a key or the wheel
	// settles the pane for them.
	lk look
	in rect
}

var (
	_ component = (*anatomyPane)(nil)
	_ sizer     = (*anatomyPane)(nil)
	_ wheel     = (*anatomyPane)(nil)
)

func newAnatomyPane(r *runView) *anatomyPane { return &anatomyPane{r: r} }

func (*anatomyPane) title(l lang.Lang) string      { return l.T("Anatomy") }
func (*anatomyPane) shortTitle(l lang.Lang) string { return l.T("Anatomy") }

func (*anatomyPane) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Down, k.Up, k.Zoom, k.Top, k.Bottom}
}

func (p *anatomyPane) key(msg tea.KeyMsg, k keyMap, page int) keyReply {
	if !p.pos.key(msg, k.scrolling(), page) {
		return passed
	}
	p.pinned = true
	p.sync(p.lk, p.in)
	return taken(nil)
}

func (p *anatomyPane) scroll(delta int) {
	p.pos.scroll(delta)
	p.pinned = true
	p.sync(p.lk, p.in)
}

// sync reads the call the step shown belongs to (when it changed) and lays
// it out for in; a new call on screen starts from the top.
func (p *anatomyPane) sync(lk look, in rect) {
	p.lk, p.in = lk, in
	if p.r == nil {
		return
	}
	if p.settle() {
		p.pos.off, p.pinned = 0, false // another call: from its top
	}
	p.layout(lk, in)
	p.pos.clamp(p.total(), in.h)
}

func (p *anatomyPane) view(lk look, in rect, _ bool) ([]string, string) {
	total := p.total()
	off := min(max(p.pos.off, 0), max(total-in.h, 0))
	out := make([]string, 0, min(in.h, total))
	for i := off; i < total && len(out) < in.h; i++ {
		out = append(out, p.line(lk, i, in.w))
	}
	if total <= in.h || in.h < 3 {
		return out, p.info
	}
	// Marks say when lines lie above or below, as in Tool calls.
	if off > 0 {
		out[0] = lk.th.Warning.Render(cell.Truncate("↑ "+p.r.lang.F("%d more line%s above (↑/k)", off, plural(off)), in.w, "…"))
	}
	if below := total - off - in.h; below > 0 {
		out[len(out)-1] = lk.th.Warning.Render(cell.Truncate("↓ "+p.r.lang.F("%d more line%s below (↓/j)", below, plural(below)), in.w, "…"))
	}
	return out, p.info
}

// total is how many lines the pane's content has.
func (p *anatomyPane) total() int {
	n := len(p.head) + len(p.tail)
	if p.parts {
		n += len(p.shown.call.Parts) + 2 // the table's heading and its total
	}
	return n
}

// line is line i of the content: a line laid out by sync, or a row of the
// parts table, drawn now (only the rows in the window are).
func (p *anatomyPane) line(lk look, i, w int) string {
	if i < len(p.head) {
		return p.head[i]
	}
	i -= len(p.head)
	if p.parts {
		n := len(p.shown.call.Parts)
		switch {
		case i == 0:
			return lk.th.Bold.Render(partRow(p.r.lang.T("part"), p.r.lang.T("label"), p.r.lang.T("bytes"), p.r.lang.T("tokens"), "", w))
		case i <= n:
			pt := p.shown.call.Parts[i-1]
			label := sanitize(pt.Label)
			if pt.Message >= 0 {
				label = strings.TrimSuffix(p.r.lang.F("message %d", pt.Message+1)+" · "+label, " · ")
			}
			row := partRow(string(pt.Kind), label, anatomycmd.Num(pt.Len()), anatomycmd.Num(pt.Tokens), bar(pt.Len(), p.shown.call.Bytes, 12), w)
			if pt.Kind == wire.KindFraming {
				return lk.th.Muted.Render(row) // the JSON no part owns: real bytes, no tokens
			}
			return row
		case i == n+1:
			return lk.th.Bold.Render(partRow(p.r.lang.T("total"), p.r.lang.F("%d parts", n), anatomycmd.Num(p.shown.call.Bytes), anatomycmd.Num(p.shown.call.Estimated.N), "", w))
		}
		i -= n + 2
	}
	if i < len(p.tail) {
		return p.tail[i]
	}
	return ""
}

// anatomyShown is the request the pane shows, read whole.
type anatomyShown struct {
	key anatomyKey
	// what: a call sent, a request assembled and not sent yet, one on the
	// wire, or nothing to show (hint says why).
	what    shownWhat
	call    anatomy.Call // with its parts
	read    bool         // call was read (else unread or hint says why not)
	since   *anatomy.Change
	missing bool   // a call came before, but it was not at hand to compare
	unread  string // why the request could not be read
	hint    string
	seq     int // the step of the call (or of the preview)
	n       int // which call of the run it is (1, 2, …)
	upto    int // the calls drawn in the growth chart: the first upto of the run's
}

type shownWhat int

const (
	shownNone shownWhat = iota
	shownSent
	shownPreview
	shownWire
)

// anatomyKey tells one request on screen from another: what it is, its
// step, and its body (the same slice while nothing changes).
type anatomyKey struct {
	what shownWhat
	seq  int
	body *byte
	n    int
}

func bodyKey(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// settle finds the request of the step shown and reads it when it is not
// the one read before; it reports whether the call on screen changed.
func (p *anatomyPane) settle() bool {
	r := p.r
	at := p.calls.update(r.live.steps)
	sel := r.live.selectedIndex()
	var s anatomyShown
	switch {
	case r.busy && !r.live.travelling() && r.inflight != nil:
		s = anatomyShown{what: shownWire, n: len(at) + 1, upto: len(at), seq: r.live.nextSeq()}
		s.key = anatomyKey{shownWire, s.seq, bodyKey(r.inflight.RequestBody), s.n}
		if s.key != p.shown.key {
			p.readRequest(&s, *r.inflight, len(r.live.steps))
		}
	case sel >= 0 && p.unsent(sel) != nil:
		x := p.unsent(sel)
		k := sort.SearchInts(at, sel+1)
		s = anatomyShown{what: shownPreview, n: k + 1, upto: k, seq: r.live.steps[sel].t.Seq}
		s.key = anatomyKey{shownPreview, s.seq, bodyKey(x.RequestBody), s.n}
		if s.key != p.shown.key {
			p.readRequest(&s, *x, sel+1)
		}
	default:
		s = p.sentOrNone(at, sel)
	}
	if s.key == p.shown.key {
		if s.what == shownNone { // the hint of a step with no call changes with the step
			p.shown.hint, p.shown.upto = s.hint, s.upto
		}
		return false
	}
	p.shown = s
	return true
}

// unsent is the request step sel assembled and has not sent yet: the
// engine's preview of it, or, on a tap, the agent's request as it arrived
// (held, or on its way); nil for none.
func (p *anatomyPane) unsent(sel int) *providers.Exchange {
	st := &p.r.live.steps[sel]
	switch {
	case st.t.Edge != loop.EdgeContextReady:
		return nil
	case st.preview != nil && st.preview.err == nil:
		return &st.preview.ex
	case p.r.live.outside && len(st.t.Exchanges) > 0:
		return &st.t.Exchanges[len(st.t.Exchanges)-1]
	}
	return nil
}

// sentOrNone is the call step sel belongs to, read unless it is the one
// shown already, or, when sel belongs to no call, why not.
func (p *anatomyPane) sentOrNone(at []int, sel int) anatomyShown {
	r := p.r
	es := r.live.exchangeStep(sel)
	k := sort.SearchInts(at, es)
	if es < 0 || k >= len(at) || at[k] != es {
		s := anatomyShown{hint: p.noCall(sel), upto: sort.SearchInts(at, sel+1)}
		s.key = anatomyKey{what: shownNone, seq: -1, n: -s.upto}
		return s
	}
	s := anatomyShown{what: shownSent, n: k + 1, upto: k + 1, seq: r.live.steps[es].t.Seq}
	s.key = anatomyKey{shownSent, s.seq, p.sentBody(es), s.n}
	if s.key != p.shown.key {
		p.readSent(&s, es)
	}
	return s
}

// sentBody is the key of call step es's request: its last exchange's body,
// or nil while its exchanges are on disk.
func (p *anatomyPane) sentBody(es int) *byte {
	xs := p.r.live.steps[es].t.Exchanges
	if len(xs) == 0 {
		return nil
	}
	return bodyKey(xs[len(xs)-1].RequestBody)
}

// readSent reads call step es whole: its parts from its exchange (in
// memory, or once read back from the session), the rest as recorded.
func (p *anatomyPane) readSent(s *anatomyShown, es int) {
	st := &p.r.live.steps[es]
	a := st.anat
	switch {
	case a == nil && st.t.ExchangesAt == nil && len(st.t.Exchanges) == 0 && p.r.backend == "file":
		s.hint = p.r.lang.T("This trace records the call's messages, not its HTTP exchange: without the request's bytes there is nothing to take apart. A HAR file of the same run has them.")
		return
	case a == nil && st.t.ExchangesAt == nil && len(st.t.Exchanges) == 0:
		s.hint = p.r.lang.T("This model call has no captured HTTP exchange (the provider did not reach the wire).")
		return
	case a == nil:
		s.hint = p.r.lang.F("Reading the request of step #%d back from the session…", st.t.Seq)
		return
	case a.unread != "":
		s.unread = a.unread
		return
	}
	s.call, s.since, s.missing, s.read = a.rec.Call, a.rec.Since, a.missing, true
	if xs := st.t.Exchanges; len(xs) > 0 {
		if c, ok, err := anatomy.FromExchange(p.r.live.book.codecs, xs[len(xs)-1]); ok && err == nil {
			s.call.Parts = c.Parts
		}
	}
}

// readRequest reads a request not sent yet (or on the wire) and compares
// it with the last call before step index i.
func (p *anatomyPane) readRequest(s *anatomyShown, x providers.Exchange, i int) {
	book := &p.r.live.book
	c, a := book.of(x)
	if a.unread != "" {
		s.unread = a.unread
		return
	}
	s.call, s.read = c, true
	prev, missing := book.before(p.r.live, i)
	s.missing = missing
	if prev != nil {
		ch := anatomy.Between(*prev, c)
		s.since = &ch
	}
}

// noCall says why step sel has no model call to show.
func (p *anatomyPane) noCall(sel int) string {
	l := p.r.lang
	switch {
	case sel < 0 && p.r.live.outside:
		return l.T("No model call yet: point the agent at the tap (History says how). What each request it sends is made of, and what each part costs, appears here.")
	case sel < 0:
		return l.T("No model call yet. Send a request and step to AWAITING_LLM_RESPONSE: what the request is made of, and what each part costs, appears here.")
	case p.r.live.steps[sel].t.Edge == loop.EdgeContextReady && p.r.live.travelling():
		return l.T("This step assembled the request; the step after it sent it. Press ] to read what it was made of.")
	case p.r.live.steps[sel].t.Edge == loop.EdgeContextReady:
		return l.T("The request is assembled; glassbox could not build it to read it before it is sent. Press space to send it: its parts appear here.")
	}
	return l.T("This step is before the iteration's model call: step on (space) or move in time ([ ]) to a step of a call to read its request.")
}

// callIndex lists the run's steps that made a model call, in order, kept
// up to date as steps are added; a fork or a branch shown is another list
// of steps, and the index is made again.
type callIndex struct {
	base *stepRecord // the first step of the list indexed
	n    int         // steps indexed
	at   []int
}

func (c *callIndex) update(steps []stepRecord) []int {
	if len(steps) == 0 || &steps[0] != c.base || len(steps) < c.n {
		c.base, c.n, c.at = nil, 0, c.at[:0]
	}
	if len(steps) > 0 {
		c.base = &steps[0]
	}
	for i := c.n; i < len(steps); i++ {
		if steps[i].t.LLM != nil {
			c.at = append(c.at, i)
		}
	}
	c.n = len(steps)
	return c.at
}

// layout lays the call out for in: small, the gist; large, everything.
func (p *anatomyPane) layout(lk look, in rect) {
	p.head, p.tail, p.parts = nil, nil, false
	s := &p.shown
	l := p.r.lang
	p.info = p.status()
	w := max(in.w, 1)
	if !s.read {
		why := s.hint
		st := lk.th.Muted
		if s.unread != "" {
			why, st = l.F("glassbox could not read this request: %s", l.Dyn(sanitize(s.unread))), lk.th.Warning
		}
		p.head = wrapStyled(st, why, w)
		if g := p.growthLines(lk, w, in.h >= 16); len(g) > 0 {
			p.head = append(p.head, "")
			p.head = append(p.head, g...)
		}
		return
	}
	if in.h < 12 || in.w < 50 {
		p.head = p.compact(lk, w)
		return
	}
	p.head = p.full(lk, w)
	p.parts = true
	p.tail = append([]string{""}, wrapStyled(lk.th.Muted, l.F("Estimated tokens: %s.", l.Dyn(anatomy.EstimateRule)), w)...)
}

// status is the pane's frame status: which call, and what it is.
func (p *anatomyPane) status() string {
	s := &p.shown
	l := p.r.lang
	switch s.what {
	case shownSent:
		return l.F("call %d · #%d", s.n, s.seq)
	case shownPreview:
		return l.F("call %d · unsent", s.n)
	case shownWire:
		return l.F("call %d · live", s.n)
	}
	return ""
}

// compact is the gist for a small pane: the size and tokens, what the
// call kept and appended, the growth as a sparkline, then the kinds.
func (p *anatomyPane) compact(lk look, w int) []string {
	s := &p.shown
	l := p.r.lang
	c := &s.call
	var out []string
	add := func(st lipgloss.Style, text string) { out = append(out, wrapStyled(st, text, w)...) }
	switch s.what {
	case shownPreview:
		add(lk.th.Warning, l.T("not sent yet: the request as it will go"))
	case shownWire:
		add(lk.th.Warning, l.T("on the wire: the request as it went"))
	}
	size := l.F("%s bytes · %d parts", anatomycmd.Num(c.Bytes), len(c.Parts))
	est := l.F("%s tokens estimated", anatomycmd.Num(c.Estimated.N))
	if one := size + " · " + est; cell.Width(one) <= w {
		add(lk.th.Bold, one)
	} else {
		add(lk.th.Bold, size)
		add(lk.th.Bold, est)
	}
	if rep := c.Reported; rep != nil {
		add(lk.th.Muted, l.F("%s tokens reported (%s)", anatomycmd.Num(rep.N), signed(*c.Difference)))
	}
	if line := p.sinceLine(); line != "" {
		st := lk.th.Muted
		if s.since != nil && s.since.BreaksAt != nil {
			st = lk.th.Warning
		}
		add(st, line)
	}
	if s.upto > 1 || s.what != shownSent {
		out = append(out, p.sparkline(lk, w))
	}
	for _, k := range c.Kinds {
		out = append(out, kindRow(k, c.Bytes, w, false))
	}
	return out
}

// sinceLine says in one line what the call did with the one before.
func (p *anatomyPane) sinceLine() string {
	s := &p.shown
	l := p.r.lang
	ch := s.since
	switch {
	case ch == nil && s.missing:
		return l.T("the call before is not in memory: nothing to compare with")
	case ch == nil:
		return l.T("the run's first call: nothing cached before it")
	}
	line := l.F("kept %s · appended %s bytes", anatomycmd.Num(ch.Kept.Bytes), anatomycmd.Num(ch.Appended.Bytes))
	if ch.BreaksAt != nil {
		line += " · " + l.F("cache breaks at %s", pieceName(l, *ch.BreaksAt))
	}
	if ch.Cached != nil {
		line += " · " + l.F("%s cached", anatomycmd.Num(ch.Cached.N))
	}
	return line
}

// pieceName names a part of the prompt: "message 3 (tool_result)", "tool
// read_file", "system".
func pieceName(l lang.Lang, at anatomy.Piece) string {
	switch {
	case at.Message >= 0:
		return l.F("message %d (%s)", at.Message+1, at.Kind)
	case at.Label != "":
		return string(at.Kind) + " " + sanitize(at.Label)
	}
	return string(at.Kind)
}

// full is everything but the parts table, for a large pane: the call,
// its kinds, its tokens with where each figure comes from, what it did
// with the call before, and the run's growth.
func (p *anatomyPane) full(lk look, w int) []string {
	s := &p.shown
	l := p.r.lang
	c := &s.call
	var out []string
	add := func(st lipgloss.Style, text string) { out = append(out, wrapStyled(st, text, w)...) }
	head := []string{c.Family}
	if c.Dialect != "" && c.Dialect != c.Family {
		head = append(head, c.Dialect)
	}
	if c.Model != "" {
		head = append(head, sanitize(c.Model))
	}
	add(lk.th.Bold, p.fullHeading()+" · "+strings.Join(head, " · "))
	add(lk.th.Muted, l.F("%s bytes in %d parts: the parts add up to the body byte for byte.", anatomycmd.Num(c.Bytes), len(c.Parts)))
	out = append(out, "", lk.th.Bold.Render(cell.Truncate(l.T("What it is made of (tokens estimated)"), w, "…")))
	out = append(out, lk.th.Muted.Render(kindHeading(l, w)))
	for _, k := range c.Kinds {
		out = append(out, kindRow(k, c.Bytes, w, true))
	}
	out = append(out, "", lk.th.Bold.Render(cell.Truncate(l.T("Tokens, and where each figure comes from"), w, "…")))
	out = append(out, p.tokenLines(lk, w)...)
	out = append(out, "", lk.th.Bold.Render(cell.Truncate(p.sinceHeading(), w, "…")))
	out = append(out, p.sinceLines(lk, w)...)
	out = append(out, "")
	out = append(out, p.growthLines(lk, w, true)...)
	return append(out, "", lk.th.Bold.Render(cell.Truncate(l.T("Part by part, in the body's order (tokens estimated)"), w, "…")))
}

// fullHeading names the call on screen and what it is.
func (p *anatomyPane) fullHeading() string {
	s := &p.shown
	l := p.r.lang
	switch s.what {
	case shownPreview:
		return l.F("Call %d, assembled at step #%d, not sent yet", s.n, s.seq)
	case shownWire:
		return l.F("Call %d, on the wire", s.n)
	}
	return l.F("Call %d, sent at step #%d", s.n, s.seq)
}

// tokenLines are the request's token figures, each labelled with where it
// comes from, and how the estimate squares with the reported count.
func (p *anatomyPane) tokenLines(lk look, w int) []string {
	c := &p.shown.call
	l := p.r.lang
	var out []string
	fig := func(label, n, src string) {
		line := fmt.Sprintf("  %s %s  %s", cell.Fit(label, 12, "…"), padLeft(n, 8), src)
		out = append(out, wrapStyledIndent(lk.th.Muted, line, w, 25)...)
	}
	fig(l.T("estimated"), anatomycmd.Num(c.Estimated.N), l.T("the sum of the parts' estimates (rule below)"))
	if rep := c.Reported; rep != nil {
		src := l.F("reported by the provider in %s", rep.Field)
		if rep.Rule != "" {
			src += " — " + l.Dyn(rep.Rule)
		}
		fig(l.T("reported"), anatomycmd.Num(rep.N), src)
		fig(l.T("difference"), signed(*c.Difference), l.T("reported minus estimated: what the estimate does not know (the chat template, how tools are rendered, the tokenizer)"))
	} else {
		fig(l.T("reported"), "—", p.noReport())
	}
	if cached := c.Cached; cached != nil {
		fig(l.T("cached"), anatomycmd.Num(cached.N), l.F("served from the provider's prompt cache, reported in %s", cached.Field))
	}
	if o := c.Output; o != nil {
		fig(l.T("output"), anatomycmd.Num(o.N), l.F("the reply's tokens, reported in %s", o.Field))
	}
	fig(l.T("counted"), "—", l.T("no tokenizer for these model families runs offline in Go"))
	return out
}

// noReport says why the request has no reported count.
func (p *anatomyPane) noReport() string {
	l := p.r.lang
	switch p.shown.what {
	case shownPreview:
		return l.T("not sent yet: the provider counts the request when it answers")
	case shownWire:
		return l.T("on the wire: the provider counts the request when it answers")
	}
	return l.T("the reply carried no count (an error, or a server that does not report one)")
}

// sinceHeading is the heading of what the call did with the one before.
func (p *anatomyPane) sinceHeading() string {
	l := p.r.lang
	if p.shown.n <= 1 {
		return l.T("Since the call before: nothing, this is the run's first call")
	}
	return l.F("Since call %d: what a provider's prompt cache can reuse", p.shown.n-1)
}

// sinceLines are what the call kept, appended and changed from the call
// before, where the cache breaks, and what the provider served from it.
func (p *anatomyPane) sinceLines(lk look, w int) []string {
	s := &p.shown
	l := p.r.lang
	ch := s.since
	switch {
	case ch == nil && s.missing:
		return wrapStyled(lk.th.Muted, "  "+l.T("The call before is not in memory (it went back to the session file), so there is nothing to compare with here; glassbox anatomy SESSION --step N compares it."), w)
	case ch == nil:
		return wrapStyled(lk.th.Muted, "  "+l.T("A provider's prompt cache has nothing to reuse yet: every part is new."), w)
	}
	amount := func(label string, a anatomy.Amount, note string) string {
		return fmt.Sprintf("  %s %s %s %s  %s", cell.Fit(label, 10, "…"), padLeft(l.F("%d part%s", a.Parts, plural(a.Parts)), 10), padLeft(l.F("%s bytes", anatomycmd.Num(a.Bytes)), 14), padLeft(l.F("%s tokens", anatomycmd.Num(a.Tokens)), 13), note)
	}
	out := []string{
		cell.Truncate(amount(l.T("kept"), ch.Kept, l.T("the unchanged start")), w, "…"),
		cell.Truncate(amount(l.T("appended"), ch.Appended, l.T("new after the end of the call before")), w, "…"),
	}
	if at := ch.BreaksAt; at != nil {
		out = append(out, cell.Truncate(amount(l.T("changed"), ch.Changed, ""), w, "…"))
		why := l.F("The cache breaks at %s: from there on nothing can come from the cache.", pieceName(l, *at))
		if ch.Removed > 0 {
			why += " " + l.F("%d parts of the call before have no place in this one.", ch.Removed)
		}
		out = append(out, wrapStyled(lk.th.Warning, "  "+why, w)...)
	} else {
		out = append(out, wrapStyled(lk.th.Success, "  "+l.T("The cache does not break: this call only appends to the one before."), w)...)
	}
	if ch.Cached != nil {
		out = append(out, wrapStyled(lk.th.Muted, "  "+l.F("The provider served %s input tokens from its cache (%s).", anatomycmd.Num(ch.Cached.N), ch.Cached.Field), w)...)
	} else {
		out = append(out, wrapStyled(lk.th.Muted, "  "+l.T("The provider did not report what it served from a cache."), w)...)
	}
	return out
}

// growthPoint is one call of the run: its request's bytes and tokens.
type growthPoint struct {
	bytes, estimated int
	reported         *anatomy.Tokens
	read             bool // the call's request was read
}

// points are the run's calls up to the one shown: the calls recorded (the
// first upto) and, for a request not sent yet or on the wire, that one.
func (p *anatomyPane) points() []growthPoint {
	s := &p.shown
	at := p.calls.at
	pts := make([]growthPoint, 0, s.upto+1)
	for _, i := range at[:min(s.upto, len(at))] {
		if a := p.r.live.steps[i].anat; a != nil && a.unread == "" {
			c := &a.rec.Call
			pts = append(pts, growthPoint{bytes: c.Bytes, estimated: c.Estimated.N, reported: c.Reported, read: true})
		} else {
			pts = append(pts, growthPoint{})
		}
	}
	if s.what == shownPreview || s.what == shownWire {
		pts = append(pts, growthPoint{bytes: s.call.Bytes, estimated: s.call.Estimated.N, read: s.read})
	}
	return pts
}

// sparkline is the growth in one line: a character per call (or per few
// calls, when there are more than fit), the call shown last.
func (p *anatomyPane) sparkline(lk look, w int) string {
	pts := p.points()
	l := p.r.lang
	label := l.T("growth") + " "
	if len(pts) == 0 {
		return ""
	}
	tail := " " + l.F("%s→%s bytes", anatomycmd.Num(pts[0].bytes), anatomycmd.Num(pts[len(pts)-1].bytes))
	room := max(w-cell.Width(label)-cell.Width(tail), 4)
	cols := bucket(pts, room)
	most := 1
	for _, c := range cols {
		most = max(most, c)
	}
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(barBlock(c, most, 1, 0))
	}
	return cell.Truncate(lk.th.Muted.Render(label)+b.String()+lk.th.Muted.Render(tail), w, "…")
}

// growthLines is the run's growth as a chart: the bytes of each call's
// request as a column (and, wide enough, its tokens beside), the call
// shown marked, and what the run has sent so far.
func (p *anatomyPane) growthLines(lk look, w int, tall bool) []string {
	pts := p.points()
	l := p.r.lang
	if !anyRead(pts) {
		return nil // no request read: nothing grew that glassbox saw
	}
	out := wrapStyled(lk.th.Bold, l.T("Growth: every call sends the whole conversation again"), w)
	if !tall {
		return append(out, p.sparkline(lk, w))
	}
	bytesOf := func(g growthPoint) int { return g.bytes }
	tokensOf, tokLabel := func(g growthPoint) int { return g.estimated }, l.T("tokens, estimated")
	if allReported(pts) {
		tokensOf, tokLabel = func(g growthPoint) int { return g.reported.N }, l.T("tokens, reported")
	}
	const h = 5
	if w >= 90 {
		half := (w - 2) / 2
		left := chart(lk.th, pts, bytesOf, l.T("bytes"), half, h)
		right := chart(lk.th, pts, tokensOf, tokLabel, w-2-half, h)
		for i := range left {
			out = append(out, cell.Fit(left[i], half, "")+"  "+right[i])
		}
	} else {
		out = append(out, chart(lk.th, pts, bytesOf, l.T("bytes"), w, h)...)
	}
	sum, n := 0, 0
	for _, g := range pts {
		sum += g.bytes
		if g.read {
			n++
		}
	}
	return append(out, wrapStyled(lk.th.Muted, l.F("Sent over the run so far: %s bytes in %d calls — the sum grows with the square of the conversation's length.", anatomycmd.Num(sum), n), w)...)
}

func anyRead(pts []growthPoint) bool {
	for _, g := range pts {
		if g.read {
			return true
		}
	}
	return false
}

func allReported(pts []growthPoint) bool {
	for _, g := range pts {
		if g.reported == nil {
			return false
		}
	}
	return len(pts) > 0
}

// chart draws values of pts as columns h rows high in w cells: a label
// row, h rows of bars with the largest value on the axis, the axis with
// the first and last call's numbers. The last column (the call shown) is
// marked.
func chart(th theme.Theme, pts []growthPoint, value func(growthPoint) int, label string, w, h int) []string {
	vals := make([]growthPoint, len(pts))
	most := 1
	for i, g := range pts {
		vals[i] = growthPoint{bytes: value(g), read: g.read}
		if g.read {
			most = max(most, vals[i].bytes)
		}
	}
	top := anatomycmd.Num(most)
	lw := cell.Width(top) + 1
	room := max(w-lw-1, 4)
	cols := bucket(vals, room)
	step := 1
	if len(cols)*2 <= room {
		step = 2
	}
	out := []string{cell.Truncate(th.Muted.Render(strings.Repeat(" ", lw+1)+label), w, "…")}
	for row := 0; row < h; row++ {
		axis := "│"
		lab := strings.Repeat(" ", lw)
		if row == 0 {
			axis, lab = "┤", padLeft(top, lw-1)+" "
		}
		var b strings.Builder
		for i, c := range cols {
			bl := barBlock(c, most, h, h-1-row)
			if i == len(cols)-1 {
				bl = th.Warning.Render(bl)
			}
			b.WriteString(bl)
			if step == 2 {
				b.WriteString(" ")
			}
		}
		out = append(out, cell.Truncate(th.Muted.Render(lab+axis)+b.String(), w, ""))
	}
	last := fmt.Sprint(len(pts))
	span := len(cols)*step - len(last)
	axis := padLeft("0", lw-1) + " └" + strings.Repeat("─", max(len(cols)*step, 1))
	calls := strings.Repeat(" ", lw+1) + "1"
	if len(pts) > 1 && span > 1 {
		calls += strings.Repeat(" ", span-1) + last
	}
	return append(out, th.Muted.Render(cell.Truncate(axis, w, "")), th.Muted.Render(cell.Truncate(calls, w, "")))
}

// bucket fits the points' values into at most n columns: one per point
// while they fit, else the largest of each run of neighbours, so the
// last column is always the last point (a point not read counts 0).
func bucket(pts []growthPoint, n int) []int {
	if len(pts) <= n {
		out := make([]int, len(pts))
		for i, g := range pts {
			out[i] = g.bytes
		}
		return out
	}
	out := make([]int, n)
	for i, g := range pts {
		c := i * n / len(pts)
		out[c] = max(out[c], g.bytes)
	}
	return out
}

// barBlock is the character of a column of value v (of most) at row row
// (counted from the bottom) of a chart h rows high: a full block below
// the top of the column, an eighth block at it, a space above. A value
// above 0 shows at least a sliver.
func barBlock(v, most, h, row int) string {
	eighths := v * h * 8 / max(most, 1)
	if v > 0 && eighths == 0 {
		eighths = 1
	}
	level := min(max(eighths-row*8, 0), 8)
	return []string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}[level]
}

// kindHeading is the heading of the kinds table; where its last column's
// words would be cut, it says them short.
func kindHeading(l lang.Lang, w int) string {
	head := fmt.Sprintf("  %s %s %s %s  ", cell.Fit(l.T("kind"), 12, "…"), padLeft(l.T("parts"), 6), padLeft(l.T("bytes"), 9), padLeft(l.T("tokens"), 9))
	share := l.T("share of the bytes")
	if cell.Width(head)+cell.Width(share) > w {
		share = l.T("share")
	}
	return cell.Truncate(head+share, w, "…")
}

// kindRow is one kind's total: its parts, bytes and estimated tokens, and
// (wide) a bar of its share of the request's bytes.
func kindRow(k anatomy.Total, total, w int, wide bool) string {
	if !wide {
		name := string(k.Kind)
		if k.Parts > 1 {
			name += fmt.Sprintf(" ×%d", k.Parts)
		}
		return cell.Truncate(fmt.Sprintf("%s %s %s", cell.Fit(name, max(w-17, 8), "…"), padLeft(anatomycmd.Num(k.Bytes), 8), padLeft(anatomycmd.Num(k.Tokens), 7)), w, "…")
	}
	return cell.Truncate(fmt.Sprintf("  %s %s %s %s  %s", cell.Fit(string(k.Kind), 12, "…"), padLeft(fmt.Sprint(k.Parts), 6), padLeft(anatomycmd.Num(k.Bytes), 9), padLeft(anatomycmd.Num(k.Tokens), 9), bar(k.Bytes, total, 20)), w, "…")
}

// partRow is one row of the parts table.
func partRow(kind, label, bytes, tokens, bar string, w int) string {
	lw := min(max(w-49, 12), 40)
	return cell.Truncate(fmt.Sprintf("  %s %s %s %s  %s", cell.Fit(kind, 12, "…"), cell.Fit(label, lw, "…"), padLeft(bytes, 9), padLeft(tokens, 9), bar), w, "…")
}

// bar is n's share of total as a bar of up to width cells, in eighths.
func bar(n, total, width int) string {
	if total <= 0 || n <= 0 {
		return ""
	}
	eighths := max(n*width*8/total, 1)
	return strings.Repeat("█", eighths/8) + []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}[eighths%8]
}

// signed writes n with its sign and thousands separators: "+7,006".
func signed(n int) string {
	if n < 0 {
		return "-" + anatomycmd.Num(-n)
	}
	return "+" + anatomycmd.Num(n)
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	if n := cell.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// wrapStyledIndent wraps s to w cells, its continuation lines indented by
// indent cells (under a table's text column), and paints each line.
func wrapStyledIndent(st lipgloss.Style, s string, w, indent int) []string {
	lines := wrapLines(s, w)
	if len(lines) <= 1 || indent >= w/2 || !strings.HasPrefix(s, lines[0]) {
		return wrapStyled(st, s, w)
	}
	out := []string{st.Render(lines[0])}
	for _, ln := range wrapLines(strings.TrimLeft(s[len(lines[0]):], " "), w-indent) {
		out = append(out, st.Render(strings.Repeat(" ", indent)+ln))
	}
	return out
}
