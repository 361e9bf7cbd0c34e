package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/loop"
)

// Predict mode through the tour: a state with one way out steps at once;
// elsewhere space asks first, the step runs, and History says right or
// wrong with the reason; the score is the lesson's.
func TestPredictModeAsksThenScores(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.Predict = true
	h := newHarness(t, cfg, 160, 48)
	h.press("enter")
	h.press("space") // WAITING_FOR_EVENT has one way out: no question
	if got := h.m.runs[0].live.state; got != loop.AssemblingContext {
		t.Fatalf("state %s after new_event, want ASSEMBLING_CONTEXT", got)
	}

	h.press("space")
	if !isOpen[*predictDialog](h.m) {
		t.Fatal("space in predict mode did not ask for a prediction")
	}
	v := h.plainView()
	contains(t, v, "Which edge will the loop take from ASSEMBLING_CONTEXT?")
	contains(t, v, "1) context_ready")
	contains(t, v, "2) max_iterations")
	if h.m.runs[0].live.state != loop.AssemblingContext {
		t.Fatal("the step ran before the prediction")
	}
	h.press("esc") // not now: no step
	if isOpen[*predictDialog](h.m) || h.m.runs[0].live.state != loop.AssemblingContext {
		t.Fatal("esc did not close the question without stepping")
	}

	h.press("space", "1")
	contains(t, h.plainView(), "✓ predicted context_ready — right")
	lastNote(t, h, "✓ predicted context_ready — right: the context is assembled and the iteration limit is not reached  [1/1 tour]")

	h.press("space", "2") // final_answer; the model asks for list_files
	lastNote(t, h, "✗ predicted final_answer — the loop took tool_call: the model asked for a tool: list_files  [1/2 tour]")
	contains(t, h.plainView(), "predict 1/2 tour")

	h.press("space", "down", "up", "enter") // CHECKING_POLICY: 1) allow
	if n := h.m.runs[0].history.entries; !strings.HasPrefix(n[len(n)-1].text, "✓ predicted allow — right: rule ") {
		t.Fatalf("last History entry %q", n[len(n)-1].text)
	}

	h.press("i")
	contains(t, h.plainView(), "predict mode: space steps one transition")
	h.press("c")
	contains(t, h.plainView(), "predict mode: space steps one transition")
	if h.m.runs[0].live.state != loop.ExecutingTool {
		t.Fatal("c ran steps in predict mode")
	}
	h.press("P")
	contains(t, h.plainView(), "predict mode off: 2/3 tour")
	h.press("c")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("with predict mode off, c stopped at %s", h.m.runs[0].live.state)
	}
}

// lastNote checks History's newest entry.
func lastNote(t *testing.T, h *harness, want string) {
	t.Helper()
	e := h.m.runs[0].history.entries
	if got := e[len(e)-1].text; got != want {
		t.Fatalf("History's last entry\n got %q\nwant %q", got, want)
	}
}

// A new lesson starts its own score; P turns predict mode on from the keys.
func TestPredictScoreIsPerLesson(t *testing.T) {
	w := newWorld(t, append(tourScript(), reply{text: "Hello again."})...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("esc", "P")
	contains(t, h.plainView(), "predict mode on")
	h.press("/")
	h.press("enter") // the tour lesson
	h.press("space", "space", "1")
	contains(t, h.plainView(), "predict 1/1 tour")
	h.press("P", "c", "P") // to the answer without predictions
	h.typeText("say hello")
	h.press("enter", "space", "space", "1")
	contains(t, h.plainView(), "predict 1/1 your request")
}

// TestGoldenPredict pins the prediction question at the recommended
// 120×34 and a laptop's 80×24. Regenerate with -update.
func TestGoldenPredict(t *testing.T) {
	for _, size := range [][2]int{{120, 34}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			w := newWorld(t, tourScript()...)
			cfg := w.config()
			cfg.Predict = true
			h := newHarness(t, cfg, size[0], size[1])
			h.normalize = zeroDurations
			h.press("enter", "space", "space", "1", "space")
			v := h.view()
			checkScreen(t, v, size[0], size[1])
			golden.RequireEqual(t, []byte(v))
		})
	}
}
