package glassbox

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// dialogOutcome is what a key did to a dialog.
type dialogOutcome int

const (
	dialogKept     dialogOutcome = iota // the dialog used the key (scrolled, typed, warned)
	dialogAnswered                      // the person answered: the step goes on
	dialogHidden                        // esc: the dialog steps aside, the step keeps waiting
	dialogPass                          // not the dialog's key: the panes take it ([ ] r tab)
)

// confirmModal asks the person to approve one tool call that a rule sent to
// REQUIRE_USER_CONFIRMATION. It shows the call, the rule and its reason, and
// the preview (a diff for write_file, the command and folder for
// execute_command), which scrolls.
type confirmModal struct {
	req    *personRequest
	scroll scroller
	// guard is the key that started the step that opened the dialog. n
	// both steps and denies, so a learner stepping with n would deny the
	// call they meant to look at: the first n then only asks for a second
	// one; esc, y and a act at once.
	guard  string
	warned bool
	// onceOnly is set when a was pressed on a call that needs a person.
	onceOnly bool
}

func newConfirmModal(req *personRequest, startKey string) *confirmModal {
	return &confirmModal{req: req, guard: startKey}
}

// update handles a key.
func (c *confirmModal) update(msg tea.KeyMsg, k confirmKeys) dialogOutcome {
	switch {
	case key.Matches(msg, k.AllowOnce):
		c.req.approve(loop.AllowOnce)
		return dialogAnswered
	case key.Matches(msg, k.AllowSession) && c.req.confirm.Decision.NeedsPerson:
		// A call only a person may answer is answered each time: there
		// is no grant for the session to give (loop.Engine counts one as
		// allow once), so the key says so instead of pretending.
		c.onceOnly = true
		return dialogKept
	case key.Matches(msg, k.AllowSession):
		c.req.approve(loop.AllowSession)
		return dialogAnswered
	case key.Matches(msg, k.Deny):
		if c.guard != "" && msg.String() == c.guard && !c.warned {
			c.warned = true
			return dialogKept
		}
		c.req.approve(loop.Deny)
		return dialogAnswered
	case key.Matches(msg, k.Hide):
		return dialogHidden
	case c.scroll.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, 10):
	case key.Matches(msg, k.Look):
		return dialogPass
	}
	return dialogKept
}

// parts are the dialog's fixed top (the call, the verdict, the rule, why),
// its scrolling preview and its fixed bottom (the keys), at width w.
func (c *confirmModal) parts(th theme.Theme, l lang.Lang, hk help.Model, k confirmKeys, w int) (top, body, bottom []string) {
	r := c.req.confirm
	top = append(top, th.Warning.Render(l.T("The security layer asks you before this call runs:")), "")
	top = append(top, th.RoleTool.Render(ansi.Truncate("  "+sanitize(r.Call.Name+" "+compactJSON(string(r.Call.Args))), w, "…")))
	top = append(top, "  "+th.Verdict(string(r.Decision.Verdict)).Render(string(r.Decision.Verdict))+
		th.Muted.Render(" · "+l.T("rule")+" ")+th.Bold.Render(r.Decision.Rule))
	for _, ln := range wrapLines(l.F("why: %s", ruleReason(l, r.Decision.Reason)), w-2) {
		top = append(top, "  "+ln)
	}
	preview := r.Preview
	if strings.TrimSpace(preview) == "" {
		preview = prettyJSON(string(r.Call.Args))
	}
	top = append(top, "", th.Bold.Render(l.T("Preview"))+th.Muted.Render(" "+l.T("(↑/↓ scroll)")))

	hk.Width = w
	answers := []key.Binding{k.AllowOnce, k.AllowSession, k.Deny}
	if r.Decision.NeedsPerson {
		answers = []key.Binding{k.AllowOnce, k.Deny}
	}
	bottom = []string{"", hk.ShortHelpView(answers), hk.ShortHelpView([]key.Binding{k.Hide, k.Look})}
	if r.Decision.NeedsPerson {
		note := l.T("No rule can read this call, so you answer it each time: there is no allowing it for the session.")
		if c.onceOnly {
			note = l.F("a does not apply here: %s", note)
		}
		bottom = append(bottom, th.Muted.Render(ansi.Truncate(note, w, "…")))
	}
	if c.warned {
		warn := l.F("%[1]s here denies the call: press %[1]s again to deny, y or a to allow", c.guard)
		if r.Decision.NeedsPerson {
			warn = l.F("%[1]s here denies the call: press %[1]s again to deny, y to allow", c.guard)
		}
		bottom = append(bottom, th.Warning.Render(ansi.Truncate(warn, w, "…")))
	}
	return top, previewLines(th, preview, w-2), bottom
}

// room is how many preview lines fit in h rows.
func (c *confirmModal) room(top, bottom []string, h int) int {
	return max(h-len(top)-len(bottom), 1)
}

// clamp keeps the preview's scroll inside it for a w×h dialog.
func (c *confirmModal) clamp(th theme.Theme, l lang.Lang, hk help.Model, k confirmKeys, w, h int) {
	top, body, bottom := c.parts(th, l, hk, k, w)
	c.scroll.clamp(len(body), c.room(top, bottom, h))
}

