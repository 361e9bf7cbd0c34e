package glassbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// entryKind is what one History entry shows.
type entryKind int

const (
	entryUser      entryKind = iota // a person's request
	entryFeedback                   // text the loop wrote to the model (a parse error)
	entryAssistant                  // the model's text
	entryThought                    // the model's reasoning
	entryCall                       // one tool call (folded to one line)
	entryResult                     // one tool result (folded to one line)
	entryNote                       // a note from glassbox itself, never sent to the model
	entryWelcome                    // the first-run welcome
	entryHalt                       // why the loop halted
	entryRetry                      // a retried provider call (folded to one line)
	entryEdit                       // a what-if edit of the context before it was sent
	entryLink                       // a note with an address to copy, never wrapped (a handout's)
)

// maxExpandedLines caps an expanded tool result; the Raw payload pane has
// the full text.
const maxExpandedLines = 400

// historyEntry is one block of the History pane. Its rendering is cached by
// width and fold state: a frame re-wraps nothing that is already cached.
type historyEntry struct {
	kind     entryKind
	name     string // tool name for calls and results
	text     string // message text, call arguments (JSON) or result content
	isError  bool
	expanded bool
	edit     *loop.ContextEdit // entryEdit: what the edit changed
	// outside: a user's words as another agent sent them (a tap).
	outside bool

	cacheW   int
	cacheExp bool
	lines    []string
}

func (e *historyEntry) foldable() bool {
	return e.kind == entryCall || e.kind == entryResult || e.kind == entryRetry
}

// render returns the entry's lines, each at most w cells wide.
func (e *historyEntry) render(th theme.Theme, l lang.Lang, w int) []string {
	if e.lines != nil && e.cacheW == w && e.cacheExp == e.expanded {
		return e.lines
	}
	e.lines = e.build(th, l, max(w, 1))
	e.cacheW, e.cacheExp = w, e.expanded
	return e.lines
}

func (e *historyEntry) build(th theme.Theme, l lang.Lang, w int) []string {
	switch e.kind {
	case entryCall:
		return e.callLines(th, w)
	case entryResult:
		return e.resultLines(th, l, w)
	case entryNote:
		return styledLines(th.Muted, wrapLines("ℹ "+e.text, w))
	case entryWelcome:
		return e.welcomeLines(th, w)
	case entryLink:
		return e.linkLines(th, l, w)
	case entryRetry:
		return e.retryLines(th, w)
	case entryEdit:
		out := []string{"", th.Warning.Bold(true).Render(ansi.Truncate("✎ "+l.T("edited before sending (what-if)"), w, "…"))}
		return append(out, editLines(th, l, e.edit, w)...)
	}
	head, st, text := e.speech(th, l)
	return append([]string{"", st.Bold(true).Render(ansi.Truncate(head, w, "…"))}, indented(e.bodyStyle(th, l), text, w)...)
}

// speech is how a message that someone said is headed and painted: its
// header, its colour and its text.
func (e *historyEntry) speech(th theme.Theme, l lang.Lang) (head string, st lipgloss.Style, text string) {
	switch e.kind {
	case entryUser:
		if e.name != "" { // sent from elsewhere (the MCP bus): by whom
			return "● " + e.name, th.RoleUser, e.text
		}
		if e.outside {
			return "● " + l.T("user (as the agent sent it)"), th.RoleUser, e.text
		}
		return "● " + l.T("you"), th.RoleUser, e.text
	case entryFeedback:
		return "↺ loop → model " + l.T("(feedback, so it can repair its reply)"), th.RoleFeedback, e.text
	case entryAssistant:
		if strings.TrimSpace(e.text) == "" {
			return "● " + l.T("assistant"), th.RoleAssistant, l.T("(no text)")
		}
		return "● " + l.T("assistant"), th.RoleAssistant, e.text
	case entryThought:
		return "● " + l.T("assistant") + " · " + l.T("reasoning"), th.Thought, e.text
	}
	return "■ " + l.T("halted"), th.Error, e.text
}

// bodyStyle paints the text of a message: the person's and the model's
// words plain, the rest in their header's colour.
func (e *historyEntry) bodyStyle(th theme.Theme, l lang.Lang) lipgloss.Style {
	switch e.kind {
	case entryUser, entryAssistant:
		return lipgloss.NewStyle()
	}
	_, st, _ := e.speech(th, l)
	return st
}

