package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
)

// Journal keeps one run's session on disk: each event as it is queued, a
// "begin" line before a step that acts on the world (a model call, a tool),
// and each transition with the messages it added, its checkpoint, its raw
// exchanges and the files it changed, as the step ends. The two runs of
// compare mode have a Journal each on the same session.Writer.
type Journal struct {
	w    *session.Writer
	run  string
	root string // the workspace, for snapshots

	mu  sync.Mutex
	err error // the first failure to write

	// changes[k] is what step k did to the files (nil: nothing).
	changes []*session.Changes
	// before is the workspace before the running tool step, when it may
	// change files; beforeErr says why there is none.
	before    manifest
	beforeErr string

	exchanges exchangeWriter
	answers   *KeptAnswers // the person's kept answers (KeepAnswers)

	// observed counts the messages Observed has written (with those of the
	// session it goes on with: ObservedAfter).
	observed int

	// The crash tests' hook (SetTestCrash).
	crashState State
	crashMid   bool
	crash      func()
}

// NewJournal writes the run named run (empty for a single run) to w; root
// is the run's workspace, whose files are snapshotted around the steps that
// may change them.
func NewJournal(w *session.Writer, run, root string) *Journal {
	return &Journal{w: w, run: run, root: root, changes: []*session.Changes{nil}}
}

// SetJournal makes e write its session to j from now on. Call it before
// stepping.
func (e *Engine) SetJournal(j *Journal) {
	e.journal = j
	if j != nil && len(j.changes) < len(e.checkpoints) {
		j.changes = append(j.changes, make([]*session.Changes, len(e.checkpoints)-len(j.changes))...)
	}
}

// Journal is the engine's session journal (nil without a session).
func (e *Engine) Journal() *Journal { return e.journal }

// Path is the session file.
func (j *Journal) Path() string { return j.w.Path() }

// Err is the first error met writing the session, if any: from then on the
// file is incomplete. The run itself goes on.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

func (j *Journal) fail(err error) {
	if err == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = fmt.Errorf("saving the session %s: %w", j.w.Path(), err)
	}
}

func (j *Journal) submitted(n int, ev Event) {
	data, err := json.Marshal(ev)
	if err == nil {
		err = j.w.Write(session.Record{Kind: session.KindSubmit, Run: j.run, N: n, Event: data})
	}
	j.fail(err)
}

// begin marks the start of a step that acts on the world, so that after a
// crash resume knows it was under way.
func (j *Journal) begin(e *Engine) {
	var rec session.Record
	switch e.state {
	case AwaitingLLMResponse:
		rec = session.Record{Kind: session.KindBegin, Run: j.run, Seq: e.seq + 1, State: string(e.state)}
	case ExecutingTool:
		rec = session.Record{Kind: session.KindBegin, Run: j.run, Seq: e.seq + 1, State: string(e.state)}
		if e.recovered == ExecutingTool {
			break // the manifest from before the crash stays
		}
		j.before, j.beforeErr = nil, ""
		if e.mayChangeFiles(e.call().Call.Name) {
			rec.Manifest = j.snapshot()
		}
	default:
		return
	}
	j.fail(j.w.Write(rec))
}

// snapshot scans the workspace before a tool that may change it and stores
// the manifest; it returns the manifest's hash ("" when there is none).
func (j *Journal) snapshot() string {
	m, err := scanWorkspace(j.root, j.w.Blobs())
	if err != nil {
		j.beforeErr = err.Error()
		if !errors.Is(err, errSnapshotTooLarge) {
			j.fail(err)
		}
		return ""
	}
	j.before = m
	data, err := encodeManifest(m)
	if err != nil {
		j.fail(err)
		return ""
	}
	h, err := j.w.Blobs().Put(data)
	j.fail(err)
	return h
}

// commit writes a transition as it ends.
func (j *Journal) commit(e *Engine, t *Transition, cp Checkpoint) {
	if t.From != AwaitingUserConfirmation {
		j.crashPoint(t.From, true)
	}
	defer j.crashPoint(t.To, false)
	rec := session.Record{Kind: session.KindStep, Run: j.run, Seq: t.Seq, Added: t.Added, Len: t.HistoryLen}
	var err error
	if rec.Trace, err = json.Marshal(t); err != nil {
		j.fail(err)
		return
	}
	if rec.Checkpoint, err = json.Marshal(cp); err != nil {
		j.fail(err)
		return
	}
	if t.Parse != nil {
		rec.Parse, _ = json.Marshal(t.Parse)
	}
	if len(t.Exchanges) > 0 {
		rec.Exchanges, err = j.exchanges.write(j.w, t.Exchanges)
		j.fail(err)
		t.ExchangesAt = rec.Exchanges // where a screen can read them back
	}
	if t.From == ExecutingTool && t.Tool != nil && e.mayChangeFiles(t.Tool.Name) {
		rec.Changes = j.changesSinceBefore()
	}
	j.changes = append(j.changes, rec.Changes)
	j.fail(j.w.Write(rec))
}

