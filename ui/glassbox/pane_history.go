package glassbox

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The History pane of a run (historyPane, history.go): the conversation by
// role, tool calls and results folded (e expands), as of the step shown.

var (
	_ component = (*historyPane)(nil)
	_ sizer     = (*historyPane)(nil)
	_ wheel     = (*historyPane)(nil)
)

func (*historyPane) title(l lang.Lang) string      { return l.T("History") }
func (*historyPane) shortTitle(l lang.Lang) string { return l.T("Hist") }

func (p *historyPane) sync(lk look, in rect) { p.setSize(lk.th, in.w-2, in.h) }

func (p *historyPane) key(msg tea.KeyMsg, k keyMap, page int) keyReply {
	end := p.end()
	switch {
	case key.Matches(msg, k.Up):
		p.moveSel(-1, end)
	case key.Matches(msg, k.Down):
		p.moveSel(+1, end)
	case key.Matches(msg, k.PageUp):
		p.scrollUp(page, end)
	case key.Matches(msg, k.PageDown):
		p.scrollDown(page, end)
	case key.Matches(msg, k.Top):
		p.toTop()
	case key.Matches(msg, k.Bottom):
		p.toBottom()
	case key.Matches(msg, k.Expand):
		p.toggle(end)
	case key.Matches(msg, k.ExpandAll):
		p.toggleAll()
	default:
		return passed
	}
	return taken(nil)
}

func (p *historyPane) scroll(delta int) {
	end := p.end()
	if delta < 0 {
		p.scrollUp(-delta, end)
	} else {
		p.scrollDown(delta, end)
	}
}

func (p *historyPane) view(lk look, in rect, focused bool) ([]string, string) {
	r := p.r
	end := p.end()
	info := ""
	if r.live.messages > 0 {
		info = r.lang.F("%d message%s", r.live.messages, plural(r.live.messages))
	}
	if r.live.travelling() {
		info = r.lang.F("as of step #%d", r.live.selected().t.Seq)
	} else if !p.atBottom(end) {
		info = r.lang.T("↓ more below (G)")
	}
	return p.lines(end, focused), info
}

func (*historyPane) keys(k keyMap) []key.Binding {
	return []key.Binding{k.Expand, k.ExpandAll, k.Top, k.Bottom}
}

// end is how many entries existed at the step shown.
func (p *historyPane) end() int {
	if p.r.live.travelling() {
		if s := p.r.live.selected(); s != nil {
			return s.entries
		}
	}
	return p.len()
}

// note says text in History: a note from glassbox itself, never sent to the
// model.
func (p *historyPane) note(text string) { p.add(&historyEntry{kind: entryNote, text: text}) }

// since is a copy of the entries from the nth on.
func (p *historyPane) since(n int) []*historyEntry {
	if n >= len(p.entries) {
		return nil
	}
	return append([]*historyEntry(nil), p.entries[n:]...)
}

// upTo is a copy of the first n entries.
func (p *historyPane) upTo(n int) []*historyEntry {
	return append([]*historyEntry(nil), p.entries[:min(n, len(p.entries))]...)
}

// show puts entries in place of the pane's own, following the newest (B
// shows an abandoned branch, and the run's own line again); it returns the
// entries it had.
func (p *historyPane) show(entries []*historyEntry) []*historyEntry {
	was := p.entries
	p.entries = entries
	p.toBottom()
	return was
}

// welcome says the welcome again (refreshWelcome): the lesson on offer
// changed.
func (p *historyPane) welcome(text string) {
	for _, e := range p.entries {
		if e.kind == entryWelcome {
			e.text, e.lines = text, nil
			return
		}
	}
}