// indented wraps s under a header: two cells in, w wide.
func indented(st lipgloss.Style, s string, w int) []string {
	var out []string
	for _, ln := range wrapLines(s, w-2) {
		out = append(out, "  "+st.Render(ln))
	}
	return out
}

// styledLines paints each line.
func styledLines(st lipgloss.Style, lines []string) []string {
	for i := range lines {
		lines[i] = st.Render(lines[i])
	}
	return lines
}

// callLines is a tool call: one folded line, or its arguments in full.
func (e *historyEntry) callLines(th theme.Theme, w int) []string {
	if !e.expanded {
		return []string{th.RoleTool.Render(ansi.Truncate("▸ → "+e.name+" "+compactJSON(e.text), w, "…"))}
	}
	out := []string{th.RoleTool.Render(ansi.Truncate("▾ → "+e.name, w, "…"))}
	return append(out, indented(th.RoleTool, prettyJSON(e.text), w)...)
}

// resultLines is a tool result: its first line folded, or (up to
// maxExpandedLines of) all of it.
func (e *historyEntry) resultLines(th theme.Theme, l lang.Lang, w int) []string {
	st, mark := th.RoleTool, "←"
	if e.isError {
		st, mark = th.Error, "✗"
	}
	lines := strings.Split(sanitize(e.text), "\n")
	if !e.expanded {
		summary := fmt.Sprintf("▸ %s %s: %s", mark, e.name, strings.TrimSpace(lines[0]))
		if n := len(lines); n > 1 {
			summary += " " + l.F("(+%d line%s)", n-1, plural(n-1))
		}
		return []string{st.Render(ansi.Truncate(summary, w, "…"))}
	}
	out := []string{st.Render(ansi.Truncate(fmt.Sprintf("▾ %s %s", mark, e.name), w, "…"))}
	text := e.text
	if len(lines) > maxExpandedLines {
		text = strings.Join(lines[:maxExpandedLines], "\n") +
			"\n… " + l.F("%d more line%s (the Raw payload pane has them all)", len(lines)-maxExpandedLines, plural(len(lines)-maxExpandedLines))
	}
	return append(out, indented(lipgloss.NewStyle(), text, w)...)
}

// welcomeLines is the welcome: its first line as a title, the rest muted.
func (e *historyEntry) welcomeLines(th theme.Theme, w int) []string {
	var out []string
	for i, para := range strings.Split(e.text, "\n") {
		st := th.Muted
		if i == 0 {
			st = th.Title
		}
		out = append(out, styledLines(st, wrapLines(para, w))...)
	}
	return out
}

// linkLines is a note (name) and the address it gives (text) on a line of
// its own, never wrapped: a terminal copies a wrapped address with the
// pane's border in it. Where the pane is too narrow it is cut, and the line
// under it says how to see it whole.
func (e *historyEntry) linkLines(th theme.Theme, l lang.Lang, w int) []string {
	out := styledLines(th.Muted, wrapLines("ℹ "+e.name, w))
	if cell.Width(e.text) <= w-2 {
		return append(out, "  "+e.text)
	}
	out = append(out, "  "+cell.Truncate(e.text, w-2, "…"))
	return append(out, styledLines(th.Muted, wrapLines("  "+l.T("(the address is cut here: z on History shows it whole, on one line)"), w))...)
}

// retryLines is a retried provider call: folded to one line, or with why.
func (e *historyEntry) retryLines(th theme.Theme, w int) []string {
	mark := "▸ ↻ "
	if e.expanded {
		mark = "▾ ↻ "
	}
	out := []string{th.Warning.Render(ansi.Truncate(mark+e.name, w, "…"))}
	if e.expanded {
		out = append(out, indented(th.Muted, e.text, w)...)
	}
	return out
}

// editAbout names a message a what-if edit touched (loop.ContextEdit's
// About: "the request", "the result of read_file") in language l.
func editAbout(l lang.Lang, about string) string {
	if name, ok := strings.CutPrefix(about, "the result of "); ok {
		return l.F("the result of %s", name)
	}
	return l.Dyn(about)
}

