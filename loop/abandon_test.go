package loop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Abandon: the event in progress is dropped, its file changes undone, the
// event queued after it is next — and a resumed session agrees.
func TestAbandonDropsTheEventInProgress(t *testing.T) {
	r := newSessionRig(t, calls(writeCall("notes.txt", "changed\n")), text("never"), text("the second answer"))
	r.person.approvals = []Approval{AllowOnce}
	e := r.engine
	if _, err := e.Abandon(); !errors.Is(err, ErrNoEvent) {
		t.Fatalf("abandon while idle: %v", err)
	}
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "first"})
	stepUntil(t, e, RecordingResult) // the write has happened
	notes := filepath.Join(r.ws.Root(), "notes.txt")
	if b, _ := os.ReadFile(notes); string(b) != "changed\n" {
		t.Fatalf("the write did not happen: %q", b)
	}
	e.Submit(Event{Source: "cli", Type: "user_input", Data: "second"})
	seq, err := e.Abandon()
	if err != nil {
		t.Fatal(err)
	}
	if seq != 0 || e.State() != WaitingForEvent || e.Seq() != 0 || len(e.History()) != 0 || e.QueueLen() != 1 {
		t.Fatalf("after abandon: step %d, state %s, seq %d, %d messages, %d queued", seq, e.State(), e.Seq(), len(e.History()), e.QueueLen())
	}
	if b, _ := os.ReadFile(notes); string(b) != "original\n" {
		t.Fatalf("the abandoned event's write was not undone: %q", b)
	}
	tr, err := e.Step(context.Background())
	if err != nil || tr.Edge != EdgeNewEvent || tr.Event == nil || tr.Event.Data != "second" {
		t.Fatalf("the next event is %+v (%v), want second", tr.Event, err)
	}

	// The session says the same: reopened, the run is at step 1 with
	// "second" taken and nothing left queued.
	e2, _ := r.reopen(t)
	if e2.Seq() != 1 || e2.QueueLen() != 0 || len(e2.History()) != 1 || e2.History()[0].Text != "second" {
		t.Fatalf("resumed: seq %d, %d queued, history %+v", e2.Seq(), e2.QueueLen(), e2.History())
	}
}
