package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/charmbracelet/bubbles/key"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// Going back and trying again: "fork here" continues a run from the step the
// panes show (the later steps are abandoned and the workspace goes back to
// how it was then), and "what-if" edits the context about to be sent in the
// person's own editor before it goes out.

// returnToPresent is what a stepping key does while a past step is shown:
// it comes back to the present and says so, instead of stepping from a
// place the learner is not looking at. It reports whether any run was in
// the past.
func (m *Model) returnToPresent() bool {
	was := false
	for _, r := range m.targets() {
		if r.viewing != nil {
			r.leaveBranch()
			was = true
		}
		if r.live.travelling() {
			was = true
			r.live.cursor = -1
			if s := r.live.selected(); s != nil {
				r.payload.follow(&s.t)
			}
		}
	}
	if was {
		m.notice = "back to the present, nothing stepped: you were viewing a past step (press again to step; [ and f fork from a past step)"
	}
	return was
}

// forkQuestion asks whether to fork although the workspace cannot go back
// to how it was at the step.
type forkQuestion struct {
	run     *runView
	reason  string
	onto    *ontoChoice // a fork onto another dialect, or nil
	abandon bool        // A: abandoning the event in progress
}

// ontoChoice is the dialect a fork continues with, its provider built.
type ontoChoice struct {
	dialect  string
	onto     loop.Onto
	switched func()
}

// ontoMenu is F: the dialects the run can fork onto, by number.
type ontoMenu struct {
	run     *runView
	options []string
}

// fork is f: every target run continues from the step its panes show.
func (m *Model) fork() {
	if m.inBranch() {
		return
	}
	var done []string
	for _, r := range m.targets() {
		if !r.live.travelling() {
			continue
		}
		if r.busy {
			m.notice = "a step is in flight: wait for it (or ctrl+c), then fork"
			return
		}
		err := r.forkHere(false, nil)
		var we *loop.WorkspaceError
		switch {
		case errors.As(err, &we):
			m.forkAsk = &forkQuestion{run: r, reason: we.Reason}
			return
		case err != nil:
			m.notice = "cannot fork: " + err.Error()
			return
		}
		done = append(done, r.title())
	}
	switch {
	case len(done) == 0:
		m.notice = "f forks from a past step: go back with [ first (you are at the present)"
	case m.compare():
		m.notice = "forked " + strings.Join(done, " and ") + ": the later steps are abandoned, the files are as they were; space steps on"
	default:
		m.notice = "forked: the later steps are abandoned and the files are as they were then; space steps on from here"
	}
	m.syncSizes()
}

// forkKey answers the fork question: y forks keeping today's files, n or
// esc keeps everything as it is.
func (m *Model) forkKey(msg tea.KeyMsg) {
	q := m.forkAsk
	switch {
	case key.Matches(msg, m.forkKeys.Yes) && q.abandon:
		m.forkAsk = nil
		if err := q.run.abandonEvent(true); err != nil {
			m.notice = "cannot abandon the event: " + err.Error()
			return
		}
		m.notice = "event abandoned, keeping the files as they are now (they could not be put back)"
		m.syncSizes()
	case key.Matches(msg, m.forkKeys.Yes):
		m.forkAsk = nil
		if err := q.run.forkHere(true, q.onto); err != nil {
			m.notice = "cannot fork: " + err.Error()
			return
		}
		m.notice = "forked, keeping the files as they are now (they could not be put back)"
		m.syncSizes()
	case key.Matches(msg, m.forkKeys.No):
		m.forkAsk = nil
		m.notice = "not forked: nothing changed"
	}
}

// forkHere continues the run from the step its panes show: the engine goes
// back to that step (Engine.Fork: history, pending calls, iteration, queue
// and, unless keepFiles, the workspace's files), and so do the panes. With
// onto it continues with another dialect (Engine.ForkOnto), from the
// present too. The abandoned steps stay in the session file and the trace.
func (r *runView) forkHere(keepFiles bool, onto *ontoChoice) error {
	s := r.live.selected()
	if s == nil || (!r.live.travelling() && onto == nil) {
		return errors.New("no past step is selected")
	}
	seq := s.t.Seq
	var err error
	switch {
	case onto != nil:
		err = r.eng.ForkOnto(seq, onto.onto, !keepFiles)
	case keepFiles:
		err = r.eng.ForkKeepingFiles(seq)
	default:
		err = r.eng.Fork(seq)
	}
	if err != nil {
		return err
	}
	if onto != nil {
		onto.switched()
		if p := r.eng.Provider(); p != nil {
			r.provider, r.model = p.Name(), p.Model()
		}
		r.backend, r.reason = onto.onto.Backend, onto.onto.BackendReason
		if r.name != "" {
			r.name, r.label = onto.dialect, ""
		}
	}
	i := r.live.selectedIndex()
	abandoned := len(r.live.steps) - i - 1
	kept := *s
	r.keepBranch(i, kept.entries)
	r.live.steps = append(r.live.steps[:i:i], kept)
	r.live.cursor = -1
	r.live.totals = kept.totals
	r.hist.truncate(kept.entries)
	r.live.state, r.live.iteration, r.live.queued = r.eng.State(), r.eng.Iteration(), r.eng.QueueLen()
	files := "the workspace's files are back as they were then"
	if keepFiles {
		files = "the workspace's files were kept as they are now"
	}
	r.hist.add(&historyEntry{kind: entryNote, text: fmt.Sprintf(
		"forked at step #%d: the %d later step%s are abandoned (the session file and the trace keep them); %s", seq, abandoned, plural(abandoned), files)})
	if onto != nil {
		// The engine's note on what could not carry over (RoleNote).
		if h := r.eng.History(); len(h) > 0 && h[len(h)-1].Role == history.RoleNote {
			r.live.addMessage(r.hist, h[len(h)-1])
		}
		r.hist.add(&historyEntry{kind: entryNote, text: fmt.Sprintf("the run continues with %s %s (%s)", r.provider, r.model, onto.dialect)})
	}
	r.payload.follow(&kept.t)
	r.calls.reset()
	r.notice = ""
	return nil
}

