package glassbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// paneText is what pane p of run run shows on screen: the plain text of
// its rectangle, frame included, or "" when it is not on screen.
func paneText(h *harness, run int, p paneID) string {
	h.t.Helper()
	screen := strings.Split(h.plainView(), "\n")
	for _, pl := range h.m.computeLayout().panes {
		if pl.run != run || pl.pane != p {
			continue
		}
		var out []string
		for y := pl.r.y; y < pl.r.y+pl.r.h && y < len(screen); y++ {
			out = append(out, ansi.Cut(screen[y], pl.r.x, pl.r.x+pl.r.w))
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// runToAnswers runs every run of compare mode to its answer.
func runToAnswers(h *harness) {
	h.t.Helper()
	for i := 0; i < 60 && !(h.m.runs[0].idle() && h.m.runs[1].idle()); i++ {
		switch {
		case h.m.top() != nil:
			h.press("y") // approve a write, as a learner would
		default:
			h.press("c")
		}
	}
	for _, r := range h.m.runs {
		if !r.idle() {
			h.t.Fatalf("%s never finished: %s", r.name, r.live.state)
		}
	}
}

// Compare mode shows each run's History with its answer, at the
// projector's 160×48 side by side with that run's other panes, at 120×34
// for the run shown, the other one v away; v changes what is shown, never
// which runs the keys act on.
func TestCompareShowsEachRunsHistory(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {120, 34}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			cfg := compareWorld(t, "gemini", "llama")
			cfg.Lesson = "write-file"
			h := newHarness(t, cfg, size[0], size[1])
			h.press("enter")
			runToAnswers(h)
			for i, r := range h.m.runs {
				if size[0] < compareWidth && i != h.m.stepper.cur().id {
					h.press("v")
				}
				if h.m.stepper.run != -1 {
					t.Fatalf("v changed which runs the keys act on: focus %d", h.m.stepper.run)
				}
				hist := paneText(h, i, paneHistory)
				if hist == "" {
					t.Fatalf("%s: no History on screen:\n%s", r.name, h.plainView())
				}
				contains(t, hist, "● assistant")
				contains(t, hist, "farewell") // the answer names the file it wrote
				for _, p := range []paneID{paneDiagram, paneTools, panePayload} {
					if paneText(h, i, p) == "" {
						t.Fatalf("%s: %s is not on screen beside History", r.name, paneTitle(p, lang.EN))
					}
				}
			}
			notContains(t, h.plainView(), "Press Enter to send")
		})
	}
}

// z zooms in compare mode too: the focused pane of each run, side by side,
// at both sizes, and esc comes back.
func TestZoomInCompareShowsThePaneOfBothRuns(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {120, 34}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, compareWorld(t, "gemini", "llama"), size[0], size[1])
			h.press("enter", "space", "space", "space")
			for h.m.stepper.pane != panePayload {
				h.press("shift+tab")
			}
			h.press("z")
			notContains(t, h.plainView(), "already fills")
			L := h.m.computeLayout()
			if len(L.panes) != 2 || L.panes[0].pane != panePayload || L.panes[1].pane != panePayload {
				t.Fatalf("zoomed compare: %+v", L.panes)
			}
			if L.panes[0].r.h < size[1]-12 {
				t.Fatalf("a zoomed payload is %d rows high", L.panes[0].r.h)
			}
			a, b := paneText(h, 0, panePayload), paneText(h, 1, panePayload)
			contains(t, a, "zoomed (z)")
			contains(t, b, "zoomed (z)")
			if !marked(a, `"functionCall"`) || !marked(b, "2 · the JSON extracted") {
				t.Fatalf("both payloads of the same call should be on screen, marked:\n%s", h.plainView())
			}
			h.press("esc")
			if h.m.computeLayout().mode == layoutZoom {
				t.Fatal("esc did not leave the zoom")
			}
		})
	}
}

