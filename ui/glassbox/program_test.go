package glassbox

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/glassbox-dev/glassbox/loop"
)

// TestProgramRunsALesson runs the model inside a real Bubble Tea program
// (teatest): the step commands run on their own goroutines as they do in
// the terminal, the modal's answer travels back through the Person.
func TestProgramRunsALesson(t *testing.T) {
	w := newWorld(t, tourScript()...)
	m := New(w.config())
	m.animate = false
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))

	tm.Send(keyMsg("enter")) // the tour lesson
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("press space to take it"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("c"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("answer delivered to ui"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("q")) // a run with history asks first
	tm.Send(keyMsg("y"))

	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if !ok {
		t.Fatal("the final model is not a glassbox.Model")
	}
	if fm.runs[0].live.state != loop.WaitingForEvent || len(fm.runs[0].live.steps) != 14 {
		t.Fatalf("final state %s after %d steps", fm.runs[0].live.state, len(fm.runs[0].live.steps))
	}
}

// TestProgramConfirmationRoundTrip answers a confirmation inside a running
// program.
func TestProgramConfirmationRoundTrip(t *testing.T) {
	w := newWorld(t, reply{calls: writeCall()}, reply{text: "written"})
	m := New(w.config())
	m.animate = false
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("write it")})
	tm.Send(keyMsg("enter"))
	tm.Send(keyMsg("c"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("allow this exact call for the session"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("y"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("written"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("q")) // a run with history asks first
	tm.Send(keyMsg("y"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if fm.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s", fm.runs[0].live.state)
	}
}
