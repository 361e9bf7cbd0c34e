package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
)

// Resume builds an engine that continues a run from its session log: the
// history, the step count, the state and what it was doing, the queue (every
// event submitted and not yet taken) and the session grants, exactly as
// after the last step in the file. j, if not nil, goes on writing the same
// session.
//
// A step that began and never ended (glassbox was killed in it) is taken
// up again from its start: a model call is sent again (the trace marks it
// "resent"); a tool is not run a second time but recorded as interrupted,
// with whatever it changed in the workspace. Recovery says what was found,
// for the person ("" when the session ended cleanly).
func Resume(cfg Config, rl *session.RunLog, j *Journal) (e *Engine, recovery string, err error) {
	e, err = New(cfg)
	if err != nil {
		return nil, "", err
	}
	unsealed, err := e.readCheckpoints(rl, j)
	if err == nil {
		err = e.readHistory(rl)
	}
	if err != nil {
		return nil, "", err
	}
	e.restoreLast(rl)
	if j != nil {
		e.continueJournal(rl, j)
	}
	recovery, err = e.savedAnswer(rl, j)
	if err != nil {
		return nil, "", err
	}
	if unsealed > 0 && recovery == "" {
		recovery = "the session file's approvals carry no seal of this user's (the file was written elsewhere, by an older glassbox, or edited): calls allowed for the session are asked about again, and a call it left about to run goes back to the policy"
	}
	return e, e.takeUpInterrupted(rl, j, recovery), nil
}

// readCheckpoints reads the checkpoint after each step, refusing one no
// engine could have written. A session file is untrusted input: the
// approvals in a step count only under this user's seal (j's); unsealed
// is how many steps held approvals, or a call about to run, without it.
func (e *Engine) readCheckpoints(rl *session.RunLog, j *Journal) (unsealed int, err error) {
	for _, st := range rl.Steps {
		cp, err := stepCheckpoint(st)
		if err != nil || cp.Seq != st.Seq {
			return 0, fmt.Errorf("%w: step %d has no readable checkpoint", session.ErrCorrupt, st.Seq)
		}
		if err := checkCheckpoint(cp); err != nil {
			return 0, fmt.Errorf("%w: step %d: %v", session.ErrCorrupt, st.Seq, err)
		}
		if j == nil || !j.w.Sealed(st) {
			if len(cp.Grants) > 0 || cp.State == ExecutingTool {
				unsealed++
			}
			cp.Grants, cp.unsealed = nil, true
		}
		e.checkpoints = append(e.checkpoints, cp)
	}
	return unsealed, nil
}

// readHistory takes the run's messages and the events submitted to it,
// checking both against the last step.
func (e *Engine) readHistory(rl *session.RunLog) error {
	last := e.checkpoints[len(e.checkpoints)-1]
	e.log.Append(rl.Messages...)
	e.countNotes()
	if rl.Edit == nil && e.log.Len() != last.HistoryLen {
		return fmt.Errorf("%w: the history holds %d messages, step %d says %d", session.ErrCorrupt, e.log.Len(), last.Seq, last.HistoryLen)
	}
	for i, raw := range rl.Submitted {
		var ev Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("%w: event %d is not readable: %v", session.ErrCorrupt, i+1, err)
		}
		e.submitted = append(e.submitted, ev)
	}
	if last.Taken > len(e.submitted) {
		return fmt.Errorf("%w: step %d took %d events of %d submitted", session.ErrCorrupt, last.Seq, last.Taken, len(e.submitted))
	}
	return nil
}

// restoreLast puts the engine where the last step left it, with the
// events typed after it still queued, the system prompt the run had, and
// a what-if edit made after the step and not yet sent.
func (e *Engine) restoreLast(rl *session.RunLog) {
	last := e.checkpoints[len(e.checkpoints)-1]
	last.Submitted = len(e.submitted) // events typed after the last step are kept
	system := e.cfg.System            // as assembled, before any what-if edit
	if rl.System != "" {
		e.cfg.System = rl.System
	}
	last.HistoryLen = e.log.Len()
	e.restore(last)
	if rl.Edit != nil && e.state == AwaitingLLMResponse {
		e.resumeEdit(rl, system)
	}
}

// continueJournal has j go on writing the session, with each step's
// changed files to restore on a fork: only those under this user's seal.
func (e *Engine) continueJournal(rl *session.RunLog, j *Journal) {
	j.changes = []*session.Changes{nil}
	for _, st := range rl.Steps {
		c := st.Changes
		if c != nil && !j.w.Sealed(st) {
			// A fork writes these files back into the workspace: not on
			// the word of a file anyone could have written.
			c = &session.Changes{Unrestorable: "the session file carries no seal of this user's for this step, so glassbox does not write its files back"}
		}
		j.changes = append(j.changes, c)
	}
	e.SetJournal(j)
}