// Observed writes a step glassbox did not take but saw — a foreign agent's,
// made from its HTTP exchanges by loop/outside for glassbox tap — with its
// exchanges, and the checkpoint the step itself implies (no engine keeps
// one). It sets t.ExchangesAt, as commit does.
//
// The file's history is append-only: each step's messages add to it. An
// agent's own conversation may start again (a new session of the agent),
// so the length the file records is the messages written so far, not the
// agent's (t.HistoryLen).
func (j *Journal) Observed(t *Transition) {
	j.observed += len(t.Added)
	rec := session.Record{Kind: session.KindStep, Run: j.run, Seq: t.Seq, Added: t.Added, Len: j.observed}
	cp := Checkpoint{Seq: t.Seq, State: t.To, Iteration: t.Iteration, HistoryLen: j.observed, Pending: t.Pending}
	var err error
	if rec.Trace, err = json.Marshal(t); err == nil {
		rec.Checkpoint, err = json.Marshal(cp)
	}
	if err != nil {
		j.fail(err)
		return
	}
	if len(t.Exchanges) > 0 {
		rec.Exchanges, err = j.exchanges.write(j.w, t.Exchanges)
		j.fail(err)
		t.ExchangesAt = rec.Exchanges
	}
	j.fail(j.w.Write(rec))
}

// ObservedAfter says the session already holds n messages: a resumed tap
// session's steps, which Observed's go on from.
func (j *Journal) ObservedAfter(n int) { j.observed = n }

func (j *Journal) changesSinceBefore() *session.Changes {
	defer func() { j.before, j.beforeErr = nil, "" }()
	if j.before == nil {
		why := j.beforeErr
		if why == "" {
			why = "no copy of the files was taken before this step"
		}
		return &session.Changes{Unrestorable: why}
	}
	after, err := scanWorkspace(j.root, j.w.Blobs())
	if err != nil {
		return &session.Changes{Unrestorable: err.Error()}
	}
	files := diffManifests(j.before, after)
	if len(files) == 0 {
		return nil
	}
	return &session.Changes{Files: files}
}

// answered keeps a person's answer the moment it is given.
func (j *Journal) answered(seq int, a Approval) {
	n := int(a)
	j.fail(j.w.Write(session.Record{Kind: session.KindAnswer, Run: j.run, Seq: seq, Approval: &n}))
	j.crashPoint(AwaitingUserConfirmation, true)
}

// questionAnswered keeps an answer to ask_user the moment it is given.
func (j *Journal) questionAnswered(answer string) {
	j.fail(j.w.Write(session.Record{Kind: session.KindAnswer, Run: j.run, Answer: answer}))
}

// SetTestCrash is for the crash tests only (GLASSBOX_TEST_CRASH_AT): crash
// is called when the run enters state (the step into it is on disk), or,
// with mid, when the step from state has done its work — the model
// answered, the tool ran, the person answered — and is not yet on disk.
func (j *Journal) SetTestCrash(state State, mid bool, crash func()) {
	j.crashState, j.crashMid, j.crash = state, mid, crash
}

func (j *Journal) crashPoint(s State, mid bool) {
	if j.crash != nil && j.crashState == s && j.crashMid == mid {
		j.crash()
	}
}

// restore puts back the files the steps after seq changed, or says why it
// cannot, changing nothing.
func (j *Journal) restore(seq int) error {
	var undo []*session.Changes
	for s := seq + 1; s < len(j.changes); s++ {
		c := j.changes[s]
		if c == nil {
			continue
		}
		if c.Unrestorable != "" {
			return &WorkspaceError{Step: seq, Reason: fmt.Sprintf("step %d changed files glassbox kept no copy of (%s)", s, c.Unrestorable)}
		}
		undo = append(undo, c)
	}
	if len(undo) == 0 {
		return nil
	}
	if err := undoChanges(j.root, j.w.Blobs(), undo); err != nil {
		return &WorkspaceError{Step: seq, Reason: err.Error()}
	}
	return nil
}

// fork writes that the run goes on from step seq.
func (j *Journal) fork(e *Engine, seq int, added []history.Message, onto *forkOnto) {
	j.changes = j.changes[:min(seq+1, len(j.changes))]
	e.mu.Lock()
	n := len(e.submitted)
	e.mu.Unlock()
	rec := session.Record{Kind: session.KindFork, Run: j.run, Seq: seq, N: n, Len: e.log.Len(), Added: added}
	if onto != nil {
		rec.Provider, rec.ToolMode, rec.Model, rec.Note = onto.Provider.Name(), onto.Dialect.ToolMode, onto.Provider.Model(), onto.Note
	}
	j.fail(j.w.Write(rec))
}
