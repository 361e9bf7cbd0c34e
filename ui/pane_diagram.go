package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// diagramComponent is the State machine pane of a run: the full drawing
// where it fits, the compact grid of states where it does not, the current
// state lit and the edge just taken named. ←/→ pick a state for b.
type diagramComponent struct{ r *runView }

var _ component = diagramComponent{}

func (diagramComponent) title(l lang.Lang) string      { return l.T("State machine") }
func (diagramComponent) shortTitle(l lang.Lang) string { return l.T("States") }

func (diagramComponent) sync(look, rect) {} // the diagram always fits its pane

func (c diagramComponent) key(msg tea.KeyMsg, k keyMap, _ int) bool {
	switch {
	case key.Matches(msg, k.Left), key.Matches(msg, k.Up):
		c.r.diag.move(-1)
	case key.Matches(msg, k.Right), key.Matches(msg, k.Down):
		c.r.diag.move(+1)
	default:
		return false
	}
	return true
}

func (diagramComponent) scroll(int) {}

func (c diagramComponent) view(lk look, in rect, focused bool) ([]string, string) {
	return c.diagramView(lk, in, focused)
}

func (diagramComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Break, k.Left, k.Right}
}

func (c diagramComponent) diagramView(lk look, in rect, focused bool) ([]string, string) {
	r := c.r
	state, t := r.shownState()
	l := r.lang
	v := diagram.View{Current: state, Breakpoints: r.diag.breakpoints, Lang: l}
	if t != nil {
		v.LastFrom, v.LastEdge = t.From, t.Edge
		if t.Event != nil && t.Event.Source != "ui" { // the person's own typing needs no label
			v.Source, v.From = t.Event.Source, t.Event.From
		}
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
	info := l.F("iteration %d/%d", iteration, r.maxIter)
	switch {
	case r.viewing != nil:
		info = "◀ " + l.F("abandoned branch, step %d of %d — B or a step key returns · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.live.travelling() && r.eng == nil: // a followed run: nothing forks here
		info = "◀ " + l.F("viewing step %d of %d — space catches up · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.live.travelling():
		info = "◀ " + l.F("viewing step %d of %d — ] returns, f forks from here · %s", r.live.selectedIndex()+1, len(r.live.steps), info)
	case r.confirm != nil:
		info = l.F("waiting for your approval · %s", info)
	case r.ask != nil:
		info = l.F("waiting for your answer · %s", info)
	case r.busy:
		info = lk.spin + " " + l.F("working on %s… · %s", state, info)
	}
	if focused {
		info = l.F("←/→ select %s · b breakpoint", r.diag.selected())
	}
	return out[:min(len(out), in.h)], info
}
