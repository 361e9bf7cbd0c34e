package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// toolsComponent is the Tool calls pane of a run: the calls of the
// iteration shown, each with its verdict, rule, status and result. It
// follows the loop: the call being worked on is kept in view, and marks say
// when calls lie above or below.
type toolsComponent struct{ r *runView }

var _ component = toolsComponent{}

func (toolsComponent) title() string      { return "Tool calls" }
func (toolsComponent) shortTitle() string { return "Tools" }

func (c toolsComponent) sync(lk look, in rect) {
	lines, _, at := c.r.toolLines(lk, in)
	c.r.calls.follow(at.at, at.end, len(lines), in.h)
}

func (c toolsComponent) key(msg tea.KeyMsg, k keyMap, page int) bool {
	if c.r.calls.key(msg, k.scrolling(), page) {
		c.r.calls.pinned = true // the learner scrolls: stop following
		return true
	}
	return false
}

func (c toolsComponent) scroll(delta int) {
	c.r.calls.scroll(delta)
	c.r.calls.pinned = true
}

func (c toolsComponent) view(lk look, in rect, _ bool) ([]string, string) {
	return c.r.toolsView(lk, in)
}

func (toolsComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Down, k.Up, k.Top, k.Bottom}
}
