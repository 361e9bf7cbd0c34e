package glassbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Going back and trying again: "fork here" continues a run from the step the
// panes show (the later steps are abandoned and the workspace goes back to
// how it was then), and "what-if" edits the context about to be sent in the
// person's own editor before it goes out.

// forkController is going back and trying again, for the runs the keys
// act on: f forks from the step shown, F forks onto another dialect, A
// abandons the event in progress, B shows the branches they left behind,
// and w (what-if) edits the context about to be sent. The engine's work
// happens in commands; done, ready and whatIfDone take their results in.
type forkController struct {
	*kit
	stepper  *stepper
	dialects []string // Config.Dialects: what F offers
	// exec hands the terminal to a program (the what-if editor) and calls
	// back when it ends: tea.ExecProcess; tests run the program directly.
	exec func(*exec.Cmd, tea.ExecCallback) tea.Cmd
}

// forkQuestion asks whether to fork although the workspace cannot go back
// to how it was at the step.
type forkQuestion struct {
	c       *forkController
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
	c       *forkController
	run     *runView
	options []string
}

// fork is f: every target run continues from the step its panes show. The
// engine's work (files put back, the session's journal) happens in a
// command; done takes the result in.
func (c *forkController) fork() action {
	if n := c.inBranch(); n != "" {
		return say(n)
	}
	var cmds []tea.Cmd
	for _, r := range c.stepper.targets() {
		if !r.live.travelling() {
			continue
		}
		if r.busy || r.forking {
			return say(c.lang.T("a step is in flight: wait for it (or ctrl+c), then fork"))
		}
		cmds = append(cmds, forkCmd(r, false, nil))
	}
	if len(cmds) == 0 {
		return say(c.lang.T("f forks from a past step: go back with [ first (you are at the present)"))
	}
	return action{notice: c.lang.T("forking…"), cmd: tea.Batch(cmds...)}
}

// forkDoneMsg: the engine of a run went back to a step (Engine.Fork,
// ForkKeepingFiles, ForkOnto or Abandon), or could not.
type forkDoneMsg struct {
	run       int
	at        int // the index of the step forked from
	seq       int
	keepFiles bool
	onto      *ontoChoice
	abandon   bool
	err       error
}

func (m forkDoneMsg) runID() int { return m.run }

// forkCmd has run r's engine go back to the step shown, in a command.
func forkCmd(r *runView, keepFiles bool, onto *ontoChoice) tea.Cmd {
	fork, err := forkPointOf(r, onto != nil)
	if err != nil {
		id := r.id
		return func() tea.Msg { return forkDoneMsg{run: id, err: err} }
	}
	r.forking = true
	return func() tea.Msg { return fork.run(keepFiles, onto) }
}

// forkPoint is a run's engine and the step to fork from.
type forkPoint struct {
	id, at, seq int
	eng         *loop.Engine
}

// forkPointOf is the step run r's panes show, to fork from (present: a
// fork onto another dialect may start at the present).
func forkPointOf(r *runView, present bool) (forkPoint, error) {
	s := r.live.selected()
	if s == nil || (!r.live.travelling() && !present) {
		return forkPoint{}, errors.New("no past step is selected")
	}
	return forkPoint{id: r.id, at: r.live.selectedIndex(), seq: s.t.Seq, eng: r.eng}, nil
}

// run is the engine's part of a fork; it runs in a command.
func (f forkPoint) run(keepFiles bool, onto *ontoChoice) tea.Msg {
	var err error
	switch {
	case onto != nil:
		err = f.eng.ForkOnto(f.seq, onto.onto, !keepFiles)
	case keepFiles:
		err = f.eng.ForkKeepingFiles(f.seq)
	default:
		err = f.eng.Fork(f.seq)
	}
	return forkDoneMsg{run: f.id, at: f.at, seq: f.seq, keepFiles: keepFiles, onto: onto, err: err}
}