// view draws the modal's content in w×h cells (without the frame).
func (c *confirmModal) view(th theme.Theme, l lang.Lang, hk help.Model, k confirmKeys, w, h int) []string {
	top, body, bottom := c.parts(th, l, hk, k, w)
	room := c.room(top, bottom, h)
	view := c.scroll.window(body, room)
	out := append([]string{}, top...)
	for _, ln := range view {
		out = append(out, "  "+ln)
	}
	if len(body) > room {
		first := min(c.scroll.off, len(body)-room)
		out = append(out, th.Muted.Render("  … "+l.F("lines %d–%d of %d", first+1, first+len(view), len(body))))
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
	// guard is the key that started the step that opened the question
	// ("n"): a learner still stepping would type it as the answer's first
	// letter, so while the answer is empty it is held back, with a word; a
	// letter typed next puts it back in front ("no"), a digit picks.
	guard  string
	warned bool
	// onceOnly is set when a was pressed on a call that needs a person.
	onceOnly bool
}

func newAskModal(req *personRequest, startKey string, l lang.Lang) *askModal {
	ti := textinput.New()
	ti.Prompt = l.T("your answer: ")
	ti.Placeholder = l.T("type it here")
	if len(req.question.Options) > 0 {
		ti.Placeholder = l.T("type here, or pick an option above")
	}
	ti.Focus()
	return &askModal{req: req, text: ti, guard: startKey}
}

// update handles a key: the dialog's own keys first, then picking by
// number, then typing the answer.
func (a *askModal) update(msg tea.KeyMsg, k askKeys) dialogOutcome {
	switch {
	case key.Matches(msg, k.Hide):
		return dialogHidden
	case msg.Type == tea.KeyTab || msg.Type == tea.KeyShiftTab:
		return dialogPass
	case key.Matches(msg, k.Answer):
		return a.answer()
	case msg.Type == tea.KeyUp:
		a.move(-1)
		return dialogKept
	case msg.Type == tea.KeyDown:
		a.move(+1)
		return dialogKept
	}
	if strings.TrimSpace(a.text.Value()) == "" {
		if out, done := a.firstKey(msg, k); done {
			return out
		}
	}
	a.typeKey(msg)
	return dialogKept
}

// answer is enter: the typed answer, else the option chosen.
func (a *askModal) answer() dialogOutcome {
	opts := a.req.question.Options
	switch typed := strings.TrimSpace(a.text.Value()); {
	case typed != "":
		a.req.answer(typed)
	case len(opts) > 0:
		a.req.answer(opts[a.sel])
	default:
		return dialogKept // nothing to send yet
	}
	return dialogAnswered
}

// move chooses the option delta away, round the list.
func (a *askModal) move(delta int) {
	if n := len(a.req.question.Options); n > 0 {
		a.sel = (a.sel + n + delta) % n
	}
}

// firstKey handles a key pressed while nothing is typed: a digit picks an
// option, the stepping keys are held back. done: the key was used.
func (a *askModal) firstKey(msg tea.KeyMsg, k askKeys) (dialogOutcome, bool) {
	opts := a.req.question.Options
	switch {
	case key.Matches(msg, k.Pick):
		if n := int(msg.Runes[0] - '1'); n < len(opts) {
			a.req.answer(opts[n])
			return dialogAnswered, true
		}
	case msg.Type == tea.KeySpace || msg.String() == " ":
		return dialogKept, true // the stepping key; an answer does not start with a space
	case a.guard != "" && msg.String() == a.guard:
		a.warned = true // held back, however often it comes
		return dialogKept, true
	}
	return dialogKept, false
}

// typeKey types msg into the answer; a letter after the held-back guard
// key puts it back in front ("no").
func (a *askModal) typeKey(msg tea.KeyMsg) {
	if a.warned && strings.TrimSpace(a.text.Value()) == "" && msg.Type == tea.KeyRunes {
		msg.Runes = append([]rune(a.guard), msg.Runes...)
	}
	a.warned = false
	a.text, _ = a.text.Update(msg)
}

func (a *askModal) view(th theme.Theme, l lang.Lang, hk help.Model, k askKeys, w, h int) []string {
	q := a.req.question
	out := []string{th.Warning.Render(l.T("The agent asks you (ask_user):")), ""}
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
	hk.Width = w
	hint := []string{"", hk.ShortHelpView(a.keys(k))}
	if a.warned {
		hint = append(hint, th.Warning.Render(ansi.Truncate(l.F("you stepped with %[1]s: %[1]s is held back until you type the next letter", a.guard), w, "…")))
	}
	if len(out) > h-len(hint) {
		out = out[len(out)-(h-len(hint)):]
	}
	return append(out, hint...)
}

// keys are the question's keys: with options, picking; without, typing.
func (a *askModal) keys(k askKeys) []key.Binding {
	if len(a.req.question.Options) > 0 {
		return k.ShortHelp()
	}
	return k.freeText()
}

// builtInReasons are the reasons of the built-in security rules
// (loop.DefaultPolicy), longest first, then those of a foreign agent's
// inferred decisions (loop/outside: glassbox open, a tap).
var builtInReasons = sync.OnceValue(func() []string { return append(loop.BuiltInReasons(), outside.Reasons()...) })

// ruleReason is a decision's reason in language l: a built-in rule's own
// words through the catalog (TestBuiltInReasonsHaveJapanese), what the
// rule matched after them as it is. A reason from a --policy file is the
// author's and is shown as written.
func ruleReason(l lang.Lang, reason string) string { return l.Reason(reason, builtInReasons()) }
