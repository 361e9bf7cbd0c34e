package glassbox

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// dialog is a component that sits on top of the panes and has the keys
// while it is on top: the approval and the question of a run's step, the
// fork and fork-onto questions, the lessons menu, predict mode's question,
// the roster, the help overlay and the quit question (which lives on the
// help line and draws no box). A dialog holds what it needs (its run, its
// controller, the kit it draws with); it never sees the Model.
type dialog interface {
	// update takes a key and says what else must happen (closing the
	// dialog included) as an action, as crush's dialogs do.
	update(msg tea.KeyMsg) action
	// box is the dialog's title and content in w×h cells; no content: no
	// box (the quit question is asked on the help line).
	box(w, h int) (title string, content []string)
	// keys are the dialog's keys for the help line.
	keys() help.KeyMap
}

// fitter is a dialog that settles itself for the box it is drawn in (w×h
// inside its frame): the approval's preview and the help overlay clamp
// their scroll there, the roster keeps the size for its next key. Update
// calls fit (clampScrolls); box only reads.
type fitter interface{ fit(w, h int) }

// filler is a dialog whose box takes the whole body rather than at most
// 100 columns of it (Rosetta's four dialects side by side).
type filler interface{ fills() bool }

// top is the dialog that has the keys, or nil. The precedence, written
// here and nowhere else: a run's step waiting for the person (approval or
// question) is above everything, because the loop cannot move until it is
// answered; otherwise the dialog opened last.
func (m *Model) top() dialog {
	if dr := m.stepper.dialogRun(); dr != nil {
		return personDialog{m.kit, m.stepper, dr}
	}
	return m.stack.last()
}

// dialogStack holds the open dialogs, the last on top (see Model.top for
// the one precedence rule).
type dialogStack struct{ open []dialog }

// push puts d on top of the stack.
func (s *dialogStack) push(d dialog) { s.open = append(slices.Clip(s.open), d) }

// close takes d off the stack, wherever it is.
func (s *dialogStack) close(d dialog) {
	s.open = slices.DeleteFunc(slices.Clone(s.open), func(o dialog) bool { return o == d })
}

// last is the dialog opened last, or nil.
func (s *dialogStack) last() dialog {
	if n := len(s.open); n > 0 {
		return s.open[n-1]
	}
	return nil
}

// closeKind takes every dialog of kind T off the stack.
func closeKind[T dialog](s *dialogStack) {
	s.open = slices.DeleteFunc(slices.Clone(s.open), func(o dialog) bool { _, ok := o.(T); return ok })
}

// blocksPanes reports whether dialog d draws a box over the panes (the quit
// question does not).
func blocksPanes(d dialog) bool {
	if d == nil {
		return false
	}
	_, q := d.(quitDialog)
	return !q
}

// runOf names a dialog's run in compare mode.
func runOf(s *stepper, r *runView) string {
	if !s.compare() {
		return ""
	}
	return " — " + s.lang.F("%s run", r.title())
}

// personDialog is what run r's step waits on: the approval of a tool call
// (r.confirm) or the ask_user question (r.ask).
type personDialog struct {
	*kit
	stepper *stepper
	r       *runView
}

func (d personDialog) update(msg tea.KeyMsg) action {
	if d.r.confirm != nil {
		return personAnswered(d.r, d.r.confirm.update(msg, d.confirmKeys))
	}
	return personAnswered(d.r, d.r.ask.update(msg, d.askKeys))
}

func (d personDialog) box(w, h int) (string, []string) {
	if c := d.r.confirm; c != nil {
		return d.lang.F("Confirm: %s", c.req.confirm.Call.Name) + runOf(d.stepper, d.r), c.view(d.th, d.lang, d.help, d.confirmKeys, w, h)
	}
	return d.lang.T("Question from the agent") + runOf(d.stepper, d.r), d.r.ask.view(d.th, d.lang, d.help, d.askKeys, w, h)
}

func (d personDialog) keys() help.KeyMap {
	if d.r.confirm == nil {
		return bindings(d.r.ask.keys(d.askKeys))
	}
	k := d.confirmKeys
	if d.r.confirm.req.confirm.Decision.NeedsPerson {
		k.AllowSession.SetEnabled(false) // help leaves it out; update still explains a
	}
	return k
}

// fit keeps the approval's preview scrolled inside it (a question does not
// scroll).
func (d personDialog) fit(w, h int) {
	if d.r.confirm != nil && w > 0 {
		d.r.confirm.clamp(d.th, d.lang, d.help, d.confirmKeys, w, h)
	}
}

// bindings makes a list of keys a help.KeyMap.
type bindings []key.Binding

func (b bindings) ShortHelp() []key.Binding  { return b }
func (b bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }

// personAnswered is what a key did to run r's dialog, as an action: an
// answer lets the step go on, esc hides the dialog (the step keeps waiting)
// and gives the keys to the panes, a look key passes on to the stepper.
func personAnswered(r *runView, out dialogOutcome) action {
	switch out {
	case dialogAnswered:
		return action{cmd: r.answered()}
	case dialogHidden:
		r.hidden = true
		return action{panes: true}
	case dialogPass:
		return action{pass: true}
	}
	return action{}
}

// quitDialog is "quit glassbox?", asked on the help line.
type quitDialog struct{ *kit }

// update answers "quit glassbox?": y or q quits, n or esc stays, and any
// other key stays and does what it does — a letter that is not a stepper
// key starts typing, with the q in front ("quickly…" loses nothing).
func (q quitDialog) update(msg tea.KeyMsg) action {
	switch {
	case key.Matches(msg, q.quitKeys.Yes):
		return action{close: q, quit: true}
	case key.Matches(msg, q.quitKeys.No):
		return action{close: q, notice: q.lang.T("not quitting")}
	case q.kit.keys.typing(msg):
		return action{close: q, typing: append([]rune{'q'}, msg.Runes...)}
	}
	return action{close: q, again: true}
}

func (quitDialog) box(int, int) (string, []string) { return "", nil }
func (q quitDialog) keys() help.KeyMap             { return q.quitKeys }

// The fork question and F's menu of dialects (fork.go).

func (q *forkQuestion) box(w, _ int) (string, []string) {
	l := q.c.lang
	what := l.T("Fork anyway? The conversation goes back to the step; the files stay as they are now.")
	title := l.T("Fork: the files cannot go back")
	if q.abandon {
		title, what = l.T("Abandon: the files cannot go back"), l.T("Abandon the event anyway? The conversation goes back to before it; the files stay as they are now.")
	}
	content := wrapLines(l.F("The workspace cannot be put back as it was at this step: %s.", workspaceReason(l, q.reason)), w)
	hk := q.c.help
	hk.Width = w
	content = append(content, "")
	content = append(content, wrapLines(what, w)...)
	return title, append(content, "", hk.View(q.c.forkKeys))
}

func (q *forkQuestion) keys() help.KeyMap { return q.c.forkKeys }

func (o *ontoMenu) box(w, _ int) (string, []string) {
	l := o.c.lang
	s := o.run.live.selected()
	content := wrapLines(l.F("Continue %s from step #%d with another provider: the conversation carries over in its neutral form; what cannot (Gemini's thought signatures, JSON-mode replies as written) is dropped with a note.", o.run.title(), s.t.Seq), w)
	content = append(content, "")
	for i, d := range o.options {
		content = append(content, fmt.Sprintf("  %d) %s", i+1, d))
	}
	hk := o.c.help
	hk.Width = w
	return l.T("Fork onto another dialect"), append(content, "", hk.View(o.c.ontoKeys))
}

func (o *ontoMenu) keys() help.KeyMap { return o.c.ontoKeys }
