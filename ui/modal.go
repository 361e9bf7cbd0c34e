package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// confirmModal asks the person to approve one tool call that a rule sent to
// REQUIRE_USER_CONFIRMATION. It shows the call, the rule and its reason, and
// the preview (a diff for write_file, the command and folder for
// execute_command), which scrolls.
type confirmModal struct {
	req    *personRequest
	scroll scroller
	// guardN is set when the step that opened the dialog was started with
	// n: n both steps and denies, so a learner stepping with n would deny
	// the call they meant to look at. The first n then only asks for a
	// second one; esc, y and a act at once.
	guardN bool
	warned bool
}

func newConfirmModal(req *personRequest, guardN bool) *confirmModal {
	return &confirmModal{req: req, guardN: guardN}
}

// update handles a key; it returns true once the person has answered.
func (c *confirmModal) update(msg tea.KeyMsg, k keyMap) bool {
	switch {
	case key.Matches(msg, k.AllowOnce):
		c.req.approve(loop.AllowOnce)
		return true
	case key.Matches(msg, k.AllowSession):
		c.req.approve(loop.AllowSession)
		return true
	case key.Matches(msg, k.Deny):
		if c.guardN && msg.String() == "n" {
			c.guardN, c.warned = false, true
			return false
		}
		c.req.approve(loop.Deny)
		return true
	case key.Matches(msg, k.Up):
		c.scroll.scroll(-1)
	case key.Matches(msg, k.Down):
		c.scroll.scroll(+1)
	case key.Matches(msg, k.PageUp):
		c.scroll.scroll(-10)
	case key.Matches(msg, k.PageDown):
		c.scroll.scroll(+10)
	}
	return false
}

// parts are the dialog's fixed top (the call, the verdict, the rule, why),
// its scrolling preview and its fixed bottom (the keys), at width w.
func (c *confirmModal) parts(th theme.Theme, w int) (top, body, bottom []string) {
	r := c.req.confirm
	top = append(top, th.Warning.Render("The security layer asks you before this call runs:"), "")
	top = append(top, th.RoleTool.Render(ansi.Truncate("  "+sanitize(r.Call.Name+" "+compactJSON(string(r.Call.Args))), w, "…")))
	top = append(top, "  "+th.Verdict(string(r.Decision.Verdict)).Render(string(r.Decision.Verdict))+
		th.Muted.Render(" · rule ")+th.Bold.Render(r.Decision.Rule))
	for _, ln := range wrapLines("why: "+r.Decision.Reason, w-2) {
		top = append(top, "  "+ln)
	}
	preview := r.Preview
	if strings.TrimSpace(preview) == "" {
		preview = prettyJSON(string(r.Call.Args))
	}
	top = append(top, "", th.Bold.Render("Preview")+th.Muted.Render(" (↑/↓ scroll)"))

	keys := th.StatusKey.Render(" y ") + " allow once   " +
		th.StatusKey.Render(" a ") + " allow this exact call for the session   " +
		th.StatusKey.Render(" n ") + " deny"
	bottom = []string{"", ansi.Truncate(keys, w, "…")}
	if c.warned {
		bottom = append(bottom, th.Warning.Render(ansi.Truncate("n here denies the call: press n again to deny, y or a to allow", w, "…")))
	}
	return top, previewLines(th, preview, w-2), bottom
}

// room is how many preview lines fit in h rows.
func (c *confirmModal) room(top, bottom []string, h int) int {
	return max(h-len(top)-len(bottom), 1)
}

// clamp keeps the preview's scroll inside it for a w×h dialog.
func (c *confirmModal) clamp(th theme.Theme, w, h int) {
	top, body, bottom := c.parts(th, w)
	c.scroll.clamp(len(body), c.room(top, bottom, h))
}

// view draws the modal's content in w×h cells (without the frame).
func (c *confirmModal) view(th theme.Theme, w, h int) []string {
	top, body, bottom := c.parts(th, w)
	room := c.room(top, bottom, h)
	view := c.scroll.window(body, room)
	out := append([]string{}, top...)
	for _, ln := range view {
		out = append(out, "  "+ln)
	}
	if len(body) > room {
		first := min(c.scroll.off, len(body)-room)
		out = append(out, th.Muted.Render(fmt.Sprintf("  … lines %d–%d of %d", first+1, first+len(view), len(body))))
		bottom = bottom[1:]
	}
	return append(out, bottom...)
}

// previewLines colours a unified diff (+ green, - red) and wraps the rest.
func previewLines(th theme.Theme, s string, w int) []string {
	var out []string
	for _, ln := range wrapLines(s, max(w, 1)) {
		switch {
		case strings.HasPrefix(ln, "+++"), strings.HasPrefix(ln, "---"), strings.HasPrefix(ln, "@@"):
			out = append(out, th.Muted.Render(ln))
		case strings.HasPrefix(ln, "+"):
			out = append(out, th.Success.Render(ln))
		case strings.HasPrefix(ln, "-"):
			out = append(out, th.Error.Render(ln))
		default:
			out = append(out, ln)
		}
	}
	return out
}