// abandonCmd has run r's engine drop the event in progress, in a command.
func abandonCmd(r *runView, keepFiles bool) tea.Cmd {
	id, eng := r.id, r.eng
	r.forking = true
	return func() tea.Msg {
		var seq int
		var err error
		if keepFiles {
			seq, err = eng.AbandonKeepingFiles()
		} else {
			seq, err = eng.Abandon()
		}
		return forkDoneMsg{run: id, seq: seq, keepFiles: keepFiles, abandon: true, err: err}
	}
}

// done takes in what the engine did for f, F or A: the panes follow it,
// or the fork question asks whether to go on without the files.
func (c *forkController) done(msg forkDoneMsg) action {
	if msg.run < 0 || msg.run >= len(c.stepper.runs) {
		return action{}
	}
	r := c.stepper.runs[msg.run]
	r.forking = false
	var we *loop.WorkspaceError
	switch {
	case errors.As(msg.err, &we):
		return action{open: &forkQuestion{c: c, run: r, reason: we.Reason, onto: msg.onto, abandon: msg.abandon}}
	case msg.err != nil:
		return say(forkFailure(c.lang, msg))
	case msg.abandon:
		abandoned(r, msg.seq, msg.keepFiles)
	default:
		forked(r, msg.at, msg.seq, msg.keepFiles, msg.onto)
	}
	// The journal wrote the fork: the session's size is measured again.
	return action{notice: c.forkNotice(r, msg), resize: true, cmd: tea.Batch(c.stepper.fetchPayloads(), r.disk.measure(r.id, true))}
}

// forkFailure says why f, F or A could not be done.
func forkFailure(l lang.Lang, msg forkDoneMsg) string {
	switch {
	case msg.onto != nil:
		return l.F("cannot fork onto %s: %v", msg.onto.dialect, msg.err)
	case msg.abandon:
		return l.F("cannot abandon the event: %v", msg.err)
	}
	return l.F("cannot fork: %v", msg.err)
}

// forkNotice says what f, F or A did to run r.
func (c *forkController) forkNotice(r *runView, msg forkDoneMsg) string {
	l := c.lang
	switch {
	case msg.abandon && msg.keepFiles:
		return l.T("event abandoned, keeping the files as they are now (they could not be put back)")
	case msg.abandon:
		return l.T("event abandoned: the loop is back before it took it, the files as they were; space takes the next event")
	case msg.onto != nil && msg.keepFiles:
		return l.F("forked onto %s, keeping the files as they are now (they could not be put back): the conversation carries over (History says what could not); space steps on", msg.onto.dialect)
	case msg.onto != nil:
		return l.F("forked onto %s: the conversation carries over (History says what could not); space steps on", msg.onto.dialect)
	case msg.keepFiles:
		return l.T("forked, keeping the files as they are now (they could not be put back)")
	case c.stepper.compare():
		return l.F("forked %s: the later steps are abandoned, the files are as they were; space steps on", r.title())
	}
	return l.T("forked: the later steps are abandoned and the files are as they were then; space steps on from here")
}

// update answers the fork question: y goes on keeping today's files, n
// or esc keeps everything as it is.
func (q *forkQuestion) update(msg tea.KeyMsg) action {
	k := q.c.forkKeys
	switch {
	case key.Matches(msg, k.Yes) && q.abandon:
		return action{close: q, cmd: abandonCmd(q.run, true)}
	case key.Matches(msg, k.Yes):
		return action{close: q, cmd: forkCmd(q.run, true, q.onto)}
	case key.Matches(msg, k.No):
		return action{close: q, notice: q.c.lang.T("not forked: nothing changed")}
	}
	return action{}
}

