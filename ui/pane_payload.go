package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// payloadComponent is the Raw payload pane of a run: the HTTP exchange of
// the model call at the step shown, request or response (r), headers (h),
// retries' exchanges (x). At a step the reply decided it scrolls to the
// bytes that decided the edge and marks them.
type payloadComponent struct{ r *runView }

var _ component = payloadComponent{}

func (payloadComponent) title() string      { return "Raw payload" }
func (payloadComponent) shortTitle() string { return "Raw" }

func (c payloadComponent) sync(lk look, in rect) {
	lines, _ := c.r.payloadLines(lk, in)
	c.r.payload.settle(lines, in.h, c.r.decidingEdge())
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
	return c.r.payloadView(lk, in)
}

func (payloadComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.ReqResp, k.Headers, k.Exchange, k.Top, k.Bottom}
}