// The help overlay lists the keys as they work in compare mode: tab picks a
// run, v shows the other one.
func TestCompareHelpListsTheKeysAsTheyWorkThere(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
	h.press("esc", "?")
	v := h.plainView()
	contains(t, v, "pick run")
	contains(t, v, "show the other run")
	contains(t, v, "it goes to both runs")
	notContains(t, v, "next pane")
}

// Looking is not driving, at the projector's 120×34: v shows the other run
// while the keys still step both; once tab gives the keys to one run, that
// run stays on screen.
func TestLookingIsNotDrivingInCompare(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 120, 34)
	h.press("enter", "space", "space", "space")
	h.press("v")
	if h.m.stepper.cur().id != 1 || h.m.stepper.run != -1 {
		t.Fatalf("v: shown %d, focus %d", h.m.stepper.cur().id, h.m.stepper.run)
	}
	contains(t, h.plainView(), "showing llama")
	contains(t, h.plainView(), "keys act on both runs")
	h.press("space") // steps both runs, though llama is the one shown
	for _, r := range h.m.runs {
		if len(r.live.steps) != 4 {
			t.Fatalf("%s took %d steps, want 4", r.name, len(r.live.steps))
		}
	}
	h.press("tab") // the keys act on gemini alone: gemini is shown
	if h.m.stepper.run != 0 || h.m.stepper.cur().id != 0 {
		t.Fatalf("tab: focus %d, shown %d", h.m.stepper.run, h.m.stepper.cur().id)
	}
	h.press("v")
	if h.m.stepper.cur().id != 0 {
		t.Fatal("v hid the run the keys act on")
	}
	contains(t, h.plainView(), "stays on screen")
}

// The Tool calls pane follows the call the loop is on: at 120×34 the
// second of two parallel calls is on screen while the loop checks it, and
// on a shorter screen a mark says what lies above.
func TestToolCallsFollowTheCallTheLoopIsOn(t *testing.T) {
	for _, size := range [][2]int{{120, 34}, {120, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			cfg, _ := offlineWorld(t, "parallel")
			h := newHarness(t, cfg, size[0], size[1])
			h.press("enter")
			for i := 0; i < 20; i++ {
				h.press("space")
				s := h.m.runs[0].live.selected()
				if s != nil && s.t.Edge == loop.EdgeNextToolCall {
					break
				}
			}
			tools := paneText(h, 0, paneTools)
			contains(t, tools, "2 read_file")
			contains(t, tools, "call 2/2")
			if size[1] == 24 {
				contains(t, tools, "more line")
				contains(t, tools, "above")
			}
		})
	}
}

// At 120×34 the Raw payload pane shows at least ten lines of the body in
// the default layout, scrolled to the functionCall part that decided the
// edge, which is marked.
func TestPayloadShowsTheBytesThatDecided(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "space", "space", "space") // the reply decides tool_call
	p := paneText(h, 0, panePayload)
	if !marked(p, `"functionCall"`) {
		t.Fatalf("the functionCall part is not marked:\n%s", p)
	}
	contains(t, p, "▶ tool_call")
	body := 0
	for _, ln := range strings.Split(p, "\n") {
		if strings.Contains(ln, `"`) || strings.ContainsAny(ln, "{}[]") {
			body++
		}
	}
	if body < 10 {
		t.Fatalf("%d lines of body in the Raw payload at 120×34:\n%s", body, p)
	}
}