// forked puts the panes back to step index i (#seq), the engine having
// gone back there (Engine.Fork: history, pending calls, iteration, queue
// and, unless keepFiles, the workspace's files). With onto the run goes on
// with another dialect (Engine.ForkOnto). The abandoned steps stay in the
// session file and the trace.
func forked(r *runView, i, seq int, keepFiles bool, onto *ontoChoice) {
	i = min(max(i, 0), len(r.live.steps)-1)
	s := &r.live.steps[i]
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
	abandoned := len(r.live.steps) - i - 1
	kept := *s
	keepBranch(r, i, kept.entries)
	r.live.steps = append(r.live.steps[:i:i], kept)
	r.live.cursor = -1
	r.live.totals = kept.totals
	r.live.recount()
	r.history.truncate(kept.entries)
	r.live.state, r.live.iteration, r.live.queued = r.eng.State(), r.eng.Iteration(), r.eng.QueueLen()
	files := r.lang.T("the workspace's files are back as they were then")
	if keepFiles {
		files = r.lang.T("the workspace's files were kept as they are now")
	}
	switch {
	case abandoned == 0:
		// F at the present: nothing is cut, and the files are as they are.
		r.history.note(r.lang.F("forked at step #%d, the present: no step is abandoned and the files stay as they are", seq))
	default:
		r.history.note(r.lang.F(
			"forked at step #%d: the %d later step%s %s abandoned (the session file and the trace keep them); %s", seq, abandoned, plural(abandoned), isAre(abandoned), files))
	}
	if onto != nil {
		// The engine's note on what could not carry over (RoleNote).
		if h := r.eng.History(); len(h) > 0 && h[len(h)-1].Role == history.RoleNote {
			r.live.addMessage(r.history, h[len(h)-1])
		}
		r.history.note(r.lang.F("the run continues with %s %s (%s)", r.provider, r.model, onto.dialect))
	}
	r.payload.follow(&kept.t)
	r.tools.reset()
	r.forgetBreaks()
	r.notice = ""
}

// abandon is A: every target run drops the event in progress and goes back
// to the step before the loop took it; the events queued after it are next.
func (c *forkController) abandon() action {
	if n := c.inBranch(); n != "" {
		return say(n)
	}
	var cmds []tea.Cmd
	for _, r := range c.stepper.targets() {
		if r.busy || r.forking {
			return say(c.lang.T("a step is in flight: wait for it (or ctrl+c), then A abandons the event"))
		}
		if r.live.state != loop.WaitingForEvent {
			cmds = append(cmds, abandonCmd(r, false))
		}
	}
	if len(cmds) == 0 {
		return say(c.lang.T("no event is in progress: A abandons one the loop has taken"))
	}
	return action{cmd: tea.Batch(cmds...)}
}

// abandoned cuts the panes back to step #seq, the engine having dropped
// the event in progress (Engine.Abandon).
func abandoned(r *runView, seq int, keepFiles bool) {
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
	keepBranch(r, i-1, entries)
	r.live.steps = r.live.steps[:i:i]
	r.live.cursor = -1
	r.live.recount()
	r.history.truncate(entries)
	r.live.state, r.live.iteration, r.live.queued = r.eng.State(), r.eng.Iteration(), r.eng.QueueLen()
	files := r.lang.T("the workspace's files are back as they were")
	if keepFiles {
		files = r.lang.T("the workspace's files were kept as they are now")
	}
	r.history.note(r.lang.F(
		"event abandoned: the %d step%s taken for it %s gone from here (the session file and the trace keep them); %s; %d event%s queued", abandoned, plural(abandoned), isAre(abandoned), files, r.live.queued, plural(r.live.queued)))
	r.followShown()
	r.tools.reset()
	r.forgetBreaks()
	r.notice = ""
}

