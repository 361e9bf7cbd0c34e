package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
)

// Issue 10: what a learner trips over in the first ten minutes.

// A sentence typed while the stepper has the keyboard lands in the input
// whole: the q of "quickly" quits nothing, no letter is lost.
func TestTypingAtTheStepperGoesToTheInput(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("enter", "c") // the tour lesson, run to the answer
	if h.m.inputFocused {
		t.Fatal("after enter the stepper should have the keyboard")
	}
	// All at once, as tmux send-keys or a fast typist delivers it.
	h.typeText("quickly list the files")
	if h.quit {
		t.Fatal("typing a sentence quit glassbox")
	}
	if !h.m.inputFocused || h.m.input.Value() != "quickly list the files" {
		t.Fatalf("input %q (focused %v)", h.m.input.Value(), h.m.inputFocused)
	}
	contains(t, h.plainView(), "typing into the input")

	// One key at a time: q asks, u is not a key, so "qu" is typed.
	h.press("esc")
	h.m.input.Reset()
	for _, r := range "quickly" {
		h.press(string(r))
	}
	if h.quit || h.m.input.Value() != "quickly" {
		t.Fatalf("quit %v, input %q", h.quit, h.m.input.Value())
	}

	// A letter that is not a stepper key starts typing too.
	h.press("esc")
	h.m.input.Reset()
	h.press("s", "h", "o", "w")
	if h.m.input.Value() != "show" {
		t.Fatalf("input %q", h.m.input.Value())
	}
}

// q on a run with history asks; y or a second q quits, n stays. On a
// fresh screen q quits at once. Both overlays close on q and never quit.
func TestQuitAsksWhenThereIsHistory(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc", "q")
	if !h.quit {
		t.Fatal("q on a fresh screen should quit")
	}

	w = newWorld(t, tourScript()...)
	h = newHarness(t, w.config(), 120, 34)
	h.press("enter", "space")
	h.press("q")
	if h.quit {
		t.Fatal("q quit a run with history without asking")
	}
	v := h.plainView()
	contains(t, v, "quit glassbox?")
	contains(t, v, "y/q quit")
	h.press("n")
	if h.quit || h.m.quitAsked {
		t.Fatal("n should stay")
	}
	h.press("?", "q")
	if h.quit || h.m.helpOpen {
		t.Fatalf("q in the help overlay: quit %v, open %v", h.quit, h.m.helpOpen)
	}
	h.press("l", "q")
	if h.quit || h.m.lessons != nil {
		t.Fatalf("q in the lessons menu: quit %v, open %v", h.quit, h.m.lessons != nil)
	}
	h.press("q", "q")
	if !h.quit {
		t.Fatal("q twice should quit")
	}
}

// The input line's help and placeholder name no key that would be typed
// into the input (? or l): the first screen teaches the real first moves.
func TestInputHelpAdvertisesNoTypingKeys(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("x") // the placeholder goes; the help line stays
	lines := strings.Split(h.plainView(), "\n")
	help := lines[len(lines)-2]
	for _, bad := range []string{"? help", "l lessons", "q quit"} {
		if strings.Contains(help, bad) {
			t.Fatalf("the input's help line offers %q: %q", bad, help)
		}
	}
	h.press("ctrl+c") // nothing in flight: quits; a fresh one for the placeholder
	w = newWorld(t)
	cfg := w.config()
	cfg.Lesson = ""
	h = newHarness(t, cfg, 120, 34)
	if strings.Contains(h.m.input.Placeholder, "· l lessons") {
		t.Fatalf("placeholder %q offers l while l types", h.m.input.Placeholder)
	}
	contains(t, h.plainView(), "esc, then l: lessons")
}

// The approval dialog opens in the step that enters
// AWAITING_USER_CONFIRMATION; esc hides it (no denial), the look keys
// work while it is open or hidden, space brings it back, y approves.
func TestApprovalOpensInTheStepThatAsks(t *testing.T) {
	w := newWorld(t, reply{calls: writeCall()}, reply{text: "ok"})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("write")
	h.press("enter")
	h.stepUntil(loop.CheckingPolicy)
	h.press("space")
	r := h.m.runs[0]
	if r.live.state != loop.AwaitingUserConfirmation {
		t.Fatalf("state %s", r.live.state)
	}
	if r.confirm == nil {
		t.Fatal("the step that entered AWAITING_USER_CONFIRMATION opened no dialog")
	}
	contains(t, h.plainView(), "Confirm: write_file")
	n := len(r.live.steps)

	// [ works with the dialog open: back to the response that asked.
	h.press("[")
	if !r.live.travelling() || r.confirm == nil {
		t.Fatalf("[ with the dialog open: travelling %v, dialog %v", r.live.travelling(), r.confirm != nil)
	}
	h.press("]")
	// tab moves the focus under the dialog.
	before := h.m.pane
	h.press("tab")
	if h.m.pane == before {
		t.Fatal("tab did nothing while the dialog was open")
	}

	h.press("esc")
	if r.confirm == nil || h.m.dialogRun() != nil || !r.hidden {
		t.Fatal("esc should hide the dialog, not answer it")
	}
	if len(r.live.steps) != n || slices.Contains(h.edges(), loop.EdgeUserDenial) {
		t.Fatalf("esc took a transition: %v", h.edges())
	}
	contains(t, h.plainView(), "dialog is hidden")
	h.press("r") // the payload pane's request/response
	h.press("space")
	if h.m.dialogRun() == nil {
		t.Fatal("space should bring the dialog back")
	}
	h.press("y")
	if r.live.state != loop.ExecutingTool || r.confirm != nil {
		t.Fatalf("state %s after y", r.live.state)
	}
	if got := h.edges()[len(h.edges())-1]; got != loop.EdgeUserApproval {
		t.Fatalf("last edge %s", got)
	}
}

// Stepping with n into an ask_user question does not type n into the
// answer: the first n after the question opened is held back, with a word.
func TestSteppingWithNIntoAQuestionTypesNothing(t *testing.T) {
	ask := map[string]any{"question": "Which file?"}
	w := newWorld(t, reply{calls: []history.ToolCall{call("a1", "ask_user", ask)}}, reply{text: "ok"})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("ask me")
	h.press("enter")
	for h.m.runs[0].ask == nil {
		if len(h.m.runs[0].live.steps) > 20 {
			t.Fatalf("no question; states %v", h.states())
		}
		h.press("n")
	}
	h.press("n")
	if got := h.m.runs[0].ask.text.Value(); got != "" {
		t.Fatalf("stepping with n typed %q into the answer", got)
	}
	contains(t, h.plainView(), "press n again to type it")
	h.press("n", "o", "enter", "space") // answer; record the result
	var results []string
	for _, e := range h.m.runs[0].hist.entries {
		if e.kind == entryResult {
			results = append(results, e.text)
		}
	}
	if !slices.Equal(results, []string{"no"}) {
		t.Fatalf("answers %q", results)
	}
}
