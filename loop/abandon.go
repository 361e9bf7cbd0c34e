package loop

import (
	"errors"
	"slices"
)

// ErrNoEvent says there is no event in progress to abandon.
var ErrNoEvent = errors.New("no event is in progress: the loop is waiting for one")

// Abandon drops the event in progress, for a person who wants the loop to
// turn to something else now: the run goes back to the step before the
// loop took the event (a Fork: the history, the iteration count and the
// workspace's files as they were then), the event leaves the queue, and the
// events queued after it stay queued, in order. It returns the step it went
// back to. The steps taken for the event stay in the session file as an
// abandoned branch. Like Fork it refuses while a step runs (ErrBusy), and a
// *WorkspaceError says the files cannot go back (AbandonKeepingFiles goes on
// without them).
func (e *Engine) Abandon() (int, error) { return e.abandon(true) }

// AbandonKeepingFiles is Abandon leaving the workspace's files as they are.
func (e *Engine) AbandonKeepingFiles() (int, error) { return e.abandon(false) }

func (e *Engine) abandon(files bool) (int, error) {
	if !e.stepping.TryLock() {
		return 0, ErrBusy
	}
	defer e.stepping.Unlock()
	if e.state == WaitingForEvent {
		return 0, ErrNoEvent
	}
	// The latest step that waited for an event is the one before new_event
	// took this one: the loop leaves WAITING_FOR_EVENT only by taking one.
	seq := -1
	for i := len(e.checkpoints) - 1; i >= 0; i-- {
		if e.checkpoints[i].State == WaitingForEvent {
			seq = i
			break
		}
	}
	if seq < 0 {
		return 0, errors.New("abandon: no step before this event was kept, so there is nowhere to go back to")
	}
	e.mu.Lock()
	later := slices.Clone(e.submitted[min(e.taken, len(e.submitted)):])
	e.mu.Unlock()
	// The event the loop took after that step is the abandoned one: keep
	// only the events taken before it, then queue the later ones again.
	if err := e.forkLocked(seq, files, nil, e.checkpoints[seq].Taken); err != nil {
		return 0, err
	}
	for _, ev := range later {
		e.Submit(ev)
	}
	return seq, nil
}