// openOnto is F: pick a dialect for the run shown to continue with, from
// the step shown (or the present).
func (c *forkController) openOnto() action {
	if n := c.inBranch(); n != "" {
		return say(n)
	}
	r := c.stepper.cur()
	switch {
	case r.onto == nil || len(c.dialects) == 0:
		return say(c.lang.T("this run cannot switch dialects here (it was not opened by glassbox's own front end)"))
	case r.busy:
		return say(c.lang.T("a step is in flight: wait for it (or ctrl+c), then fork"))
	case r.live.selected() == nil:
		return say(c.lang.T("F forks onto another dialect from a step: take one first"))
	}
	current := r.dialect()
	var opts []string
	for _, d := range c.dialects {
		if d != current {
			opts = append(opts, d)
		}
	}
	return action{open: &ontoMenu{c: c, run: r, options: opts}}
}

// dialectName is the run's dialect as --compare names it, "" without an
// engine.
func (r *runView) dialectName() string {
	switch {
	case r.name != "":
		return r.name
	case r.eng == nil || r.eng.Provider() == nil:
		return ""
	}
	return r.dialect()
}

// dialect is the run's dialect name as --compare names it (the provider's
// name for an engine built without one).
func (r *runView) dialect() string {
	if d := r.eng.Dialect().Name; d != "" {
		return d
	}
	return r.provider
}

// update answers F's menu: a number picks the dialect, esc closes it.
// Building the dialect's provider and forking onto it happen in a command.
func (q *ontoMenu) update(msg tea.KeyMsg) action {
	k, l := q.c.ontoKeys, q.c.lang
	if key.Matches(msg, k.Close) {
		return action{close: q, notice: l.T("not forked: nothing changed")}
	}
	if !key.Matches(msg, k.Pick) {
		return action{}
	}
	i := int(msg.Runes[0] - '1')
	if i < 0 || i >= len(q.options) {
		return action{}
	}
	r, dialect := q.run, q.options[i]
	fork, err := forkPointOf(r, true)
	if err != nil {
		return action{close: q, notice: l.F("cannot fork onto %s: %v", dialect, err)}
	}
	build, base := r.onto, r.base
	r.forking = true
	return action{close: q, cmd: func() tea.Msg {
		onto, switched, err := build(base, dialect)
		choice := &ontoChoice{dialect: dialect, onto: onto, switched: switched}
		if err != nil {
			return forkDoneMsg{run: fork.id, onto: choice, err: err}
		}
		return fork.run(false, choice)
	}}
}

// whatIf is w: at AWAITING_LLM_RESPONSE, open the context about to be sent
// (system prompt, messages, tool results) as JSON in $VISUAL or $EDITOR.
// What the person saves is what is sent. Writing the context to a temporary
// file happens in a command (ready opens the editor on it); reading
// it back happens when the editor ends, outside Update too.
func (c *forkController) whatIf() action {
	if n := c.inBranch(); n != "" {
		return say(n)
	}
	r := c.stepper.cur()
	switch {
	case r.busy || r.forking:
		return say(c.lang.T("a step is in flight: what-if edits the context before it is sent"))
	case r.live.travelling():
		return say(c.lang.T("what-if edits the context about to be sent now: ] back to the present first"))
	case r.live.state != loop.AwaitingLLMResponse:
		return say(c.lang.T("what-if works at AWAITING_LLM_RESPONSE, once the context is assembled and before it is sent (i stops there)"))
	}
	editor := editorCommand()
	if editor == nil {
		return say(c.lang.T("what-if opens the context in your editor: set $VISUAL or $EDITOR (e.g. EDITOR=nano) and start glassbox again"))
	}
	data, err := r.eng.ExportContext()
	if err != nil {
		return say(c.lang.F("what-if: %v", err))
	}
	id := r.id
	return action{cmd: func() tea.Msg {
		dir, err := os.MkdirTemp("", "glassbox-whatif-*")
		if err != nil {
			return whatIfReadyMsg{run: id, err: fmt.Errorf("cannot make a temporary file: %w", err)}
		}
		path := filepath.Join(dir, "context.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			os.RemoveAll(dir)
			return whatIfReadyMsg{run: id, err: fmt.Errorf("cannot write the context: %w", err)}
		}
		return whatIfReadyMsg{run: id, dir: dir, path: path, before: data, editor: editor}
	}}
}

