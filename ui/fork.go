package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

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
	run    *runView
	reason string
}

// fork is f: every target run continues from the step its panes show.
func (m *Model) fork() {
	var done []string
	for _, r := range m.targets() {
		if !r.live.travelling() {
			continue
		}
		if r.busy {
			m.notice = "a step is in flight: wait for it (or ctrl+c), then fork"
			return
		}
		err := r.forkHere(false)
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
	switch msg.String() {
	case "y":
		m.forkAsk = nil
		if err := q.run.forkHere(true); err != nil {
			m.notice = "cannot fork: " + err.Error()
			return
		}
		m.notice = "forked, keeping the files as they are now (they could not be put back)"
		m.syncSizes()
	case "n", "esc":
		m.forkAsk = nil
		m.notice = "not forked: nothing changed"
	}
}

// forkHere continues the run from the step its panes show: the engine goes
// back to that step (Engine.Fork: history, pending calls, iteration, queue
// and, unless keepFiles, the workspace's files), and so do the panes. The
// abandoned steps stay in the session file and the trace.
func (r *runView) forkHere(keepFiles bool) error {
	s := r.live.selected()
	if s == nil || !r.live.travelling() {
		return errors.New("no past step is selected")
	}
	seq := s.t.Seq
	var err error
	if keepFiles {
		err = r.eng.ForkKeepingFiles(seq)
	} else {
		err = r.eng.Fork(seq)
	}
	if err != nil {
		return err
	}
	i := r.live.selectedIndex()
	abandoned := len(r.live.steps) - i - 1
	kept := *s
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
	r.payload.follow(&kept.t)
	r.calls.off = 0
	r.notice = ""
	return nil
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
