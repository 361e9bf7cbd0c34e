package ui

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// View draws the whole screen: panes (grid, tabs or compare mode's two
// columns), any dialog on top, the input line, the key help and the status
// bar. Every line is exactly the terminal's width, and there are exactly as
// many lines as it is tall. View changes nothing: sizes and scroll offsets
// are settled in Update.
func (m Model) View() string {
	if !m.ready {
		return m.cfg.Lang.T("starting glassbox…")
	}
	L := m.computeLayout()
	if L.mode == layoutTooSmall {
		return m.tooSmallView()
	}
	lk := m.look()
	var blocks []block
	if L.strip.h > 0 {
		blocks = append(blocks, block{L.strip, m.stripView(L.strip)})
	}
	if L.runBar.h > 0 {
		blocks = append(blocks, block{L.runBar, []string{m.runBarView(L.runBar.w)}})
	}
	if L.mode == layoutTabs {
		blocks = append(blocks, block{L.tabBar, []string{m.tabBarView(L.tabBar.w)}})
	}
	for i, h := range L.heads {
		if h.h > 0 {
			blocks = append(blocks, block{h, []string{m.runHeadView(i, h.w)}})
		}
	}
	for _, pl := range L.panes {
		r := m.runs[pl.run]
		focused := !m.inputFocused && m.pane == pl.pane && (m.focus < 0 || m.focus == pl.run)
		blocks = append(blocks, block{pl.r, r.paneView(lk, pl.pane, pl.r, focused, m.zoomed && pl.pane == m.pane)})
	}
	blocks = append(blocks,
		block{L.input, m.inputView()},
		block{L.help, []string{m.helpLineView(L.help.w)}},
		block{L.status, []string{m.statusView(L.status.w)}},
	)
	screen := compose(m.width, m.height, blocks)
	if box, ok := m.overlayView(L.body); ok {
		overlay(screen, box)
	}
	return strings.Join(screen, "\n")
}

// look is what the runs' panes need to draw themselves now.
func (m Model) look() look {
	return look{th: m.th, spin: m.spin.View(), sandbox: m.cfg.Sandbox,
		statusKey: theme.NewBrush(m.th.StatusKey), statusBar: theme.NewBrush(m.th.StatusBar)}
}

