package glassbox

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// helpOverlay is the help overlay (?): a few words on how the glass box
// works, each run's health, and every key, scrolled on small screens.
type helpOverlay struct {
	*kit
	stepper *stepper
	top     scroller
	w, h    int // the box it is drawn in (fit)
}

// open is ?: the overlay, from its top.
func (o *helpOverlay) open() action {
	o.top.off = 0
	return action{open: o}
}

func (o *helpOverlay) update(msg tea.KeyMsg) action {
	k := o.helpKeys
	if key.Matches(msg, k.Close) {
		return action{close: o}
	}
	o.top.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, 10)
	o.clamp()
	return action{}
}

// fit keeps the overlay's scroll inside it for a box of w×h.
func (o *helpOverlay) fit(w, h int) {
	o.w, o.h = w, h
	o.clamp()
}

func (o *helpOverlay) clamp() {
	if o.w > 0 {
		o.top.clamp(len(o.lines(o.w)), o.h-1)
	}
}

func (o *helpOverlay) box(w, h int) (string, []string) { return o.lang.T("Keys"), o.view(w, h) }

func (o *helpOverlay) keys() help.KeyMap { return o.helpKeys }

// view is the full key reference (bubbles/help) with a few words on how
// the glass box works, scrolled to fit h lines.
func (o *helpOverlay) view(w, h int) []string {
	out := o.lines(w)
	if len(out) > h {
		// Too tall: scroll (↑/↓), keeping the last line for the hint.
		out = append(o.top.window(out, h-1), o.th.Muted.Render(o.lang.T("↑/↓ scroll the keys")))
	}
	return out
}

// lines is the whole help text at width w.
func (o *helpOverlay) lines(w int) []string {
	intro := []string{
		o.th.Bold.Render(o.lang.T("glassbox: the agent loop, one transition at a time")),
		"",
	}
	text := o.who.HowItWorks(o.lang, o.stepper.compare(), o.whom)
	for _, ln := range wrapLines(text, w) {
		intro = append(intro, o.th.Muted.Render(ln))
	}
	intro = append(intro, "")
	intro = append(intro, o.healthLines(w)...)
	return append(intro, o.keyColumns(w)...)
}

// healthLines is the runs' health in full: the line, the failures fed back
// by kind and the session's exact size. Compare mode's runs share one
// session, so its size is said once, after both, as last measured.
func (o *helpOverlay) healthLines(w int) []string {
	var out []string
	l := o.lang
	muted := func(s string) {
		for _, ln := range wrapLines(s, w) {
			out = append(out, o.th.Muted.Render(ln))
		}
	}
	for _, r := range o.stepper.runs {
		title := l.T("This run's health")
		if o.stepper.compare() {
			title = l.F("%s's health", r.title())
		}
		out = append(out, o.th.Bold.Render(title))
		line := r.live.healthLine
		if o.stepper.compare() {
			// The runs share one session: its size is said once, below.
			h := r.live.health
			h.Bytes = 0
			line = healthText(l, h)
		}
		out = append(out, wrapLines(line, w)...)
		if kinds := r.live.health.FailureKinds(); kinds != "" {
			muted(l.F("failures fed back: %s", kinds))
		}
		if !o.stepper.compare() {
			if s := sessionSize(l, r, false); s != "" {
				muted(s)
			}
		}
		out = append(out, "")
	}
	if o.stepper.compare() {
		if s := sessionSize(l, latestMeasured(o.stepper.runs), true); s != "" {
			muted(s)
			out = append(out, "")
		}
	}
	return out
}

// sessionSize says how big run r's session is on disk, as last measured
// (both: the session of both runs of compare mode), or "".
func sessionSize(l lang.Lang, r *runView, both bool) string {
	switch {
	case r.disk.path == "":
		return l.T("no session on disk")
	case r.disk.err != "":
		return l.F("session size unknown: %s", r.disk.err)
	case r.live.health.Bytes > 0 && both:
		return l.F("session on disk (both runs): %d bytes", r.live.health.Bytes)
	case r.live.health.Bytes > 0:
		return l.F("session on disk: %d bytes", r.live.health.Bytes)
	}
	return ""
}

// latestMeasured is the run whose session was measured last.
func latestMeasured(runs []*runView) *runView {
	last := runs[0]
	for _, r := range runs[1:] {
		if r.disk.at.After(last.disk.at) {
			last = r
		}
	}
	return last
}

// keyColumns is the help overlay's key reference at width w: as many
// columns side by side as fit, the rest below. Drawing it measures every
// key several times over, so it is drawn once for each width and set of
// keys (helpMemo).
func (o *helpOverlay) keyColumns(w int) []string {
	groups := o.kit.keys.fullHelp(o.stepper.compare())
	return o.drawnHelp.lines(helpKey("full", w, groups...), func() []string {
		hm := o.help
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
// fifth of a frame with the help overlay open. The kit holds one, so Update
// (fit) and View share it; like any cache it changes nothing a frame shows.
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

// helpKey is everything a drawing of key help reads besides the kit's help
// styles, which newKit sets once: what is drawn (kind), the width, each
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
