package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// historyComponent is the History pane of a run: the conversation by role,
// tool calls and results folded (e expands), as of the step shown.
type historyComponent struct{ r *runView }

var _ component = historyComponent{}

func (historyComponent) title(l lang.Lang) string      { return l.T("History") }
func (historyComponent) shortTitle(l lang.Lang) string { return l.T("Hist") }

func (c historyComponent) sync(lk look, in rect) { c.r.hist.setSize(lk.th, in.w-2, in.h) }

func (c historyComponent) key(msg tea.KeyMsg, k keyMap, page int) bool {
	h, end := c.r.hist, c.r.histEnd()
	switch {
	case key.Matches(msg, k.Up):
		h.moveSel(-1, end)
	case key.Matches(msg, k.Down):
		h.moveSel(+1, end)
	case key.Matches(msg, k.PageUp):
		h.scrollUp(page, end)
	case key.Matches(msg, k.PageDown):
		h.scrollDown(page, end)
	case key.Matches(msg, k.Top):
		h.toTop()
	case key.Matches(msg, k.Bottom):
		h.toBottom()
	case key.Matches(msg, k.Expand):
		h.toggle(end)
	case key.Matches(msg, k.ExpandAll):
		h.toggleAll()
	default:
		return false
	}
	return true
}

func (c historyComponent) scroll(delta int) {
	end := c.r.histEnd()
	if delta < 0 {
		c.r.hist.scrollUp(-delta, end)
	} else {
		c.r.hist.scrollDown(delta, end)
	}
}

func (c historyComponent) view(lk look, in rect, focused bool) ([]string, string) {
	return c.historyView(lk, in, focused)
}

func (historyComponent) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Expand, k.ExpandAll, k.Top, k.Bottom}
}

func (c historyComponent) historyView(lk look, in rect, focused bool) ([]string, string) {
	r := c.r
	end := r.histEnd()
	info := ""
	if r.live.messages > 0 {
		info = r.lang.F("%d message%s", r.live.messages, plural(r.live.messages))
	}
	if r.live.travelling() {
		info = r.lang.F("as of step #%d", r.live.selected().t.Seq)
	} else if !r.hist.atBottom(end) {
		info = r.lang.T("↓ more below (G)")
	}
	return r.hist.view(end, focused), info
}
