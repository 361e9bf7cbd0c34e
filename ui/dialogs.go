package ui

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// dialog is a component that sits on top of the panes and has the keys
// while it is on top: the approval and the question of a run's step, the
// fork and fork-onto questions, the lessons menu, the help overlay and the
// quit question (which lives on the help line and draws no box).
type dialog interface {
	// update takes a key and returns the model with its effect (closing
	// the dialog included).
	update(m Model, msg tea.KeyMsg) (Model, tea.Cmd)
	// box is the dialog's title and content in w×h cells; no content: no
	// box (the quit question is asked on the help line).
	box(m Model, w, h int) (title string, content []string)
	// keys are the dialog's keys for the help line.
	keys(m Model) help.KeyMap
}

// top is the dialog that has the keys, or nil. The precedence, written
// here and nowhere else: a run's step waiting for the person (approval or
// question) is above everything, because the loop cannot move until it is
// answered; otherwise the dialog opened last.
func (m Model) top() dialog {
	if dr := m.dialogRun(); dr != nil {
		if dr.confirm != nil {
			return confirmDialog{dr}
		}
		return askDialog{dr}
	}
	if n := len(m.stack); n > 0 {
		return m.stack[n-1]
	}
	return nil
}

// open puts d on top of the stack.
func (m *Model) open(d dialog) { m.stack = append(slices.Clip(m.stack), d) }

// close takes d off the stack, wherever it is.
func (m *Model) close(d dialog) {
	m.stack = slices.DeleteFunc(slices.Clone(m.stack), func(o dialog) bool { return o == d })
}

// closeKind takes every dialog of kind T off the stack.
func closeKind[T dialog](m *Model) {
	m.stack = slices.DeleteFunc(slices.Clone(m.stack), func(o dialog) bool { _, ok := o.(T); return ok })
}

// opened returns the open dialog of kind T, if any.
func opened[T dialog](m Model) (T, bool) {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if d, ok := m.stack[i].(T); ok {
			return d, true
		}
	}
	var zero T
	return zero, false
}

// blocksPanes reports whether the dialog on top draws a box over the panes
// (the quit question does not).
func (m Model) blocksPanes() bool {
	d := m.top()
	if d == nil {
		return false
	}
	_, q := d.(quitDialog)
	return !q
}

// confirmDialog is run r's approval of a tool call.
type confirmDialog struct{ r *runView }

func (d confirmDialog) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	return m.dialogKey(d.r, d.r.confirm.update(msg, m.confirmKeys), msg)
}

func (d confirmDialog) box(m Model, w, h int) (string, []string) {
	return m.cfg.Lang.F("Confirm: %s", d.r.confirm.req.confirm.Call.Name) + m.runOf(d.r), d.r.confirm.view(m.th, m.cfg.Lang, m.help, m.confirmKeys, w, h)
}

func (d confirmDialog) keys(m Model) help.KeyMap {
	k := m.confirmKeys
	if d.r.confirm.req.confirm.Decision.NeedsPerson {
		k.AllowSession.SetEnabled(false) // help leaves it out; update still explains a
	}
	return k
}

// askDialog is run r's ask_user question.
type askDialog struct{ r *runView }

func (d askDialog) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	return m.dialogKey(d.r, d.r.ask.update(msg, m.askKeys), msg)
}

func (d askDialog) box(m Model, w, h int) (string, []string) {
	return m.cfg.Lang.T("Question from the agent") + m.runOf(d.r), d.r.ask.view(m.th, m.cfg.Lang, m.help, m.askKeys, w, h)
}

func (d askDialog) keys(m Model) help.KeyMap { return bindings(d.r.ask.keys(m.askKeys)) }

// runOf names a dialog's run in compare mode.
func (m Model) runOf(r *runView) string {
	if !m.compare() {
		return ""
	}
	return " — " + m.cfg.Lang.F("%s run", r.title())
}

// bindings makes a list of keys a help.KeyMap.
type bindings []key.Binding

func (b bindings) ShortHelp() []key.Binding  { return b }
func (b bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }

