package loop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// errInterrupted is the failure of a tool that was running when glassbox
// stopped (a crash): on resume it is recorded, never run a second time.
var errInterrupted = errors.New("interrupted: glassbox stopped while this tool was running, so it may have done part or all of its work (check the workspace); it was not run again")

// Checkpoint is the engine as it was after one step: everything Step reads,
// except the messages themselves (HistoryLen of them). The session file
// keeps one per step; time travel shows them; Fork returns to one.
type Checkpoint struct {
	Seq        int                 `json:"seq"`
	State      State               `json:"state"`
	Iteration  int                 `json:"iteration"`
	HistoryLen int                 `json:"history_len"`
	Notes      int                 `json:"notes,omitempty"` // of HistoryLen, the notes (never sent)
	Event      *Event              `json:"event,omitempty"`
	Pending    []PendingCall       `json:"pending,omitempty"`
	Current    int                 `json:"current,omitempty"`
	ToolOut    *history.ToolResult `json:"tool_out,omitempty"`
	Feedback   string              `json:"feedback,omitempty"`
	Failure    *ErrorRecord        `json:"failure,omitempty"`
	Final      string              `json:"final,omitempty"`
	// Fault is the kind of unusable reply last fed back (see the halt
	// rule in Engine.read); LastStop the stop reason of the event's last
	// reply, which a HALTED message names.
	Fault    string `json:"fault,omitempty"`
	LastStop string `json:"last_stop,omitempty"`
	// Taken of Submitted events had left the queue.
	Taken     int `json:"taken"`
	Submitted int `json:"submitted"`
	// Grants are the calls the person allowed for the session so far.
	Grants []history.ToolCall `json:"grants,omitempty"`

	// unsealed marks a checkpoint read from a session file without this
	// user's seal (session.Key): its grants were dropped, and a step it
	// left in EXECUTING_TOOL goes back to CHECKING_POLICY, so nothing the
	// file says the person approved runs without them.
	unsealed bool
}

func (e *Engine) checkpoint() Checkpoint {
	e.mu.Lock()
	submitted := len(e.submitted)
	e.mu.Unlock()
	return Checkpoint{
		Seq: e.seq, State: e.state, Iteration: e.iteration, HistoryLen: e.log.Len(), Notes: e.notes,
		Event: e.event, Pending: slices.Clone(e.pending), Current: e.current, ToolOut: e.toolOut,
		Feedback: e.feedback, Failure: e.failure, Final: e.final, Fault: e.fault, LastStop: e.lastStop,
		Taken: e.taken, Submitted: submitted, Grants: e.cfg.Policy.Grants(),
	}
}

// restore puts the engine back to cp, with the history cut to its length.
// The caller holds e.stepping.
func (e *Engine) restore(cp Checkpoint) {
	e.seq, e.state, e.iteration = cp.Seq, cp.State, cp.Iteration
	e.log.Truncate(cp.HistoryLen)
	e.countNotes()
	e.event, e.pending, e.current = cp.Event, slices.Clone(cp.Pending), cp.Current
	e.toolOut, e.feedback, e.failure, e.final = cp.ToolOut, cp.Feedback, cp.Failure, cp.Final
	e.fault, e.lastStop = cp.Fault, cp.LastStop
	e.taken = cp.Taken
	e.mu.Lock()
	if cp.Submitted <= len(e.submitted) {
		e.submitted = slices.Clip(e.submitted[:cp.Submitted])
	}
	e.queue = slices.Clone(e.submitted[min(cp.Taken, len(e.submitted)):])
	e.mu.Unlock()
	e.cfg.Policy.SetGrants(cp.Grants)
	e.recovered, e.answer = "", nil
	e.clearEdit()
	if cp.unsealed && e.state == ExecutingTool && e.current < len(e.pending) {
		// The file says this call was allowed; whether it was is for the
		// policy, and the person, to say again.
		e.state = CheckingPolicy
		e.pending[e.current].Status, e.pending[e.current].Decision, e.pending[e.current].Approval = CallPending, nil, nil
	}
	e.reassemble()
}

// sendable is the history as a model sees it: without notes. Notes come
// only with forks and edits, so the common case costs nothing.
func (e *Engine) sendable() []history.Message {
	if e.notes == 0 {
		return e.log.Messages()
	}
	return history.WithoutNotes(e.log.Messages())
}

// countNotes counts the notes after the history was cut or replaced.
func (e *Engine) countNotes() {
	e.notes = 0
	for _, m := range e.log.Messages() {
		if m.Role == history.RoleNote {
			e.notes++
		}
	}
}

// reassemble rebuilds the context about to be sent, in AWAITING_LLM_RESPONSE.
func (e *Engine) reassemble() {
	if e.state == AwaitingLLMResponse {
		e.request = providers.Request{System: e.cfg.System, Messages: e.sendable(), Tools: e.specs}
	}
}

// Seq is the number of the last step taken (0 before the first).
func (e *Engine) Seq() int { return e.seq }