// abandon is A: every target run drops the event in progress and goes back
// to the step before the loop took it; the events queued after it are next.
func (m *Model) abandon() {
	if m.inBranch() {
		return
	}
	var done []string
	for _, r := range m.targets() {
		if r.busy {
			m.notice = "a step is in flight: wait for it (or ctrl+c), then A abandons the event"
			return
		}
		if r.live.state == loop.WaitingForEvent {
			continue
		}
		err := r.abandonEvent(false)
		var we *loop.WorkspaceError
		switch {
		case errors.As(err, &we):
			m.forkAsk = &forkQuestion{run: r, reason: we.Reason, abandon: true}
			return
		case err != nil:
			m.notice = "cannot abandon the event: " + err.Error()
			return
		}
		done = append(done, r.title())
	}
	switch {
	case len(done) == 0:
		m.notice = "no event is in progress: A abandons one the loop has taken"
	default:
		m.notice = "event abandoned: the loop is back before it took it, the files as they were; space takes the next event"
	}
	m.syncSizes()
}

// abandonEvent drops the run's event in progress (Engine.Abandon) and cuts
// the panes back to the step before the loop took it.
func (r *runView) abandonEvent(keepFiles bool) error {
	var seq int
	var err error
	if keepFiles {
		seq, err = r.eng.AbandonKeepingFiles()
	} else {
		seq, err = r.eng.Abandon()
	}
	if err != nil {
		return err
	}
	// The steps after seq go; so do their History entries.
	i := len(r.live.steps)
	for i > 0 && r.live.steps[i-1].t.Seq > seq {
		i--
	}
	abandoned := len(r.live.steps) - i
	entries := r.baseEntries
	r.live.totals = totals{}
	if i > 0 {
		entries, r.live.totals = r.live.steps[i-1].entries, r.live.steps[i-1].totals
	}
	r.keepBranch(i-1, entries)
	r.live.steps = r.live.steps[:i:i]
	r.live.cursor = -1
	r.hist.truncate(entries)
	r.live.state, r.live.iteration, r.live.queued = r.eng.State(), r.eng.Iteration(), r.eng.QueueLen()
	files := "the workspace's files are back as they were"
	if keepFiles {
		files = "the workspace's files were kept as they are now"
	}
	r.hist.add(&historyEntry{kind: entryNote, text: fmt.Sprintf(
		"event abandoned: the %d step%s taken for it are gone from here (the session file and the trace keep them); %s; %d event%s queued", abandoned, plural(abandoned), files, r.live.queued, plural(r.live.queued))})
	if s := r.live.selected(); s != nil {
		r.payload.follow(&s.t)
	}
	r.calls.reset()
	r.notice = ""
	return nil
}

// openOnto is F: pick a dialect for the run shown to continue with, from
// the step shown (or the present).
func (m *Model) openOnto() {
	if m.inBranch() {
		return
	}
	r := m.cur()
	switch {
	case r.onto == nil || len(m.cfg.Dialects) == 0:
		m.notice = "this run cannot switch dialects here (it was not opened by glassbox's own front end)"
		return
	case r.busy:
		m.notice = "a step is in flight: wait for it (or ctrl+c), then fork"
		return
	case r.live.selected() == nil:
		m.notice = "F forks onto another dialect from a step: take one first"
		return
	}
	current := r.dialect()
	var opts []string
	for _, d := range m.cfg.Dialects {
		if d != current {
			opts = append(opts, d)
		}
	}
	m.ontoAsk = &ontoMenu{run: r, options: opts}
}

// dialect is the run's dialect name as --compare names it.
func (r *runView) dialect() string {
	if r.provider != "llama" {
		return r.provider
	}
	if tm, ok := r.eng.Provider().(interface{ ToolMode() string }); ok && tm.ToolMode() == "native" {
		return "llama:native"
	}
	return "llama"
}

