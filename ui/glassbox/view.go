package glassbox

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// View draws the whole screen: panes (grid, tabs or compare mode's two
// columns), any dialog on top, the input line, the key help and the status
// bar. Every line is exactly the terminal's width, and there are exactly as
// many lines as it is tall. View changes nothing: sizes and scroll offsets
// are settled in Update.
func (m *Model) View() string {
	if !m.ready {
		return m.lang.T("starting glassbox…")
	}
	L := m.computeLayout()
	if L.mode == layoutTooSmall {
		return tooSmallView(m.lang, m.width, m.height)
	}
	lk := m.look()
	bar := m.bar
	var blocks []block
	if L.strip.h > 0 {
		blocks = append(blocks, block{L.strip, m.strip.frame(lk, L.strip)})
	}
	if L.runBar.h > 0 {
		blocks = append(blocks, block{L.runBar, []string{bar.runBar(L.runBar.w)}})
	}
	if L.mode == layoutTabs {
		blocks = append(blocks, block{L.tabBar, []string{bar.tabBar(L.tabBar.w)}})
	}
	for i, h := range L.heads {
		if h.h > 0 {
			blocks = append(blocks, block{h, []string{bar.runHead(lk, i, h.w)}})
		}
	}
	s := m.stepper
	for _, pl := range L.panes {
		r := m.runs[pl.run]
		focused := !m.inputFocused && s.pane == pl.pane && (s.run < 0 || s.run == pl.run)
		blocks = append(blocks, block{pl.r, r.paneView(lk, pl.pane, pl.r, focused, s.zoomed && pl.pane == s.pane)})
	}
	top := m.top()
	blocks = append(blocks,
		block{L.input, strings.Split(m.input.View(), "\n")},
		block{L.help, []string{bar.helpLine(L.help.w, top, m.keyHelp(top))}},
		block{L.status, []string{bar.status(lk, L.status.w)}},
	)
	screen := compose(m.width, m.height, blocks)
	if box, ok := m.overlayView(top, L.body); ok {
		overlay(screen, box)
	}
	return strings.Join(screen, "\n")
}

// keyHelp is the keys of what has the keyboard, for the help line: the
// dialog on top (top), else the input line, else the stepper with the
// focused pane's own keys.
func (m *Model) keyHelp(top dialog) help.KeyMap {
	switch {
	case top != nil:
		return top.keys()
	case m.inputFocused:
		return inputHelp{m.keys}
	}
	return stepperHelp{k: m.keys, pane: m.stepper.cur().panes[m.stepper.pane], compare: m.stepper.compare()}
}

// look is what the runs' panes need to draw themselves now.
func (m *Model) look() look {
	return look{th: m.th, spin: m.spin.View(), sandbox: m.cfg.Sandbox, who: m.who,
		statusKey: theme.NewBrush(m.th.StatusKey), statusBar: theme.NewBrush(m.th.StatusBar)}
}

// look is what a run's panes need from the parent to draw themselves: the
// theme and the spinner's current frame.
type look struct {
	th      theme.Theme
	spin    string
	sandbox string    // "on — …", "off — reason" or "" (not told)
	who     role.Role // whose glass box: a backend chosen by the instructor says so
	// The status bar's two styles as brushes: a bar is some twenty
	// segments, each a label and a value.
	statusKey, statusBar theme.Brush
}

// paneView draws the run's pane p, framed, in rc. focused: the pane has the
// keyboard; zoomed: it fills the body.
func (r *runView) paneView(lk look, p paneID, rc rect, focused, zoomed bool) []string {
	c := r.panes[p]
	content, info := c.view(lk, rc.inner(), focused)
	if zoomed {
		info = strings.TrimSuffix(r.lang.T("zoomed (z)")+" · "+info, " · ")
	}
	title := c.title(r.lang)
	if frameFits(title, info, rc.w) != frameFits(c.shortTitle(r.lang), info, rc.w) {
		title = c.shortTitle(r.lang) // the short name leaves the status whole
	}
	return frame(lk.th, title, info, focused, rc, content)
}

// frameFits reports whether a frame w cells wide shows title and info
// whole (frame's own arithmetic: a corner and a rule before the title, a
// rule and a corner after the info, a space either side of each).
func frameFits(title, info string, w int) bool {
	return 1+1+ansi.StringWidth(title)+2+ansi.StringWidth(info)+2+1+1 <= w
}

// tooSmallView fills a width×height terminal with what it lacks.
func tooSmallView(l lang.Lang, width, height int) string {
	msg := l.F("terminal too small: need %d×%d, have %d×%d", minWidth, minHeight, width, height)
	lines := make([]string, max(height, 1))
	for i, ln := range wrapLines(msg, max(width, 1)) {
		if i < len(lines) {
			lines[i] = ln
		}
	}
	return strings.Join(lines, "\n")
}

