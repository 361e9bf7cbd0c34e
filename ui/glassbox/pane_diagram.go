package glassbox

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// diagramPane is the State machine pane of a run: the full drawing where it
// fits, the compact grid of states where it does not, the current state lit
// and the edge just taken named. It holds the state selected (←/→) and the
// marks the breakpoints in force on its run (runView.breaks) where they
// name a state or an edge. It always fits its pane, so it neither sizes nor
// scrolls.
type diagramPane struct {
	r   *runView
	sel int
	// The last drawing and what it was drawn from: the picture changes
	// only with a step, a breakpoint, the selection or the size.
	drawnFor drawing
	drawn    []string
}

var _ component = (*diagramPane)(nil)

func newDiagramPane(r *runView) *diagramPane {
	return &diagramPane{r: r}
}

func (*diagramPane) title(l lang.Lang) string      { return l.T("State machine") }
func (*diagramPane) shortTitle(l lang.Lang) string { return l.T("States") }

func (d *diagramPane) key(msg tea.KeyMsg, k keyMap, _ int) keyReply {
	switch {
	case key.Matches(msg, k.Left), key.Matches(msg, k.Up):
		d.move(-1)
	case key.Matches(msg, k.Right), key.Matches(msg, k.Down):
		d.move(+1)
	default:
		return passed
	}
	return taken(nil)
}

func (*diagramPane) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Break, k.Left, k.Right}
}

func (d *diagramPane) view(lk look, in rect, focused bool) ([]string, string) {
	r := d.r
	state, t := r.shownState()
	l := r.lang
	v := diagram.View{Current: state, Breakpoints: r.breaks.Marks(), Lang: l, Outside: r.live.outside}
	if t != nil {
		v.LastFrom, v.LastEdge = t.From, t.Edge
		if t.Event != nil && t.Event.Source != "ui" { // the person's own typing needs no label
			v.Source, v.From = t.Event.Source, t.Event.From
		}
	}
	if focused {
		v.Selected = d.selected()
	}
	// The diagram's own footer says what is happening now; the frame's
	// title adds whether a step is working on it.
	out := d.render(lk, v, in.w, in.h)
	if focused {
		return out[:min(len(out), in.h)], l.F("←/→ select %s · b breakpoint", d.selected())
	}
	return out[:min(len(out), in.h)], d.info(lk, state, t)
}

// info is the frame's status: the iteration, and what the run is doing or
// which step it shows.
func (d *diagramPane) info(lk look, state loop.State, t *loop.Transition) string {
	r, l := d.r, d.r.lang
	iteration := r.live.iteration
	if t != nil && r.live.travelling() {
		iteration = t.Iteration
	}
	info := l.F("iteration %s", r.iterOf(iteration))
	switch {
	case r.viewing != nil:
		return "◀ " + l.F("abandoned branch, step %d of %d — B or a step key returns · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.live.travelling() && r.eng == nil: // a followed run: nothing forks here
		return "◀ " + l.F("viewing step %d of %d — space catches up · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.live.travelling():
		return "◀ " + l.F("viewing step %d of %d — ] returns, f forks from here · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.confirm != nil:
		return l.F("waiting for your approval · %s", info)
	case r.ask != nil:
		return l.F("waiting for your answer · %s", info)
	case r.busy:
		return lk.spin + " " + l.F("working on %s… · %s", state, info)
	}
	return info
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
		if m := v.Breakpoints.States[s]; m != breakpoint.None {
			bp = append(bp, fmt.Sprint(s, m))
		}
	}
	for _, a := range loop.Table { // an edge of several arcs comes twice: no matter, for a key
		if m := v.Breakpoints.Edges[a.Edge]; m != breakpoint.None {
			bp = append(bp, fmt.Sprint(a.Edge, m))
		}
	}
	key := drawing{v.Current, v.LastFrom, v.Selected, v.LastEdge, strings.Join(bp, ","), w, h}
	if d.drawn == nil || key != d.drawnFor {
		d.drawnFor, d.drawn = key, strings.Split(diagram.Render(lk.th, v, w, h), "\n")
	}
	return d.drawn
}

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