// editLines says what a what-if edit changed: each message changed, added
// or removed, with the lines that differ as the model was sent them.
func editLines(th theme.Theme, l lang.Lang, c *loop.ContextEdit, w int) []string {
	var out []string
	for _, m := range c.Messages {
		for _, ln := range wrapLines(l.F("%s (message %d) %s:", editAbout(l, m.About), m.N, l.Dyn(m.Change)), w-2) {
			out = append(out, "  "+th.Warning.Render(ln))
		}
		diff := m.Diff
		if strings.HasPrefix(diff, "--- ") { // the two names say nothing here
			if _, rest, ok := strings.Cut(diff, "\n+++ "); ok {
				_, diff, _ = strings.Cut(rest, "\n")
			}
		}
		for _, ln := range previewLines(th, diff, w-4) {
			out = append(out, "    "+ln)
		}
	}
	if c.System {
		out = append(out, "  "+th.Warning.Render(ansi.Truncate(l.T("the system prompt changed"), w-2, "…")))
	}
	return out
}

// wrapLines wraps s to w cells, honouring wide (CJK) characters, and
// returns the lines. Control characters and escape sequences are removed
// first so a tool's output cannot break the layout.
func wrapLines(s string, w int) []string {
	w = max(w, 1)
	s = sanitize(s)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, cell.Wrap(para, w)...)
	}
	return out
}

// sanitize makes text from the model, a file or a command safe for a pane:
// loop.Printable's visible escapes (an ESC shows as \x1b, so an escape
// sequence is seen, not obeyed), with tabs as four spaces.
func sanitize(s string) string {
	return expandTabs(loop.Printable(s))
}

// expandTabs writes each tab as four spaces: a pane measures its lines in
// cells, and a tab has no fixed width.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	return strings.ReplaceAll(s, "\t", "    ")
}

func compactJSON(s string) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return strings.Join(strings.Fields(s), " ")
	}
	return buf.String()
}

func prettyJSON(s string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return s
	}
	return buf.String()
}

// historyPane is the History pane of a run (pane_history.go): the
// transcript, its scroll, selection and folds. It never renders the whole
// history: it walks from the top of the visible window (or back from the
// end when it follows the newest entry) and stops when the window is full.
type historyPane struct {
	r       *runView
	entries []*historyEntry
	th      theme.Theme
	w, h    int // content width (without the selection gutter) and height

	sel         int  // selected entry, -1 for none
	follow      bool // stick to the newest entry
	opened      bool // shown from the top since the first screen (opening), until an entry is added
	top         int  // first visible entry when not following
	topLine     int  // lines of entries[top] scrolled past
	allExpanded bool
}

func newHistoryPane(r *runView) *historyPane {
	return &historyPane{r: r, sel: -1, follow: true}
}

func (p *historyPane) len() int { return len(p.entries) }

// truncate keeps the first n entries (a fork cuts the abandoned steps') and
// follows the newest again.
func (p *historyPane) truncate(n int) {
	if n >= len(p.entries) {
		return
	}
	p.entries = p.entries[:max(n, 0):max(n, 0)]
	p.sel, p.top, p.topLine, p.follow = -1, 0, 0, true
}

func (p *historyPane) add(e *historyEntry) {
	e.expanded = p.allExpanded && e.foldable()
	p.entries = append(p.entries, e)
	if p.opened {
		p.opened, p.follow = false, true // something happened: follow it
	}
}

// opening shows the pane from its first line, the welcome's, when it
// holds nothing else yet (a welcome and notes): the first screen never
// opens mid-sentence, however long they are. The next entry added makes
// the pane follow the newest again; a scroll of the person's own ends it
// too.
func (p *historyPane) opening() {
	for _, e := range p.entries {
		if e.kind != entryWelcome && e.kind != entryNote {
			return
		}
	}
	p.follow, p.top, p.topLine, p.opened = false, 0, 0, true
}

// setSize tells the pane its content size; caches keyed by width stay valid
// when the width does not change.
func (p *historyPane) setSize(th theme.Theme, w, h int) {
	p.th, p.w, p.h = th, max(w, 1), max(h, 1)
}

func (p *historyPane) height(i int) int { return len(p.entries[i].render(p.th, p.r.lang, p.w)) }

