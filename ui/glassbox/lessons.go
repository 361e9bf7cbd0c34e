package glassbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// lessonController is the lessons and the welcome: the lesson on offer (its
// request one Enter away on an empty input, named in the welcome and the
// input's placeholder until it is sent), the lessons menu (l) and the
// welcome note at the top of each run's History.
type lessonController struct {
	*kit
	stepper *stepper
	lessons []Lesson
	name    string // the lesson on offer
	sent    bool   // its request was sent (or the session is resumed)
	sandbox string // Config.Sandbox, for the welcome
	// intro is a tap's welcome (Tap.Intro): where it listens, what to
	// set, what it cannot see (nil: not a tap).
	intro []string
}

// current is the lesson on offer, if it has a request.
func (c *lessonController) current() (Lesson, bool) {
	for _, l := range c.lessons {
		if l.Name == c.name && strings.TrimSpace(l.Request) != "" {
			return l, true
		}
	}
	return Lesson{}, false
}

// index is where the lesson on offer is in the menu's list.
func (c *lessonController) index() int {
	for i, l := range c.lessons {
		if l.Name == c.name {
			return i
		}
	}
	return 0
}

// offered are the lessons the lessons menu lists: those at least one run's
// dialect can show (a lesson that names its dialects runs on those only).
func (c *lessonController) offered() []Lesson {
	var out []Lesson
	for _, l := range c.lessons {
		if len(l.Dialects) == 0 || slices.ContainsFunc(c.stepper.runs, func(r *runView) bool { return slices.Contains(l.Dialects, r.dialectName()) }) {
			out = append(out, l)
		}
	}
	return out
}

// notOffered are the bundled lessons offered leaves out.
func (c *lessonController) notOffered() []Lesson {
	offered := c.offered()
	var out []Lesson
	for _, l := range c.lessons {
		if !slices.ContainsFunc(offered, func(o Lesson) bool { return o.Name == l.Name }) {
			out = append(out, l)
		}
	}
	return out
}

