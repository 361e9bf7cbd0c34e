package ui

import (
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/payload"
)

// scroller is a line offset into content taller than its window: the one
// scroll of the Tool calls and Raw payload panes, the approval dialog's
// preview and the help overlay. Keys move it; Update clamps it once the
// content's length is known (clamp); View only reads it (window).
type scroller struct{ off int }

func (s *scroller) scroll(delta int) { s.off = max(s.off+delta, 0) }

// scrollKeys are the keys that move a scroller: a line, a page, the ends
// (a binding left empty matches nothing).
type scrollKeys struct{ Up, Down, PageUp, PageDown, Top, Bottom key.Binding }

// key moves the scroller for msg, a page being page lines; it reports
// whether msg was one of ks.
func (s *scroller) key(msg tea.KeyMsg, ks scrollKeys, page int) bool {
	switch {
	case key.Matches(msg, ks.Up):
		s.scroll(-1)
	case key.Matches(msg, ks.Down):
		s.scroll(+1)
	case key.Matches(msg, ks.PageUp):
		s.scroll(-page)
	case key.Matches(msg, ks.PageDown):
		s.scroll(+page)
	case key.Matches(msg, ks.Top):
		s.off = 0
	case key.Matches(msg, ks.Bottom):
		s.toEnd()
	default:
		return false
	}
	return true
}

// toEnd moves to the last page; the next clamp puts it exactly there.
func (s *scroller) toEnd() { s.off = math.MaxInt32 }

// clamp keeps the offset inside content of total lines shown h at a time.
func (s *scroller) clamp(total, h int) { s.off = min(max(s.off, 0), max(total-h, 0)) }

// window returns the h lines visible at the offset. It does not change the
// offset: an offset past the end shows the last page.
func (s scroller) window(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	off := min(max(s.off, 0), max(len(lines)-h, 0))
	return lines[off:min(off+h, len(lines))]
}

// percent is how far down the view is scrolled: 0 at the top, 100 at the
// bottom (and when everything fits).
func (s scroller) percent(total, h int) int {
	if total <= h {
		return 100
	}
	off := min(max(s.off, 0), total-h)
	return off * 100 / (total - h)
}

// payloadPane is the Raw payload pane's state: which side of the exchange,
// whether headers show, which exchange (retries make several), the scroll.
type payloadPane struct {
	r        *payload.Renderer
	response bool
	headers  bool
	index    int // -1: the last exchange (the one that answered)
	scroll   scroller
	// pinned: the learner scrolled, so the pane stays where they put it.
	// mark is the line that decided the step's edge (-1: none), found on
	// the page identified by markOf.
	pinned bool
	mark   int
	markOf pageID
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

func newPayloadPane(r *payload.Renderer) *payloadPane { return &payloadPane{r: r, index: -1, mark: -1} }

// settle clamps the scroll for a page of lines shown h at a time and, at a
// step the model's reply decided (edge), finds the line that decided it and
// scrolls there, unless the learner has scrolled.
func (p *payloadPane) settle(lines []string, h int, edge loop.Edge, l lang.Lang) {
	if id := pageOf(lines); id != p.markOf {
		p.markOf, p.mark = id, decidingLine(lines, edge, l)
		if p.mark >= 0 && !p.pinned {
			p.scroll.off = max(p.mark-2, 0) // two lines of what leads to it
		}
	}
	p.scroll.clamp(len(lines), h)
}

// follow resets the pane for the step t now shown: the last exchange, from
// the top, on the side that step is about. A step the model's reply decided
// (tool_call, final_answer, malformed_response, llm_failure) shows the
// response; context_ready, which assembled the next request, shows the
// request; any other step keeps the side the learner picked.
func (p *payloadPane) follow(t *loop.Transition) {
	p.index = -1
	p.scroll.off = 0
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

// nextExchange cycles through the exchanges of one call.
func (p *payloadPane) nextExchange(n int) {
	if n <= 1 {
		return
	}
	p.index = (p.exchangeIndex(n) + 1) % n
	p.scroll.off = 0
}

// diagramPane is the state-machine pane's state: the selected state (for
// breakpoints) and the breakpoints themselves.
type diagramPane struct {
	sel         int
	breakpoints map[loop.State]bool
	// The last drawing and what it was drawn from: the picture changes
	// only with a step, a breakpoint, the selection or the size.
	drawnFor drawing
	drawn    []string
}

// drawing is what a diagram is drawn from.
type drawing struct {
	current, lastFrom, selected loop.State
	lastEdge                    loop.Edge
	breakpoints                 string
	w, h                        int
}

// render draws v in w×h cells, or returns the drawing it already has.
func (d *diagramPane) render(lk look, v diagram.View, w, h int) []string {
	var bp []string
	for _, s := range d.order() {
		if v.Breakpoints[s] {
			bp = append(bp, string(s))
		}
	}
	key := drawing{v.Current, v.LastFrom, v.Selected, v.LastEdge, strings.Join(bp, ","), w, h}
	if d.drawn == nil || key != d.drawnFor {
		d.drawnFor, d.drawn = key, strings.Split(diagram.Render(lk.th, v, w, h), "\n")
	}
	return d.drawn
}

func newDiagramPane() *diagramPane { return &diagramPane{breakpoints: map[loop.State]bool{}} }

// order is the selection order: the diagram's reading order, or the
// documented state order if the diagram gives none.
func (d *diagramPane) order() []loop.State {
	if o := diagram.Order(); len(o) > 0 {
		return o
	}
	return loop.States
}

func (d *diagramPane) selected() loop.State {
	o := d.order()
	return o[min(max(d.sel, 0), len(o)-1)]
}

func (d *diagramPane) move(delta int) {
	n := len(d.order())
	d.sel = ((d.sel+delta)%n + n) % n
}

// set puts a breakpoint on s or takes it off.
func (d *diagramPane) set(s loop.State, on bool) {
	if on {
		d.breakpoints[s] = true
	} else {
		delete(d.breakpoints, s)
	}
}

// toggle sets or clears the breakpoint on the selected state.
func (d *diagramPane) toggle() loop.State {
	s := d.selected()
	if d.breakpoints[s] {
		delete(d.breakpoints, s)
	} else {
		d.breakpoints[s] = true
	}
	return s
}

// toolsScroll is the Tool calls pane's scroll. It follows the call the loop
// is on (the first that has not finished) until the learner scrolls; a new
// step shown starts following again.
type toolsScroll struct {
	scroller
	pinned bool
}

// reset follows the loop again, from the top.
func (s *toolsScroll) reset() { s.off, s.pinned = 0, false }

// follow keeps the lines [at, end) of the current call in a window of h
// lines out of total (at < 0: no current call), unless the learner has
// scrolled, and clamps.
func (s *toolsScroll) follow(at, end, total, h int) {
	if !s.pinned && at >= 0 {
		switch {
		case at < s.off:
			s.off = at
		case end > s.off+h:
			s.off = min(at, end-h)
		}
	}
	s.clamp(total, h)
}