// whatIfReadyMsg: the context to edit is in a file of its own temporary
// folder (or could not be written there).
type whatIfReadyMsg struct {
	run       int
	hold      int // a tap's held request (0: the engine's context)
	dir, path string
	before    []byte
	editor    []string
	err       error
}

// ready hands the terminal to the editor on the context's file. When it
// ends, the edited file is read back and its folder removed, outside
// Update.
func (c *forkController) ready(msg whatIfReadyMsg) action {
	if msg.err != nil {
		return say(c.lang.F("what-if: %v", msg.err))
	}
	cmd := exec.Command(msg.editor[0], append(msg.editor[1:], msg.path)...)
	return action{cmd: c.exec(cmd, func(err error) tea.Msg {
		done := whatIfDoneMsg{run: msg.run, before: msg.before, err: err}
		if err == nil {
			done.after, done.readErr = os.ReadFile(msg.path)
		}
		if msg.dir != "" {
			os.RemoveAll(msg.dir) // the folder MkdirTemp made, nothing else
		}
		if msg.hold > 0 { // a tap's held request (tapController.whatIf)
			return tapEditedMsg{hold: msg.hold, before: done.before, after: done.after, err: done.err, readErr: done.readErr}
		}
		return done
	})}
}

// whatIfDoneMsg: the person's editor closed on the exported context, which
// was read back (after).
type whatIfDoneMsg struct {
	run     int
	before  []byte
	after   []byte
	err     error // the editor failed
	readErr error // the edited file could not be read back
}

func (m whatIfDoneMsg) runID() int { return m.run }

// editorCommand is $VISUAL or $EDITOR split into words, nil if neither is set.
func editorCommand() []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(os.Getenv(v)); len(f) > 0 {
			return f
		}
	}
	return nil
}

// whatIfDone takes the edited context of run r in: unchanged, invalid (the
// original stays, the error says why) or sent from now on, previewed again.
func whatIfDone(r *runView, msg whatIfDoneMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		r.notice = r.lang.F("what-if: the editor failed (%v); the context is unchanged", msg.err)
		return nil
	case msg.readErr != nil:
		r.notice = r.lang.F("what-if: cannot read the edited context: %v", msg.readErr)
		return nil
	case string(msg.after) == string(msg.before):
		r.notice = r.lang.T("what-if: nothing changed; space sends the context as it was")
		return nil
	}
	if err := r.eng.ReplaceContext(msg.after); err != nil {
		r.notice = err.Error()
		return nil
	}
	r.edit = tools.UnifiedDiff("context (assembled)", "context (edited)", string(msg.before), string(msg.after), 400)
	r.notice = r.lang.T("what-if: the edited context is what space sends now (the trace marks it \"edited\")")
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

// The reasons loop.WorkspaceError gives (loop/checkpoint.go,
// loop/journal.go), read back so a Japanese screen can say them: a step that
// may have changed files in a run without a session, and a step whose
// changes were not copied.
var (
	noSessionReason = regexp.MustCompile(`^step (\d+) ran a tool that may have changed files, and this run keeps no session to restore them from$`)
	noCopyReason    = regexp.MustCompile(`^step (\d+) changed files glassbox kept no copy of \((.*)\)$`)
)

// workspaceReason is why the workspace cannot go back to a step, in
// language l; a reason of another shape is shown as the engine wrote it.
func workspaceReason(l lang.Lang, reason string) string {
	if l != lang.JA {
		return reason
	}
	if m := noSessionReason.FindStringSubmatch(reason); m != nil {
		return l.F("step %s ran a tool that may have changed files, and this run keeps no session to restore them from", m[1])
	}
	if m := noCopyReason.FindStringSubmatch(reason); m != nil {
		return l.F("step %s changed files glassbox kept no copy of (%s)", m[1], m[2])
	}
	return reason
}