// savedAnswer takes up a person's answer to the confirmation the run
// stopped at, saved before glassbox stopped: a denial always, an approval
// only under this user's seal. It returns what it found, for the person.
func (e *Engine) savedAnswer(rl *session.RunLog, j *Journal) (recovery string, err error) {
	a := rl.Answer
	if a == nil || a.Approval == nil || a.Seq != e.seq+1 || e.state != AwaitingUserConfirmation {
		return "", nil
	}
	approval := Approval(*a.Approval)
	switch {
	case approval != Deny && approval != AllowOnce && approval != AllowSession:
		return "", fmt.Errorf("%w: step %d: an answer %d that is no approval", session.ErrCorrupt, a.Seq, *a.Approval)
	case approval == Deny || j != nil && j.w.Sealed(*a):
		e.answer = &approval
		return fmt.Sprintf("step %d: the person's answer (%s) was saved before glassbox stopped; it is not asked again", a.Seq, approval), nil
	}
	return fmt.Sprintf("step %d: the file holds an approval (%s) without this user's seal; approvals are never taken from a file, so the person is asked again", a.Seq, approval), nil
}

// takeUpInterrupted takes up a step that began and never ended: a model
// call is sent again; a tool that may change files is recorded as
// interrupted, with what it changed; one that changes nothing runs again
// (with the person's saved answer, for ask_user). It returns recovery, or
// what it found instead.
func (e *Engine) takeUpInterrupted(rl *session.RunLog, j *Journal, recovery string) string {
	in := rl.Interrupted
	if in == nil || in.Seq != e.seq+1 || State(in.State) != e.state {
		return recovery
	}
	e.recovered = e.state
	switch e.state {
	case AwaitingLLMResponse:
		return fmt.Sprintf("step %d was interrupted while the model call was in flight: it is sent again", in.Seq)
	case ExecutingTool:
		call := e.call().Call
		recovery = fmt.Sprintf("step %d was interrupted while %s ran: it is recorded as interrupted, not run again (it may have changed the workspace)", in.Seq, call.Name)
		if !e.mayChangeFiles(call.Name) {
			recovery = e.rerunTool(rl, j, in.Seq, call.Name)
		}
		e.filesBefore(j, in, call.Name)
	}
	return recovery
}

// rerunTool is the recovery of an interrupted tool that changes nothing:
// it runs again, with the person's answer if one was saved.
func (e *Engine) rerunTool(rl *session.RunLog, j *Journal, seq int, tool string) string {
	a := rl.Answer
	if a == nil || a.Approval != nil || j == nil || j.answers == nil {
		return fmt.Sprintf("step %d was interrupted while %s ran: it changes nothing, so it runs again", seq, tool)
	}
	answer := a.Answer
	j.answers.mu.Lock()
	j.answers.replay = &answer
	j.answers.mu.Unlock()
	return fmt.Sprintf("step %d was interrupted after the person answered %s's question: the answer is used, not asked again", seq, tool)
}

// filesBefore reads the workspace's files as they were before the
// interrupted tool ran, from the manifest saved under this user's seal,
// or notes why they cannot be restored.
func (e *Engine) filesBefore(j *Journal, in *session.Record, tool string) {
	switch {
	case j != nil && in.Manifest != "" && j.w.Sealed(*in):
		data, err := j.w.Blobs().Get(in.Manifest)
		if err == nil {
			j.before, err = decodeManifest(data)
		}
		if err != nil {
			j.beforeErr = err.Error()
		}
	case j != nil && e.mayChangeFiles(tool):
		j.beforeErr = "glassbox stopped before it could copy the files"
	}
}

// resumeEdit takes up a what-if edit made after the last step and not yet
// sent: it is sent with the same account of what changed. system is the
// default system prompt.
func (e *Engine) resumeEdit(rl *session.RunLog, system string) {
	if rl.EditSystem != "" {
		system = rl.EditSystem // an earlier edit's, as assembled
	}
	e.edited, e.editBase, e.editSystem = true, rl.EditBase, system
	e.edit = diffContext(system, e.cfg.System, rl.EditBase, rl.Messages, e.mask.Mask)
}

// stepCheckpoint reads the engine's checkpoint after a step. A fork onto
// another dialect made at the step added its note after the step was
// written; the session folds the note into the step's record (Added, Len),
// and the checkpoint counts it as the engine's own did.
func stepCheckpoint(st session.Record) (Checkpoint, error) {
	var cp Checkpoint
	if err := json.Unmarshal(st.Checkpoint, &cp); err != nil {
		return cp, err
	}
	if extra := st.Len - cp.HistoryLen; extra > 0 && extra <= len(st.Added) {
		for _, m := range st.Added[len(st.Added)-extra:] {
			if m.Role == history.RoleNote {
				cp.Notes++
			}
		}
		cp.HistoryLen = st.Len
	}
	return cp, nil
}

// Recovered is the state whose step is taken up again after a crash ("" if
// none): the next Step re-sends the model call or records the tool as
// interrupted.
func (e *Engine) Recovered() State { return e.recovered }