// Small things a learner sees.
func TestSmallThingsALearnerSees(t *testing.T) {
	t.Run("a lesson is offered only where it can run", func(t *testing.T) {
		cfg, _ := offlineWorld(t, "tour") // Gemini
		h := newHarness(t, cfg, 160, 48)
		h.press("esc", "l")
		notContains(t, h.plainView(), ") repeat-stop") // not listed; its last line says why (TestLessonsMenuNamesWhatItLeavesOut)
		h = newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
		h.press("esc", "l")
		contains(t, h.plainView(), ") repeat-stop")
	})
	t.Run("p with nothing running says so", func(t *testing.T) {
		cfg, _ := offlineWorld(t, "tour")
		h := newHarness(t, cfg, 120, 34)
		h.press("esc", "p")
		contains(t, h.plainView(), "nothing to pause")
	})
	t.Run("a line cut short ends with …", func(t *testing.T) {
		cfg, _ := offlineWorld(t, "tour")
		h := newHarness(t, cfg, 120, 34)
		h.press("enter", "space", "space", "space")
		contains(t, paneText(h, 0, paneTools), "not checked by the securit…│")
	})
	t.Run("the strip names the call it shows", func(t *testing.T) {
		h := newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
		h.press("enter")
		runToAnswers(h)
		h.press("[", "[")
		v := h.plainView()
		notContains(t, v, "the latest model call")
		n := len(h.m.runs[0].live.callSteps())
		contains(t, v, fmt.Sprintf("gemini: model call %d of %d", n-1, n))
	})
	t.Run("History offers only the lesson on offer", func(t *testing.T) {
		cfg, _ := offlineWorld(t, "tour")
		h := newHarness(t, cfg, 160, 48)
		contains(t, h.plainView(), "Press Enter to send the tour lesson")
		h.press("esc", "l", "down", "enter") // another lesson, into the input
		v := h.plainView()
		notContains(t, v, "send the tour lesson")
		contains(t, v, "Press Enter to send the "+h.m.lessons.name+" lesson")
		h.press("enter") // sent
		notContains(t, h.plainView(), "Press Enter to send")
	})
}

// Update does no I/O: a fork puts the files back, and a request reaches the
// engine (which writes it to the session file), only when the command Update
// returned runs.
func TestUpdateLeavesIOToCommands(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	journalled(t, w)
	todo := filepath.Join(w.dir, "notes", "todo.txt")
	before := readFile(t, todo)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")

	next, cmd := h.m.Update(keyMsg("enter")) // send, without running its command
	if got := w.eng.QueueLen(); got != 0 || cmd == nil {
		t.Fatalf("Update queued the event itself (%d queued, command %v)", got, cmd != nil)
	}
	h.m = next.(*Model)
	h.send(cmd())
	if got := w.eng.QueueLen(); got != 1 {
		t.Fatalf("the command did not queue the event: %d", got)
	}

	h.press("space", "space", "space", "space")
	r := h.m.runs[0]
	for i := 0; i < 5 && r.confirm == nil; i++ {
		h.press("space")
	}
	h.press("y", "space") // the file is written
	for r.live.selectedIndex() > 2 {
		h.press("[")
	}
	next, cmd = h.m.Update(keyMsg("f")) // fork, without running its command
	if got := readFile(t, todo); got == before || cmd == nil {
		t.Fatalf("Update put the file back itself (or returned no command)")
	}
	h.m = next.(*Model)
	h.send(cmd())
	if got := readFile(t, todo); got != before {
		t.Fatalf("the fork's command did not put the file back: %q", got)
	}
}

// The same unusable reply twice: History says why the loop halted, and the
// Tool calls pane says it was the loop, not a failed call.
func TestRepeatedFailureHaltsOnScreen(t *testing.T) {
	bad := reply{text: "is is is", malformed: "Your last reply was stopped by the repeat limit.", fault: "stopped by Ollama's repeat limit"}
	w := newWorld(t, bad, bad)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter")
	h.stepUntil(loop.Halted)
	tools := strings.Join(strings.Fields(strings.ReplaceAll(paneText(h, 0, paneTools), "│", " ")), " ")
	if !strings.Contains(tools, "the loop halted instead of feeding it back") {
		t.Fatalf("the Tool calls pane does not say the loop halted:\n%s", tools)
	}
	h.press("space") // reported: History says why
	history := strings.Join(strings.Fields(strings.NewReplacer("┃", " ", "│", " ").Replace(paneText(h, 0, paneHistory))), " ")
	if !strings.Contains(history, "2 replies in a row were stopped by Ollama's repeat limit") {
		t.Fatalf("History does not say why the loop halted:\n%s", history)
	}
}