func (m Model) tooSmallView() string {
	msg := m.cfg.Lang.F("terminal too small: need %d×%d, have %d×%d", minWidth, minHeight, m.width, m.height)
	lines := make([]string, max(m.height, 1))
	for i, ln := range wrapLines(msg, max(m.width, 1)) {
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

// tabBarView is the row of pane names in tabs mode; tab switches.
func (m Model) tabBarView(w int) string {
	var parts []string
	titles := tabTitles(w, m.cfg.Lang, m.cur().panes)
	for p := paneID(0); p < numPanes; p++ {
		name := " " + titles[p] + " "
		if p == m.pane {
			parts = append(parts, m.th.Current.Render(name))
		} else {
			parts = append(parts, m.th.Muted.Render(name))
		}
	}
	hint := m.th.Muted.Render("  tab ⇥")
	return cell.Truncate(strings.Join(parts, m.th.Muted.Render("│"))+hint, w, "…")
}

// inputView is the input line (the textarea).
func (m Model) inputView() []string {
	return strings.Split(m.input.View(), "\n")
}

// helpLineView is the latest notice ("cancelled: …", "idle — …") followed
// by the short help for whatever has the keyboard.
func (m Model) helpLineView(w int) string {
	if w <= 0 {
		return ""
	}
	notice := ""
	text := m.noticeText()
	if m.top() == (quitDialog{}) {
		text = m.quitText(w) // fitted to the line
	}
	if text != "" {
		notice = m.th.Warning.Render(cell.Truncate(text, w, "…")) + "  "
	}
	return notice + m.shortHelpView(w-cell.Width(notice))
}

// tempNote says that quitting removes the workspace copy, when the
// workspace label says it is one.
func (m Model) tempNote() string {
	for _, r := range m.runs {
		if r.temporary {
			return m.cfg.Lang.T(", and the temporary workspace copy is removed")
		}
	}
	return ""
}

// quitText asks before quitting and says what quitting keeps: with a
// session, the command that reopens it when it fits in w columns beside
// the keys (w 0: no limit); it is printed on exit in any case.
func (m Model) quitText(w int) string {
	if m.cfg.Resume == "" {
		return m.cfg.Lang.T("quit glassbox? the steps on screen are lost") + m.tempNote()
	}
	full := m.cfg.Lang.F("quit glassbox? the session is kept: %s", m.cfg.Resume)
	keys := m.help
	keys.Width = 0 // all of them
	if w == 0 || ansi.StringWidth(full)+2+ansi.StringWidth(keys.View(m.quitKeys)) <= w {
		return full
	}
	return m.cfg.Lang.T("quit glassbox? the session is kept")
}

// noticeText is the latest notice: the parent's own, else what happened to
// the runs (each named in compare mode).
func (m Model) noticeText() string {
	if m.top() == (quitDialog{}) {
		return m.quitText(0)
	}
	if r := m.hiddenDialogRun(); r != nil && m.notice == "" {
		if r.ask != nil {
			return m.cfg.Lang.T("the question dialog is hidden and the step waits for you: space (or enter) brings it back")
		}
		return m.cfg.Lang.T("the approval dialog is hidden and the step waits for you: space (or enter) brings it back")
	}
	if m.notice != "" {
		return m.notice
	}
	var parts []string
	for _, r := range m.runs {
		if r.notice == "" {
			continue
		}
		if m.compare() {
			parts = append(parts, r.name+": "+r.notice)
		} else {
			parts = append(parts, r.notice)
		}
	}
	return strings.Join(parts, " · ")
}

func (m Model) shortHelpView(w int) string {
	if w <= 0 {
		return ""
	}
	var km help.KeyMap = stepperHelp{k: m.keys, pane: m.cur().panes[m.pane], compare: m.compare()}
	switch d := m.top(); {
	case d != nil:
		km = d.keys(m)
	case m.inputFocused:
		km = inputHelp{m.keys}
	}
	keys := km.ShortHelp() // what help.Model.View draws (ShowAll is never set)
	return m.drawnHelp.lines(helpKey("short", w, keys), func() []string {
		h := m.help
		h.Width = w
		return []string{h.ShortHelpView(keys)}
	})[0]
}

// overlaySize is the largest box a dialog may take over body.
func (m Model) overlaySize(body rect) (rect, bool) {
	w := min(body.w, 100)
	if w < 10 || body.h < 4 {
		return rect{}, false
	}
	return rect{w: w, h: body.h}, true
}

// overlayView is the dialog, lessons menu or help box on top of the body, if
// one is open. A run's dialog names its run in compare mode.
func (m Model) overlayView(body rect) (block, bool) {
	size, ok := m.overlaySize(body)
	if !ok {
		return block{}, false
	}
	w := size.w
	d := m.top()
	if d == nil {
		return block{}, false
	}
	title, content := d.box(m, w-4, size.h-2)
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

// helpView is the full key reference (bubbles/help) with a few words on
// how the glass box works, scrolled to fit h lines.
func (m Model) helpView(w, h int) []string {
	out := m.helpLines(w)
	if len(out) > h {
		// Too tall: scroll (↑/↓), keeping the last line for the hint.
		out = append(m.helpTop.window(out, h-1), m.th.Muted.Render(m.cfg.Lang.T("↑/↓ scroll the keys")))
	}
	return out
}

// helpLines is the whole help text at width w.
func (m Model) helpLines(w int) []string {
	intro := []string{
		m.th.Bold.Render(m.cfg.Lang.T("glassbox: the agent loop, one transition at a time")),
		"",
	}
	text := m.cfg.Lang.T("Type a request and press Enter: it becomes an event in the queue. " +
		"Then step: space takes one transition (the diagram lights the new state), i runs one iteration " +
		"(one model call and its tool calls), c runs until the answer, a breakpoint or a question. " +
		"[ and ] move back and forward through the steps taken; every pane follows.")
	if m.compare() {
		text = m.cfg.Lang.T("Type a request and press Enter: it goes to both runs. Space, i and c step both runs; " +
			"tab gives the keys to one run (then the other, then both again), and that run stays on screen. " +
			"v shows the other run's panes without changing which runs the keys act on; z shows the focused " +
			"pane of both runs side by side. [ and ] move both runs to the same model call.")
	}
	for _, ln := range wrapLines(text, w) {
		intro = append(intro, m.th.Muted.Render(ln))
	}
	intro = append(intro, "")
	intro = append(intro, m.healthLines(w)...)
	return append(intro, m.keyColumns(w)...)
}

// keyColumns is the help overlay's key reference at width w: as many
// columns side by side as fit, the rest below. Drawing it measures every
// key several times over, so it is drawn once for each width and set of
// keys (helpMemo).
func (m Model) keyColumns(w int) []string {
	groups := m.keys.fullHelp(m.compare())
	return m.drawnHelp.lines(helpKey("full", w, groups...), func() []string {
		hm := m.help
		hm.Width = 0
		per := len(groups)
		for ; per > 1; per-- {
			if lipgloss.Width(hm.FullHelpView(groups[:per])) <= w {
				break
			}
		}
		var out []string
		for i := 0; i < len(groups); i += per {
			if i > 0 {
				out = append(out, "")
			}
			out = append(out, strings.Split(hm.FullHelpView(groups[i:min(i+per, len(groups))]), "\n")...)
		}
		return out
	})
}

// helpMemo keeps the key help bubbles/help drew, by what it was drawn from
// (helpKey): bubbles/help measures every key on every call, which was a
// fifth of a frame with the help overlay open. Model holds one behind a
// pointer, so Update (clampHelp) and View share it; like any cache it
// changes nothing a frame shows.
type helpMemo struct {
	mu    sync.Mutex
	drawn map[string][]string
}

// helpMemoSize bounds the drawings kept: a few widths of a few help lines.
const helpMemoSize = 64

// lines is the drawing under key, drawn by draw the first time. Callers
// must not change the lines they get.
func (c *helpMemo) lines(key string, draw func() []string) []string {
	if c == nil {
		return draw()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if out, ok := c.drawn[key]; ok {
		return out
	}
	if c.drawn == nil || len(c.drawn) >= helpMemoSize {
		c.drawn = map[string][]string{}
	}
	out := draw()
	c.drawn[key] = out
	return out
}

// helpKey is everything a drawing of key help reads besides the Model's
// help styles, which New sets once: what is drawn (kind), the width, each
// key's help and whether it is enabled, and the colour profile.
func helpKey(kind string, w int, groups ...[]key.Binding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %d", kind, w, lipgloss.ColorProfile())
	for _, g := range groups {
		b.WriteByte('\n')
		for _, k := range g {
			h := k.Help()
			b.WriteString(h.Key)
			b.WriteByte(0)
			b.WriteString(h.Desc)
			if k.Enabled() {
				b.WriteByte(1)
			} else {
				b.WriteByte(2)
			}
		}
	}
	return b.String()
}

// clampHelp keeps the help overlay's scroll inside it.
func (m *Model) clampHelp() {
	if _, ok := opened[helpDialog](*m); !ok {
		return
	}
	L := m.computeLayout()
	size, ok := m.overlaySize(L.body)
	if !ok {
		return
	}
	w, h := size.w-4, size.h-2
	m.helpTop.clamp(len(m.helpLines(w)), h-1)
}