// bottomTop is the window's top when the entry before end is at the bottom.
func (p *historyPane) bottomTop(end int) (int, int) {
	need := p.h
	for i := end - 1; i >= 0; i-- {
		n := p.height(i)
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

// windowTop is where the visible window starts, given that only the first
// end entries exist at the selected step.
func (p *historyPane) windowTop(end int) (int, int) {
	if p.follow || p.top >= end {
		return p.bottomTop(end)
	}
	// Never leave empty space below the last entry.
	bt, bl := p.bottomTop(end)
	if p.top > bt || (p.top == bt && p.topLine > bl) {
		return bt, bl
	}
	return p.top, min(p.topLine, max(p.height(p.top)-1, 0))
}

func (p *historyPane) scrollUp(n, end int) {
	p.opened = false
	t, l := p.windowTop(end)
	l -= n
	for l < 0 && t > 0 {
		t--
		l += p.height(t)
	}
	p.follow, p.top, p.topLine = false, t, max(l, 0)
}

func (p *historyPane) scrollDown(n, end int) {
	p.opened = false
	t, l := p.windowTop(end)
	l += n
	for t < end && l >= p.height(t) {
		l -= p.height(t)
		t++
	}
	p.follow, p.top, p.topLine = false, t, l
	if bt, bl := p.bottomTop(end); t > bt || (t == bt && l >= bl) {
		p.follow = true
	}
}

func (p *historyPane) toTop() { p.follow, p.top, p.topLine, p.opened = false, 0, 0, false }

func (p *historyPane) toBottom() { p.follow, p.sel, p.opened = true, -1, false }

// moveSel moves the selection by delta entries and scrolls it into view.
func (p *historyPane) moveSel(delta, end int) {
	if end == 0 {
		return
	}
	if p.sel < 0 || p.sel >= end {
		p.sel = end - 1
		if delta > 0 {
			p.ensureVisible(p.sel, end)
			return
		}
		delta++
	}
	p.sel = min(max(p.sel+delta, 0), end-1)
	p.ensureVisible(p.sel, end)
}

func (p *historyPane) ensureVisible(i, end int) {
	p.opened = false
	t, l := p.windowTop(end)
	if i < t || (i == t && l > 0) {
		p.follow, p.top, p.topLine = false, i, 0
		return
	}
	seen := p.height(t) - l
	for k := t + 1; k <= i && seen <= p.h; k++ {
		seen += p.height(k)
	}
	if seen <= p.h {
		return
	}
	if i == end-1 {
		p.follow = true
		return
	}
	p.follow = false
	p.top, p.topLine = p.bottomTop(i + 1)
}

// toggle expands or collapses the selected entry, or the newest foldable
// one when nothing is selected.
func (p *historyPane) toggle(end int) {
	i := p.sel
	if i < 0 || i >= end {
		for i = end - 1; i >= 0 && !p.entries[i].foldable(); i-- {
		}
		if i < 0 {
			return
		}
		p.sel = i
	}
	if e := p.entries[i]; e.foldable() {
		e.expanded = !e.expanded
		p.ensureVisible(i, end)
	}
}

// toggleAll expands every tool call and result, or folds them all again.
func (p *historyPane) toggleAll() {
	p.allExpanded = !p.allExpanded
	for _, e := range p.entries {
		if e.foldable() {
			e.expanded = p.allExpanded
		}
	}
}

// lines returns the visible lines (at most h) with a two-cell gutter that
// marks the selected entry.
func (p *historyPane) lines(end int, focused bool) []string {
	end = min(end, len(p.entries))
	t, l := p.windowTop(end)
	out := make([]string, 0, p.h)
	mark := p.th.Selected.Render("▌") + " "
	if !focused {
		mark = p.th.Muted.Render("│") + " "
	}
	for i := t; i < end && len(out) < p.h; i++ {
		lines := p.entries[i].render(p.th, p.r.lang, p.w)
		start := 0
		if i == t {
			start = min(l, len(lines))
		}
		gutter := "  "
		if i == p.sel {
			gutter = mark
		}
		for _, ln := range lines[start:] {
			if len(out) == p.h {
				break
			}
			if ln == "" && i == p.sel {
				out = append(out, "  ") // the blank spacer above a message is not part of it
				continue
			}
			out = append(out, gutter+ln)
		}
	}
	return out
}

// atBottom reports whether the newest entry is in view.
func (p *historyPane) atBottom(end int) bool {
	if p.follow {
		return true
	}
	t, l := p.windowTop(end)
	bt, bl := p.bottomTop(end)
	return t == bt && l == bl
}