// dialogKey acts on what a key did to run r's dialog.
func (m Model) dialogKey(r *runView, out dialogOutcome, msg tea.KeyMsg) (Model, tea.Cmd) {
	switch out {
	case dialogAnswered:
		return m, r.answered()
	case dialogHidden:
		r.hidden = true
		m.focusPane(m.pane)
		return m, nil
	case dialogPass:
		next, cmd := m.stepperKey(msg)
		return next.(Model), cmd
	}
	return m, nil
}

// helpDialog is the help overlay: every key, scrolled on small screens.
type helpDialog struct{}

func (helpDialog) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.helpKeys
	if key.Matches(msg, k.Close) {
		m.close(helpDialog{})
	} else {
		m.helpTop.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, 10)
	}
	m.clampHelp()
	return m, nil
}

func (helpDialog) box(m Model, w, h int) (string, []string) {
	return m.cfg.Lang.T("Keys"), m.helpView(w, h)
}
func (helpDialog) keys(m Model) help.KeyMap { return m.helpKeys }

// quitDialog is "quit glassbox?", asked on the help line.
type quitDialog struct{}

func (quitDialog) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	next, cmd := m.quitKey(msg)
	return next.(Model), cmd
}
func (quitDialog) box(Model, int, int) (string, []string) { return "", nil }
func (quitDialog) keys(m Model) help.KeyMap               { return m.quitKeys }

// The lessons menu, the fork question and F's menu of dialects.

func (l *lessonMenu) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	next, cmd := m.lessonKey(l, msg)
	return next.(Model), cmd
}

func (l *lessonMenu) box(m Model, w, h int) (string, []string) {
	lessons := m.offered()
	return m.cfg.Lang.T("Lessons"), l.view(m.th, m.cfg.Lang, m.help, m.lessonKeys, lessons, w, min(h, len(lessons)+5))
}

func (l *lessonMenu) keys(m Model) help.KeyMap { return m.lessonKeys }

func (q *forkQuestion) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	cmd := m.forkKey(q, msg)
	return m, cmd
}

func (q *forkQuestion) box(m Model, w, _ int) (string, []string) {
	l := m.cfg.Lang
	what := l.T("Fork anyway? The conversation goes back to the step; the files stay as they are now.")
	title := l.T("Fork: the files cannot go back")
	if q.abandon {
		title, what = l.T("Abandon: the files cannot go back"), l.T("Abandon the event anyway? The conversation goes back to before it; the files stay as they are now.")
	}
	content := wrapLines(l.F("The workspace cannot be put back as it was at this step: %s.", workspaceReason(l, q.reason)), w)
	hk := m.help
	hk.Width = w
	content = append(content, "")
	content = append(content, wrapLines(what, w)...)
	return title, append(content, "", hk.View(m.forkKeys))
}

func (q *forkQuestion) keys(m Model) help.KeyMap { return m.forkKeys }

func (o *ontoMenu) update(m Model, msg tea.KeyMsg) (Model, tea.Cmd) {
	cmd := m.ontoKey(o, msg)
	return m, cmd
}

func (o *ontoMenu) box(m Model, w, _ int) (string, []string) {
	s := o.run.live.selected()
	content := wrapLines(m.cfg.Lang.F("Continue %s from step #%d with another provider: the conversation carries over in its neutral form; what cannot (Gemini's thought signatures, JSON-mode replies as written) is dropped with a note.", o.run.title(), s.t.Seq), w)
	content = append(content, "")
	for i, d := range o.options {
		content = append(content, fmt.Sprintf("  %d) %s", i+1, d))
	}
	hk := m.help
	hk.Width = w
	return m.cfg.Lang.T("Fork onto another dialect"), append(content, "", hk.View(m.ontoKeys))
}

func (o *ontoMenu) keys(m Model) help.KeyMap { return m.ontoKeys }

// offered are the lessons the lessons menu lists: those at least one run's
// dialect can show (a lesson that names its dialects runs on those only).
func (m Model) offered() []Lesson {
	var out []Lesson
	for _, l := range m.cfg.Lessons {
		if len(l.Dialects) == 0 || slices.ContainsFunc(m.runs, func(r *runView) bool { return slices.Contains(l.Dialects, r.dialectName()) }) {
			out = append(out, l)
		}
	}
	return out
}
