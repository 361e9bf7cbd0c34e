package glassbox

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// Breakpoints (docs/breakpoints.md). Each run keeps the breakpoints in force
// on it in a breakpoint.Watch (runView.breaks): --break puts them there, b
// toggles state=S on the state picked in the State machine pane, and K opens
// the breakpoint dialog (breakDialog), where an expression is typed, and the
// breakpoints in force are listed and removed. Every step a run takes is fed
// to its watch; a breakpoint that begins to match stops i and c there, and
// the help line, the status bar and History say which one, on what step.

// breakHit feeds step t to the run's watch and keeps the breakpoint that
// begins to match there (nil for none) for the status bar.
func (r *runView) breakHit(t loop.Transition) *breakpoint.Hit {
	r.stopped = nil
	h, ok := r.breaks.Step(breakpoint.Step{Transition: t, Dialect: r.stepDialect()})
	if !ok {
		return nil
	}
	r.stopped = &h
	return &h
}

// stepDialect is the dialect the run's steps are made in now (a fork onto
// another dialect changes it), as the registry names it.
func (r *runView) stepDialect() string {
	if r.eng != nil {
		if d := r.eng.Dialect().Name; d != "" {
			return d
		}
	}
	return r.name
}

// breakStopped says, for the help line and History, which breakpoint
// stopped the run at step t, and what its size conditions measured.
func (r *runView) breakStopped(h breakpoint.Hit, t loop.Transition) string {
	l := r.lang
	return l.F("stopped by breakpoint #%d %s at step %d (%s ─%s─▶ %s)", h.Index+1, h.Breakpoint, t.Seq, t.From, t.Edge, t.To) + measured(l, h)
}

// breakMatched says that breakpoint h matches step t, when a single step
// (space) reached it.
func (r *runView) breakMatched(h breakpoint.Hit, t loop.Transition) string {
	l := r.lang
	return l.F("breakpoint #%d %s matches step %d (%s ─%s─▶ %s)", h.Index+1, h.Breakpoint, t.Seq, t.From, t.Edge, t.To) + measured(l, h)
}

// measured is what a hit's size conditions were decided on, and where the
// token figure comes from: "; tokens 9214 (reported by the provider)".
func measured(l lang.Lang, h breakpoint.Hit) string {
	var out string
	if tk := h.Tokens; tk != nil {
		if tk.Source == breakpoint.Reported {
			out += l.F("; tokens %d (reported by the provider)", tk.N)
		} else {
			out += l.F("; tokens ≈%d (estimated: the request's bytes ÷ %d; the provider reported none)", tk.N, breakpoint.BytesPerToken)
		}
	}
	if h.Bytes != nil {
		out += l.F("; request %d bytes", *h.Bytes)
	}
	return out
}

// breakSegment is the status bar's breakpoint segment: the breakpoint that
// stopped the run and the step, or how many are in force; "" for none.
func (r *runView) breakSegment(seg func(k, v string) string) string {
	l := r.lang
	switch {
	case r.stopped != nil:
		return seg(l.T("break"), l.F("#%d %s @ step %d", r.stopped.Index+1, r.stopped.Breakpoint, r.stopped.Seq))
	case r.breaks.Len() > 0:
		return seg(l.T("break"), l.F("%d set (K)", r.breaks.Len()))
	}
	return ""
}

// toggleState is b on the run: the breakpoint state=s put in force (on)
// or taken out.
func (r *runView) toggleState(s loop.State, on bool) {
	b := breakpoint.OnState(s)
	if i := r.breaks.Index(b); i >= 0 && !on {
		r.breaks.Remove(i)
	} else if i < 0 && on {
		r.breaks.Add(b)
	}
}

// stopsAt reports whether a breakpoint state=s (and nothing else) is in
// force on the run.
func (r *runView) stopsAt(s loop.State) bool {
	return r.breaks.Index(breakpoint.OnState(s)) >= 0
}