// CassettePosition is how many HTTP exchanges the run's model calls had
// used, in the order they were made, by the time its step from was taken
// (from < 0: by its last step): where a replayed run resumed from that step
// goes on in its cassette. Each model call used one exchange per attempt.
// A step abandoned by a fork to an earlier step than from came before it;
// one abandoned by a fork to from or later came after it.
func CassettePosition(rl *session.RunLog, from int) int {
	used := func(r session.Record) int {
		var t struct {
			LLM *struct {
				Retries []json.RawMessage `json:"retries"`
			} `json:"llm"`
		}
		if json.Unmarshal(r.Trace, &t) != nil || t.LLM == nil {
			return 0
		}
		return 1 + len(t.LLM.Retries)
	}
	n := 0
	for _, st := range rl.Steps {
		if from < 0 || st.Seq <= from {
			n += used(st)
		}
	}
	for _, branch := range rl.Branches {
		if len(branch) == 0 || (from >= 0 && branch[0].Seq-1 >= from) {
			continue
		}
		for _, st := range branch {
			n += used(st)
		}
	}
	return n
}

// SessionTransitions reads back a run's steps as the transition records
// the UI draws, with their messages, checkpoints, parse steps and (when
// exchanges is true) raw HTTP exchanges from the file beside the session.
func SessionTransitions(path string, rl *session.RunLog, exchanges bool) ([]Transition, error) {
	out := make([]Transition, 0, len(rl.Steps))
	reader := NewExchangeReader(path, 0)
	for _, st := range rl.Steps {
		var t Transition
		if err := json.Unmarshal(st.Trace, &t); err != nil {
			return nil, fmt.Errorf("%w: step %d: %v", session.ErrCorrupt, st.Seq, err)
		}
		cp, err := stepCheckpoint(st)
		if err != nil {
			return nil, fmt.Errorf("%w: step %d: %v", session.ErrCorrupt, st.Seq, err)
		}
		t.Added, t.HistoryLen, t.Notes, t.Pending, t.ExchangesAt = st.Added, st.Len, cp.Notes, cp.Pending, st.Exchanges
		t.QueueLen = cp.Submitted - cp.Taken
		if len(st.Parse) > 0 {
			t.Parse = new(providers.ParseStep)
			if err := json.Unmarshal(st.Parse, t.Parse); err != nil {
				return nil, fmt.Errorf("%w: step %d: %v", session.ErrCorrupt, st.Seq, err)
			}
		}
		if exchanges && st.Exchanges != nil {
			x, err := reader.Load(st)
			if err != nil {
				return nil, err
			}
			t.Exchanges = x
		}
		out = append(out, t)
	}
	return out, nil
}

// LoadExchanges reads one step's raw HTTP exchanges from beside the session
// file, so a screen can keep only the payloads near the step it shows.
func LoadExchanges(path string, st session.Record) ([]providers.Exchange, error) {
	return NewExchangeReader(path, 0).Load(st)
}

// checkCheckpoint refuses a checkpoint no engine could have written: a
// session file is untrusted input, and a forged one must end in a message,
// never in a panic on the first step.
func checkCheckpoint(cp Checkpoint) error {
	if err := checkCounts(cp); err != nil {
		return err
	}
	return checkPending(cp)
}

// checkCounts refuses an unknown state, a negative count, more events
// taken than submitted, a current call past the pending ones, and a step
// of the loop with no event.
func checkCounts(cp Checkpoint) error {
	switch {
	case !slices.Contains(States, cp.State):
		return fmt.Errorf("an unknown state %q", cp.State)
	case cp.Iteration < 0 || cp.HistoryLen < 0 || cp.Notes < 0:
		return errors.New("a negative count")
	case cp.Taken < 0 || cp.Submitted < cp.Taken:
		return fmt.Errorf("%d events taken of %d submitted", cp.Taken, cp.Submitted)
	case cp.Current < 0 || cp.Current > len(cp.Pending):
		return fmt.Errorf("call %d of %d", cp.Current, len(cp.Pending))
	case cp.State != WaitingForEvent && cp.Event == nil:
		return fmt.Errorf("%s with no event", cp.State)
	}
	return nil
}

// checkPending refuses a state about a call with no call pending, and a
// confirmation with no decision to confirm.
func checkPending(cp Checkpoint) error {
	switch cp.State {
	case CheckingPolicy, AwaitingUserConfirmation, ExecutingTool:
		if cp.Current == len(cp.Pending) {
			return fmt.Errorf("%s with no call pending", cp.State)
		}
	case RecordingResult, RecordingError:
		if cp.ToolOut != nil && cp.Current == len(cp.Pending) {
			return fmt.Errorf("%s of a call that is not pending", cp.State)
		}
	}
	if cp.State == AwaitingUserConfirmation && cp.Pending[cp.Current].Decision == nil {
		return errors.New("a confirmation with no decision to confirm")
	}
	return nil
}
