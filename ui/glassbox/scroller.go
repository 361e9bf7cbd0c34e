package glassbox

import (
	"math"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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