// block is some lines placed at a rectangle of the screen.
type block struct {
	r     rect
	lines []string
}

// compose lays blocks out on a width×height screen. Blocks must not overlap
// (overlay handles dialogs); gaps are filled with spaces.
func compose(width, height int, blocks []block) []string {
	sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].r.x < blocks[j].r.x })
	screen := make([]string, height)
	var b strings.Builder
	for y := 0; y < height; y++ {
		b.Reset()
		x := 0
		for _, bl := range blocks {
			if y < bl.r.y || y >= bl.r.y+bl.r.h || bl.r.w <= 0 || bl.r.x < x {
				continue
			}
			b.WriteString(strings.Repeat(" ", bl.r.x-x))
			line := ""
			if i := y - bl.r.y; i < len(bl.lines) {
				line = bl.lines[i]
			}
			b.WriteString(fit(line, bl.r.w))
			x = bl.r.x + bl.r.w
		}
		if x < width {
			b.WriteString(strings.Repeat(" ", width-x))
		}
		screen[y] = b.String()
	}
	return screen
}

// fit truncates or pads s to exactly w cells.
func fit(s string, w int) string { return cell.Fit(s, w, "") }

// overlay draws box over screen, centred on its rectangle.
func overlay(screen []string, box block) {
	for i, ln := range box.lines {
		y := box.r.y + i
		if y < 0 || y >= len(screen) || i >= box.r.h {
			continue
		}
		base := screen[y]
		total, end := cell.Width(base), box.r.x+box.r.w
		left := fit(cell.Cut(base, 0, box.r.x), box.r.x)
		right := cell.Cut(base, end, total)
		// A wide character the box's right edge cuts in half is dropped
		// and its other cell becomes a space, so the line keeps its width.
		if cell.Width(right) > total-end {
			right = " " + cell.Cut(base, end+1, total)
		}
		screen[y] = left + fit(ln, box.r.w) + right
	}
}

// frame draws a pane's border with its title (and info on the right) around
// content, in exactly r.w×r.h cells.
func frame(th theme.Theme, title, info string, focused bool, r rect, content []string) []string {
	if r.w < 2 || r.h < 2 {
		return nil
	}
	st := th.Pane
	if focused {
		st = th.PaneFocused
	}
	bd := st.GetBorderStyle()
	if bd.Top == "" {
		bd = lipgloss.RoundedBorder()
	}
	bs := theme.NewBrush(lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())) // a Render per line would cost a fifth of the frame
	titleSt := th.Bold
	if focused {
		titleSt = th.Title
	}

	iw := r.w - 2
	head := ""
	if title != "" && iw >= 4 {
		head = bs.Render(bd.Top) + titleSt.Render(cell.Truncate(" "+title+" ", iw-1, "…"))
	}
	tail := ""
	if info != "" {
		room := iw - cell.Width(head) - 2
		if room > 3 {
			tail = th.Muted.Render(cell.Truncate(" "+info+" ", room, "…")) + bs.Render(bd.Top)
		}
	}
	fill := max(iw-cell.Width(head)-cell.Width(tail), 0)
	out := make([]string, 0, r.h)
	out = append(out, bs.Render(bd.TopLeft)+head+bs.Render(strings.Repeat(bd.Top, fill))+tail+bs.Render(bd.TopRight))
	left, right := bs.Render(bd.Left), bs.Render(bd.Right)
	for i := 0; i < r.h-2; i++ {
		line := ""
		if i < len(content) {
			line = content[i]
		}
		out = append(out, left+cell.Fit(line, iw, "…")+right) // a line cut short says so
	}
	out = append(out, bs.Render(bd.BottomLeft+strings.Repeat(bd.Bottom, iw)+bd.BottomRight))
	return out
}

// overlaySize is the largest box dialog d may take over body: at most 100
// columns, or the whole body for a dialog that fills it.
func overlaySize(d dialog, body rect) (rect, bool) {
	w := min(body.w, 100)
	if f, ok := d.(filler); ok && f.fills() {
		w = body.w
	}
	if w < 10 || body.h < 4 {
		return rect{}, false
	}
	return rect{w: w, h: body.h}, true
}

// overlayView is the dialog d on top of the body, if one is open and draws
// a box. A run's dialog names its run in compare mode.
func (m *Model) overlayView(d dialog, body rect) (block, bool) {
	size, ok := overlaySize(d, body)
	if !ok || d == nil {
		return block{}, false
	}
	w := size.w
	title, content := d.box(w-4, size.h-2)
	if content == nil {
		return block{}, false
	}
	ih := size.h - 2
	ih = min(ih, len(content))
	r := rect{x: body.x + (body.w-w)/2, y: body.y + max((body.h-ih-2)/2, 0), w: w, h: ih + 2}
	padded := make([]string, len(content))
	for i, ln := range content {
		padded[i] = " " + ln
	}
	return block{r, frame(m.th, title, "", true, r, padded)}, true
}