// orList is names as a sentence says them: "a, b or c".
func orList(l lang.Lang, names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return l.F("%s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// open is l: the lessons menu, on the lesson on offer.
func (c *lessonController) open() action {
	return action{open: &lessonMenu{c: c, sel: c.index(), hidden: c.notOffered()}}
}

// request is what Enter sends: typed, or on an empty input the request of
// the lesson on offer (once; ok false when there is nothing to send). A
// lesson's request marks it sent; scored is what predict mode scores from
// now on (the lesson's name, "" a request of the learner's own), and fromBus
// says the lesson's request arrives over the MCP bus.
func (c *lessonController) request(typed string) (text, scored string, fromBus, ok bool) {
	text = typed
	if text == "" {
		l, ok := c.current()
		if !ok || c.sent {
			return "", "", false, false
		}
		text = l.Request
	}
	if l, ok := c.current(); ok && text == strings.TrimSpace(l.Request) {
		c.sent = true
		return text, l.Name, l.FromBus, true
	}
	return text, "", false, true
}

// placeholder is the input line's placeholder: the starting lesson until it
// has been sent; a follower's, what they may do.
func (c *lessonController) placeholder() string {
	if c.intro != nil {
		return c.lang.T("a tap sends nothing: the agent's person types in the agent's own terminal · space steps · c runs · q quits")
	}
	if c.who == role.Reader {
		return c.lang.T("read-only: a trace file · space steps · i an iteration · c a turn · [ ] back in time · q quits")
	}
	if !c.who.May(role.Send) {
		return c.lang.F("read-only: you follow the %s's run · [ ] back in time · space catches up · q quits", c.whom)
	}
	if l, ok := c.onEnter(); ok {
		return c.lang.F("Enter: send the %s lesson — %s", l.Name, firstLineOf(l.Request))
	}
	return c.lang.T("type a request · Enter sends · alt+enter new line · esc, then l: lessons")
}

// onEnter is the lesson the input line offers to send on Enter: the one on
// offer, until it has been sent, to someone who may send.
func (c *lessonController) onEnter() (Lesson, bool) {
	l, ok := c.current()
	if !ok || c.sent || c.intro != nil || !c.who.May(role.Send) {
		return Lesson{}, false
	}
	return l, true
}

// picked puts the request of lesson l in the input line and gives it the
// keyboard, ready for Enter.
func (c *lessonController) picked(l Lesson) action {
	c.name = l.Name
	c.refreshWelcome()
	a := action{fill: &l.Request, input: true, notice: c.lang.F("lesson %s: press Enter to send its request", l.Name)}
	if at := c.stepper.midEvent(); at != "" {
		a.notice = c.lang.F("lesson %s: Enter queues its request behind the event in progress (%s), which finishes first (c runs it to its answer; A abandons it)", l.Name, at)
	}
	return a
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// lessonMenu lists the bundled lessons; picking one puts its request in the
// input line.
type lessonMenu struct {
	c   *lessonController
	sel int
	// hidden are the bundled lessons no run on screen can show (a lesson
	// of one dialect's behaviour): the menu names them and why, so its
	// list and the guide's agree.
	hidden []Lesson
}

// update handles a key. It returns the picked lesson index, or -1, and
// whether the menu closes.
func (l *lessonMenu) key(msg tea.KeyMsg, k lessonKeys, n int) (int, bool) {
	switch {
	case key.Matches(msg, k.Close):
		return -1, true
	case key.Matches(msg, k.Up):
		l.sel = max(l.sel-1, 0)
	case key.Matches(msg, k.Down):
		l.sel = min(l.sel+1, max(n-1, 0))
	case key.Matches(msg, k.Pick):
		if n == 0 {
			return -1, true
		}
		return l.sel, true
	case key.Matches(msg, k.Number):
		if i := int(msg.Runes[0] - '1'); i < n {
			return i, true
		}
	}
	return -1, false
}

func (l *lessonMenu) view(th theme.Theme, lg lang.Lang, hk help.Model, k lessonKeys, lessons []Lesson, w, h int) []string {
	out := []string{th.Bold.Render(lg.T("Lessons")) + th.Muted.Render(" — "+lg.T("the offline tutor model follows one script per lesson")), ""}
	if len(lessons) == 0 {
		out = append(out, th.Muted.Render(lg.T("no lessons are bundled with this backend")))
	}
	nameW := 0
	for _, ls := range lessons {
		nameW = max(nameW, len(ls.Name))
	}
	first := max(0, l.sel-(h-5))
	for i := first; i < len(lessons) && len(out) < h-2; i++ {
		ls := lessons[i]
		line := fmt.Sprintf("  %2d) %-*s  %s", i+1, nameW, ls.Name, ls.Title)
		if i == l.sel {
			line = th.Selected.Render(ansi.Truncate("›"+line[1:], w, "…"))
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	for len(out) < h-2-len(l.hidden) {
		out = append(out, "")
	}
	for _, ls := range l.hidden {
		out = append(out, th.Muted.Render(ansi.Truncate(lg.F("not offered here: %s — only a %s run shows it", ls.Name, orList(lg, ls.Dialects)), w, "…")))
	}
	hk.Width = w
	return append(out, "", hk.ShortHelpView(k.ShortHelp()))
}

func (l *lessonMenu) update(msg tea.KeyMsg) action {
	lessons := l.c.offered()
	i, closed := l.key(msg, l.c.lessonKeys, len(lessons))
	switch {
	case !closed:
		return action{}
	case i < 0:
		return action{close: l}
	}
	a := l.c.picked(lessons[i])
	a.close = l
	return a
}

func (l *lessonMenu) box(w, h int) (string, []string) {
	c := l.c
	lessons := c.offered()
	return c.lang.T("Lessons"), l.view(c.th, c.lang, c.help, c.lessonKeys, lessons, w, min(h, len(lessons)+5+len(l.hidden)))
}

func (l *lessonMenu) keys() help.KeyMap { return l.c.lessonKeys }