// ontoKey answers F's menu: a number picks the dialect, esc closes it.
func (m *Model) ontoKey(msg tea.KeyMsg) {
	q := m.ontoAsk
	if key.Matches(msg, m.ontoKeys.Close) {
		m.ontoAsk = nil
		m.notice = "not forked: nothing changed"
		return
	}
	if !key.Matches(msg, m.ontoKeys.Pick) {
		return
	}
	i := int(msg.Runes[0] - '1')
	if i < 0 || i >= len(q.options) {
		return
	}
	m.ontoAsk = nil
	r, dialect := q.run, q.options[i]
	onto, switched, err := r.onto(r.base, dialect)
	if err != nil {
		m.notice = "cannot fork onto " + dialect + ": " + err.Error()
		return
	}
	choice := &ontoChoice{dialect: dialect, onto: onto, switched: switched}
	err = r.forkHere(false, choice)
	var we *loop.WorkspaceError
	switch {
	case errors.As(err, &we):
		m.forkAsk = &forkQuestion{run: r, reason: we.Reason, onto: choice}
	case err != nil:
		m.notice = "cannot fork onto " + dialect + ": " + err.Error()
	default:
		m.notice = "forked onto " + dialect + ": the conversation carries over (History says what could not); space steps on"
		m.syncSizes()
	}
}

// whatIfDoneMsg: the person's editor closed on the exported context.
type whatIfDoneMsg struct {
	run    int
	path   string
	before []byte
	err    error
}

func (m whatIfDoneMsg) runID() int { return m.run }

// whatIf is w: at AWAITING_LLM_RESPONSE, open the context about to be sent
// (system prompt, messages, tool results) as JSON in $VISUAL or $EDITOR.
// What the person saves is what is sent.
func (m *Model) whatIf() tea.Cmd {
	if m.inBranch() {
		return nil
	}
	r := m.cur()
	switch {
	case r.busy:
		m.notice = "a step is in flight: what-if edits the context before it is sent"
		return nil
	case r.live.travelling():
		m.notice = "what-if edits the context about to be sent now: ] back to the present first"
		return nil
	case r.live.state != loop.AwaitingLLMResponse:
		m.notice = "what-if works at AWAITING_LLM_RESPONSE, once the context is assembled and before it is sent (i stops there)"
		return nil
	}
	editor := editorCommand()
	if editor == nil {
		m.notice = "what-if opens the context in your editor: set $VISUAL or $EDITOR (e.g. EDITOR=nano) and start glassbox again"
		return nil
	}
	data, err := r.eng.ExportContext()
	if err != nil {
		m.notice = "what-if: " + err.Error()
		return nil
	}
	dir, err := os.MkdirTemp("", "glassbox-whatif-*")
	if err != nil {
		m.notice = "what-if: cannot make a temporary file: " + err.Error()
		return nil
	}
	path := filepath.Join(dir, "context.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		os.RemoveAll(dir)
		m.notice = "what-if: cannot write the context: " + err.Error()
		return nil
	}
	id := r.id
	cmd := exec.Command(editor[0], append(editor[1:], path)...)
	return m.exec(cmd, func(err error) tea.Msg {
		return whatIfDoneMsg{run: id, path: path, before: data, err: err}
	})
}

// editorCommand is $VISUAL or $EDITOR split into words, nil if neither is set.
func editorCommand() []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(os.Getenv(v)); len(f) > 0 {
			return f
		}
	}
	return nil
}

// whatIfDone takes the edited context in: unchanged, invalid (the original
// stays, the error says why) or sent from now on, previewed again.
func (r *runView) whatIfDone(msg whatIfDoneMsg) tea.Cmd {
	defer os.RemoveAll(filepath.Dir(msg.path))
	if msg.err != nil {
		r.notice = "what-if: the editor failed (" + msg.err.Error() + "); the context is unchanged"
		return nil
	}
	after, err := os.ReadFile(msg.path)
	if err != nil {
		r.notice = "what-if: cannot read the edited context: " + err.Error()
		return nil
	}
	if string(after) == string(msg.before) {
		r.notice = "what-if: nothing changed; space sends the context as it was"
		return nil
	}
	if err := r.eng.ReplaceContext(after); err != nil {
		r.notice = err.Error()
		return nil
	}
	r.edit = tools.UnifiedDiff("context (assembled)", "context (edited)", string(msg.before), string(after), 400)
	r.notice = "what-if: the edited context is what space sends now (the trace marks it \"edited\")"
	eng, id := r.eng, r.id
	return func() tea.Msg {
		ex, err := eng.PreviewRequest(context.Background())
		return previewMsg{run: id, preview: &preview{ex: ex, err: err}}
	}
}

// previewMsg: the request about to go out, built again after an edit.
type previewMsg struct {
	run     int
	preview *preview
}

func (m previewMsg) runID() int { return m.run }
