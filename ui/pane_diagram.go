package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// diagramComponent is the State machine pane of a run: the full drawing
// where it fits, the compact grid of states where it does not, the current
// state lit and the edge just taken named. ←/→ pick a state for b.
type diagramComponent struct{ r *runView }

var _ component = diagramComponent{}

func (diagramComponent) title() string      { return "State machine" }
func (diagramComponent) shortTitle() string { return "States" }

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
	return c.r.diagramView(lk, in, focused)
}

func (diagramComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Break, k.Left, k.Right}
}