// Checkpoint returns the engine as it was after step seq (0: the start).
// Read it only between Steps.
func (e *Engine) Checkpoint(seq int) (Checkpoint, bool) {
	if seq < 0 || seq >= len(e.checkpoints) {
		return Checkpoint{}, false
	}
	return e.checkpoints[seq], true
}

// HistoryAt returns the conversation as it was after step seq.
func (e *Engine) HistoryAt(seq int) []history.Message {
	cp, ok := e.Checkpoint(seq)
	if !ok {
		return nil
	}
	return e.log.Upto(cp.HistoryLen)
}

// ErrWorkspaceNotRestorable says a fork cannot put the workspace back as it
// was at the step (see WorkspaceError); ForkKeepingFiles forks anyway.
var ErrWorkspaceNotRestorable = errors.New("the workspace cannot be restored")

// WorkspaceError is a fork refused because the files cannot go back to how
// they were at the step. The UI can turn it into a question.
type WorkspaceError struct {
	Step   int    // the step of the fork
	Reason string // why: which later step, and what is missing
}

func (e *WorkspaceError) Error() string {
	return fmt.Sprintf("forking from step %d: the workspace cannot be restored: %s", e.Step, e.Reason)
}

func (e *WorkspaceError) Unwrap() error { return ErrWorkspaceNotRestorable }

// Fork continues from step seq as if the later steps had never happened:
// the history, pending calls, iteration, queue and session grants go back to
// that step, and so do the workspace's files (what later write_file and
// execute_command steps changed is put back). The abandoned steps stay in
// the session file. When the files cannot be put back, nothing changes and
// the error is a *WorkspaceError.
func (e *Engine) Fork(seq int) error { return e.fork(seq, true) }

// ForkKeepingFiles is Fork without touching the workspace: for when a
// person chose to go on although the files cannot be restored.
func (e *Engine) ForkKeepingFiles(seq int) error { return e.fork(seq, false) }

func (e *Engine) fork(seq int, files bool) error {
	if !e.stepping.TryLock() {
		return ErrBusy
	}
	defer e.stepping.Unlock()
	return e.forkLocked(seq, files, nil, -1)
}

// forkLocked is Fork with e.stepping held; onto, when not nil, is the
// provider to continue with; events, when not negative, is how many of the
// events submitted so far stay (Abandon drops the one in progress).
func (e *Engine) forkLocked(seq int, files bool, onto *forkOnto, events int) error {
	cp, ok := e.Checkpoint(seq)
	if !ok {
		return fmt.Errorf("there is no step %d to fork from (steps 0 to %d)", seq, len(e.checkpoints)-1)
	}
	if files {
		if err := e.restoreFiles(seq); err != nil {
			return err
		}
	}
	e.restore(cp)
	e.checkpoints = slices.Clip(e.checkpoints[:seq+1])
	if events >= 0 {
		e.mu.Lock()
		e.submitted = slices.Clip(e.submitted[:min(events, len(e.submitted))])
		e.queue = slices.Clone(e.submitted[min(e.taken, len(e.submitted)):])
		e.checkpoints[seq].Submitted = len(e.submitted)
		e.mu.Unlock()
	}
	var added []history.Message
	rec := ForkRecord{Run: e.cfg.Run, Fork: ForkInfo{From: seq, Provider: e.cfg.Provider.Name(), Model: e.cfg.Provider.Model(), ToolMode: e.dialect.ToolMode}}
	if onto != nil {
		added = e.switchProvider(onto)
		e.reassemble()
		rec.Fork = ForkInfo{From: seq, Provider: onto.Provider.Name(), Model: onto.Provider.Model(), ToolMode: onto.Dialect.ToolMode, Note: onto.Note}
	}
	// The fork's note belongs to the step it was made at: going back to
	// that step later keeps it (the session folds it into the step too).
	e.checkpoints[seq].HistoryLen, e.checkpoints[seq].Notes = e.log.Len(), e.notes
	if e.journal != nil {
		e.journal.fork(e, seq, added, onto)
	}
	if e.cfg.OnFork != nil {
		e.cfg.OnFork(rec)
	}
	return nil
}

// restoreFiles puts back the files the steps after seq changed.
func (e *Engine) restoreFiles(seq int) error {
	if e.journal == nil {
		for s := seq + 1; s < len(e.checkpoints); s++ {
			if e.changedFiles(e.checkpoints[s-1]) {
				return &WorkspaceError{Step: seq, Reason: fmt.Sprintf("step %d ran a tool that may have changed files, and this run keeps no session to restore them from", s)}
			}
		}
		return nil
	}
	return e.journal.restore(seq)
}

// changedFiles reports whether the step after a ran a tool that may change
// files.
func (e *Engine) changedFiles(a Checkpoint) bool {
	if a.State != ExecutingTool || a.Current >= len(a.Pending) {
		return false
	}
	return e.mayChangeFiles(a.Pending[a.Current].Call.Name)
}