// forgetBreaks: after a fork or A the next step does not follow the last
// one the watch saw.
func (r *runView) forgetBreaks() {
	r.breaks.Forget()
	r.stopped = nil
}

// breakKeys are the breakpoint dialog's keys.
type breakKeys struct {
	Add, Up, Down, Remove, Close key.Binding
}

func newBreakKeys(l lang.Lang) breakKeys {
	return breakKeys{
		Add:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", l.T("add"))),
		Up:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", l.T("pick"))),
		Down:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", l.T("pick"))),
		Remove: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", l.T("remove the one picked"))),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("close"))),
	}
}

func (k breakKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Add, k.Up, k.Remove, k.Close} }
func (k breakKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// breakEditor is the breakpoint dialog's content: the breakpoints in force
// on the runs it was opened for (the runs the keys act on), one of them
// picked, and a line to type a new one. A refused expression stays in the
// line, with the reason under it.
type breakEditor struct {
	runs []*runView
	text textinput.Model
	sel  int
	err  error
	// onlyC: the glass box around a tap, where i does not stop (a tap
	// holds calls; c is what runs the agent until one matches).
	onlyC bool
}

func newBreakEditor(runs []*runView, l lang.Lang, onlyC bool) *breakEditor {
	ti := textinput.New()
	ti.Prompt = l.T("new: ")
	ti.Placeholder = l.T("such as tool=write_file or verdict=DENY")
	ti.CharLimit = 500
	ti.Focus()
	return &breakEditor{runs: runs, text: ti, onlyC: onlyC}
}

// list is the breakpoints in force, as the first of the runs has them.
func (e *breakEditor) list() []breakpoint.Breakpoint { return e.runs[0].breaks.List() }

// key takes a key: typing, enter (add), ↑/↓ (pick), ctrl+x (remove). It
// returns a line for the notice ("" for none) and whether the dialog
// closes.
func (e *breakEditor) key(msg tea.KeyMsg, k breakKeys, l lang.Lang) (notice string, done bool) {
	n := len(e.list())
	switch {
	case key.Matches(msg, k.Close):
		return l.F("%d breakpoint%s in force", n, plural(n)), true
	case key.Matches(msg, k.Add):
		return e.add(l), false
	case key.Matches(msg, k.Up):
		e.sel = max(e.sel-1, 0)
	case key.Matches(msg, k.Down):
		e.sel = min(e.sel+1, max(n-1, 0))
	case key.Matches(msg, k.Remove):
		return e.remove(l), false
	default:
		e.text, _ = e.text.Update(msg)
	}
	return "", false
}

// add puts the typed expression in force on every run of the dialog.
func (e *breakEditor) add(l lang.Lang) string {
	typed := strings.TrimSpace(e.text.Value())
	if typed == "" {
		return l.T("type a breakpoint first, such as tool=write_file")
	}
	b, err := breakpoint.Parse(typed)
	if err != nil {
		e.err = err
		return ""
	}
	e.err = nil
	e.text.SetValue("")
	if i := e.runs[0].breaks.Index(b); i >= 0 {
		e.sel = i
		return l.F("breakpoint #%d %s is already in force", i+1, b)
	}
	for _, r := range e.runs {
		r.breaks.Add(b)
	}
	e.sel = len(e.list()) - 1
	if e.onlyC {
		return l.F("breakpoint #%d %s: c stops where it begins to match", e.sel+1, b)
	}
	return l.F("breakpoint #%d %s: i and c stop where it begins to match", e.sel+1, b)
}

// remove takes the picked breakpoint out of force on every run of the
// dialog.
func (e *breakEditor) remove(l lang.Lang) string {
	list := e.list()
	if len(list) == 0 {
		return l.T("no breakpoint to remove")
	}
	e.sel = min(e.sel, len(list)-1)
	b := list[e.sel]
	for _, r := range e.runs {
		r.breaks.Remove(r.breaks.Index(b))
		if r.stopped != nil && r.stopped.Breakpoint.String() == b.String() {
			r.stopped = nil
		}
	}
	e.sel = min(e.sel, max(len(list)-2, 0))
	return l.F("breakpoint %s removed", b)
}

// view draws the dialog in w×h cells.
func (e *breakEditor) view(th theme.Theme, l lang.Lang, hk help.Model, k breakKeys, w, h int) []string {
	list := e.list()
	inForce := l.T("In force — i and c stop where one begins to match (several: any one):")
	if e.onlyC {
		inForce = l.T("In force — c stops where one begins to match (several: any one):")
	}
	out := wrapLines(inForce, w)
	if len(list) == 0 {
		out = append(out, th.Muted.Render(ansi.Truncate("  "+l.T("none yet: type one below, or press b on a state in State machine"), w, "…")))
	}
	for i, b := range list {
		line := fmt.Sprintf("  %d  %s", i+1, b)
		if i == e.sel {
			line = th.Selected.Render(ansi.Truncate(fmt.Sprintf("› %d  %s", i+1, b), w, "…"))
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	text := e.text
	text.Width = max(w-cell.Width(text.Prompt)-1, 1)
	out = append(out, "", text.View())
	if e.err != nil {
		for _, ln := range wrapLines(l.Error(e.err), w) {
			out = append(out, th.Warning.Render(ln))
		}
	}
	hint := wrapLines(l.F("Conditions, joined by commas, all of which must hold: %s. For example: %s", breakpoint.Conditions(),
		"tool=write_file · verdict=DENY · tokens>8000 · state=CHECKING_POLICY,tool~=write_*"), w)
	for i := range hint {
		hint[i] = th.Muted.Render(hint[i])
	}
	hk.Width = w
	tail := append(append([]string{""}, hint...), "", hk.View(k))
	if room := h - len(tail); len(out) > room {
		out = out[:max(room, 0)]
	}
	return append(out, tail...)
}

// breakController is the breakpoints feature: b puts state=S on the state
// picked in the State machine pane (or takes it off), K opens the dialog.
// The breakpoints themselves are each run's (runView.breaks).
type breakController struct {
	*kit
	stepper *stepper
}

// toggleState is b: a breakpoint on the state selected in the run shown,
// set the same in every run the keys act on.
func (c *breakController) toggleState() action {
	s := c.stepper
	r := s.cur()
	st := r.diagram.selected()
	on := !r.stopsAt(st)
	for _, o := range s.targets() { // the run shown is one of them
		o.toggleState(st, on)
	}
	if !on {
		return say(c.lang.F("breakpoint removed from %s", st))
	}
	notice := c.lang.F("breakpoint on %s: i and c stop when the loop enters it", st)
	if s.pane != paneDiagram {
		notice += c.lang.T(" (to pick another state: tab to State machine, ←/→, b)")
	}
	return say(notice)
}

// open is K: the breakpoint dialog for the runs the keys act on.
func (c *breakController) open() action {
	return action{open: &breakDialog{kit: c.kit, stepper: c.stepper, e: newBreakEditor(c.stepper.targets(), c.lang, c.who == role.Tapper)}}
}

// breakDialog is K's dialog: the breakpoints in force, a line to type one.
type breakDialog struct {
	*kit
	stepper *stepper
	e       *breakEditor
}

func (d *breakDialog) update(msg tea.KeyMsg) action {
	notice, done := d.e.key(msg, d.breakKeys, d.lang)
	a := say(notice)
	if done {
		a.close = d
	}
	return a
}

func (d *breakDialog) box(w, h int) (string, []string) {
	title := d.lang.T("Breakpoints")
	if len(d.e.runs) == 1 {
		title += runOf(d.stepper, d.e.runs[0])
	}
	return title, d.e.view(d.th, d.lang, d.help, d.breakKeys, w, h)
}

func (d *breakDialog) keys() help.KeyMap { return d.breakKeys }
