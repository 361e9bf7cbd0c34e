package ui

import (
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/payload"
)

// scrollState is a line offset into content taller than its pane.
type scrollState struct{ off int }

// window returns the h lines visible at the offset, clamping it.
func (s *scrollState) window(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	s.off = min(max(s.off, 0), max(len(lines)-h, 0))
	return lines[s.off:min(s.off+h, len(lines))]
}

func (s *scrollState) scroll(delta int) { s.off = max(s.off+delta, 0) }

func (s *scrollState) percent(total, h int) int {
	if total <= h {
		return 100
	}
	return min(100, (s.off+h)*100/total)
}

// payloadPane is the Raw payload pane's state: which side of the exchange,
// whether headers show, which exchange (retries make several), the scroll.
type payloadPane struct {
	r        *payload.Renderer
	response bool
	headers  bool
	index    int // -1: the last exchange (the one that answered)
	scroll   scrollState
}

func newPayloadPane(r *payload.Renderer) *payloadPane { return &payloadPane{r: r, index: -1} }

// follow resets the pane for a new step: the last exchange, from the top.
func (p *payloadPane) follow() {
	p.index = -1
	p.scroll.off = 0
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