// askModal is the ask_user question: pick an option with its number or the
// arrows and enter, or type a free answer and press enter.
type askModal struct {
	req  *personRequest
	sel  int
	text textinput.Model
}

func newAskModal(req *personRequest) *askModal {
	ti := textinput.New()
	ti.Prompt = "your answer: "
	ti.Placeholder = "type it here"
	if len(req.question.Options) > 0 {
		ti.Placeholder = "type here, or pick an option above"
	}
	ti.Focus()
	return &askModal{req: req, text: ti}
}

// update handles a key; it returns true once the person has answered.
func (a *askModal) update(msg tea.KeyMsg, k keyMap) bool {
	opts := a.req.question.Options
	typed := strings.TrimSpace(a.text.Value())
	switch msg.Type {
	case tea.KeyEsc:
		a.req.dismiss()
		return true
	case tea.KeyEnter:
		switch {
		case typed != "":
			a.req.answer(typed)
		case len(opts) > 0:
			a.req.answer(opts[a.sel])
		default:
			return false // nothing to send yet
		}
		return true
	case tea.KeyUp:
		if len(opts) > 0 {
			a.sel = (a.sel + len(opts) - 1) % len(opts)
		}
		return false
	case tea.KeyDown:
		if len(opts) > 0 {
			a.sel = (a.sel + 1) % len(opts)
		}
		return false
	case tea.KeyRunes:
		if typed == "" && len(msg.Runes) == 1 {
			if n := int(msg.Runes[0] - '1'); n >= 0 && n < len(opts) && n < 9 {
				a.req.answer(opts[n])
				return true
			}
		}
	}
	a.text, _ = a.text.Update(msg)
	return false
}

func (a *askModal) view(th theme.Theme, w, h int) []string {
	q := a.req.question
	out := []string{th.Warning.Render("The agent asks you (ask_user):"), ""}
	for _, ln := range wrapLines(sanitize(q.Text), w-2) {
		out = append(out, "  "+th.Bold.Render(ln))
	}
	out = append(out, "")
	for i, o := range q.Options {
		o = sanitize(o)
		line := fmt.Sprintf("  %d) %s", i+1, o)
		if i == a.sel {
			line = th.Selected.Render(ansi.Truncate(fmt.Sprintf("› %d) %s", i+1, o), w, "…"))
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	if len(q.Options) > 0 {
		out = append(out, "")
	}
	a.text.Width = max(w-4, 1)
	out = append(out, a.text.View())
	hint := "enter answers · esc dismisses (the tool then fails)"
	if len(q.Options) > 0 {
		hint = "1–9 or ↑/↓+enter pick · type your own answer + enter · esc dismisses"
	}
	if len(out) > h-2 {
		out = out[len(out)-(h-2):]
	}
	return append(out, "", th.Muted.Render(ansi.Truncate(hint, w, "…")))
}

// lessonMenu lists the bundled lessons; picking one puts its request in the
// input line.
type lessonMenu struct{ sel int }

// update handles a key. It returns the picked lesson index, or -1, and
// whether the menu closes.
func (l *lessonMenu) update(msg tea.KeyMsg, k keyMap, n int) (int, bool) {
	switch {
	case msg.Type == tea.KeyEsc, key.Matches(msg, k.Lessons), key.Matches(msg, k.Quit):
		return -1, true
	case key.Matches(msg, k.Up):
		l.sel = max(l.sel-1, 0)
	case key.Matches(msg, k.Down):
		l.sel = min(l.sel+1, max(n-1, 0))
	case msg.Type == tea.KeyEnter:
		if n == 0 {
			return -1, true
		}
		return l.sel, true
	case msg.Type == tea.KeyRunes && len(msg.Runes) == 1:
		if i := int(msg.Runes[0] - '1'); i >= 0 && i < n && i < 9 {
			return i, true
		}
	}
	return -1, false
}

func (l *lessonMenu) view(th theme.Theme, lessons []Lesson, w, h int) []string {
	out := []string{th.Bold.Render("Lessons") + th.Muted.Render(" — the offline tutor model follows one script per lesson"), ""}
	if len(lessons) == 0 {
		out = append(out, th.Muted.Render("no lessons are bundled with this backend"))
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
	for len(out) < h-2 {
		out = append(out, "")
	}
	return append(out, "", th.Muted.Render(ansi.Truncate("↑/↓ + enter or 1–9 picks (the request goes into the input) · esc closes", w, "…")))
}
