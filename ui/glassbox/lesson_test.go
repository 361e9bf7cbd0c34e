package glassbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/tools"
)

// offlineWorld is the real thing minus the terminal: the Gemini SDK talking
// to the offline simulation, real tools on a copy of the sample project.
func offlineWorld(t testing.TB, lesson string) (Config, string) {
	t.Helper()
	return offlineWorldWith(t, lesson, loop.Config{})
}

// offlineWorldWith lets a test set the engine's retry policy and clock.
func offlineWorldWith(t testing.TB, lesson string, base loop.Config) (Config, string) {
	t.Helper()
	ws, dir := sampleWorkspace(t)
	prov, err := gemini.New(context.Background(), gemini.Config{
		APIKey:    "glassbox-placeholder-key-0000",
		BaseURL:   "http://gemini.offline.invalid/",
		Transport: backend.SimulatedTransport(offline.Config{Latency: 0}),
	})
	if err != nil {
		t.Fatal(err)
	}
	person := NewPerson()
	base.Provider, base.Backend, base.Person = prov, "offline", person
	base.Tools, base.Workspace = tools.Default(ws, person, 0), ws
	eng, err := loop.New(base)
	if err != nil {
		t.Fatal(err)
	}
	var offered []Lesson
	for _, l := range lessons.All() {
		offered = append(offered, Lesson{Name: l.Name, Title: l.Title, Request: l.Request, Dialects: backend.Showing(l)})
	}
	return Config{
		Engine:        eng,
		Person:        person,
		Banner:        "gemini " + prov.Model() + " · offline: no GEMINI_API_KEY is set",
		Backend:       "offline",
		BackendReason: "no GEMINI_API_KEY is set",
		Workspace:     dir,
		Lessons:       offered,
		Lesson:        lesson,
		NoColor:       true,
	}, dir
}

func TestOfflineTourLessonStepByStep(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 160, 48)
	contains(t, h.plainView(), "Enter: send the tour lesson")
	h.press("enter") // the lesson's request, one keypress away

	// Step the whole lesson with space, one transition per press.
	for i := 0; i < 60 && !(len(h.m.runs[0].live.steps) > 0 && h.m.runs[0].live.state == loop.WaitingForEvent); i++ {
		if h.m.runs[0].confirm != nil || h.m.runs[0].ask != nil {
			t.Fatalf("the tour should not ask anything; states %v", h.states())
		}
		h.press("space")
		checkScreen(t, h.view(), 160, 48)
	}
	states := h.states()
	if states[0] != loop.AssemblingContext || states[len(states)-1] != loop.WaitingForEvent {
		t.Fatalf("states %v", states)
	}
	if !slices.Contains(states, loop.ExecutingTool) || !slices.Contains(states, loop.DeliveringOutput) {
		t.Fatalf("the tour ran no tool or delivered nothing: %v", states)
	}
	for _, s := range h.m.runs[0].live.steps {
		if s.t.Edge == loop.EdgeToolCall && len(s.t.Exchanges) == 0 {
			t.Fatal("a model call without its HTTP exchange")
		}
	}
	v := h.plainView()
	contains(t, v, "▸ → list_files")
	contains(t, v, "▸ → read_file")
	contains(t, v, "answer delivered to ui")
	contains(t, v, "OFFLINE")

	// The payload of the last model call is the Gemini wire format.
	h.press("tab", "tab", "tab") // History → diagram → tools → payload
	if h.m.stepper.pane != panePayload {
		t.Fatalf("pane %v", h.m.stepper.pane)
	}
	// The last step was decided by the model's reply: the pane opens on it.
	contains(t, h.plainView(), "response (r)")
	// It is scrolled to what decided final_answer: Gemini's finishReason.
	contains(t, h.plainView(), "▶ final_answer")
	if !marked(h.plainView(), `"finishReason"`) {
		t.Fatalf("finishReason is not marked:\n%s", h.plainView())
	}
	h.press("r")
	contains(t, h.plainView(), "request (r)")

	// Time travel back to the first model call.
	for h.m.runs[0].live.selectedIndex() > 2 {
		h.press("[")
	}
	if got := h.m.runs[0].live.selected().t.Edge; got != loop.EdgeToolCall {
		t.Fatalf("step 3 is %s", got)
	}
	contains(t, h.plainView(), "list_files")
}

func TestOfflineWriteFileLessonNeedsApproval(t *testing.T) {
	cfg, dir := offlineWorld(t, "write-file")
	h := newHarness(t, cfg, 120, 40)
	h.press("enter", "c")
	if h.m.runs[0].confirm == nil {
		t.Fatalf("no confirmation; states %v", h.states())
	}
	v := h.plainView()
	contains(t, v, "Confirm: write_file")
	contains(t, v, "farewell.py")
	contains(t, v, "+def farewell")
	h.press("y")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("c did not run on to the answer after approval: %s", h.m.runs[0].live.state)
	}
	if _, err := os.Stat(filepath.Join(dir, "farewell.py")); err != nil {
		t.Fatalf("farewell.py was not written: %v", err)
	}
	if !slices.Contains(h.edges(), loop.EdgeUserApproval) {
		t.Fatalf("edges %v", h.edges())
	}
}

func TestOfflineAskDeleteLesson(t *testing.T) {
	cfg, dir := offlineWorld(t, "ask-delete")
	h := newHarness(t, cfg, 120, 40)
	h.press("enter", "c")
	if h.m.runs[0].ask == nil {
		t.Fatalf("no question; states %v", h.states())
	}
	contains(t, h.plainView(), "Delete old_log.txt?")
	h.press("1") // yes
	if h.m.runs[0].confirm == nil {
		t.Fatalf("deleting needs a confirmation; states %v", h.states())
	}
	contains(t, h.plainView(), "rm old_log.txt")
	h.press("y")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
	if _, err := os.Stat(filepath.Join(dir, "old_log.txt")); !os.IsNotExist(err) {
		t.Fatalf("old_log.txt still exists: %v", err)
	}
}

func TestOfflinePathEscapeIsDenied(t *testing.T) {
	cfg, _ := offlineWorld(t, "path-escape")
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "i", "i")
	if !slices.Contains(h.edges(), loop.EdgeDeny) {
		t.Fatalf("edges %v", h.edges())
	}
	// The step that denied it: the Tool calls pane shows the verdict and rule.
	for h.m.runs[0].live.selected().t.Edge != loop.EdgeDeny {
		h.press("[")
	}
	v := h.plainView()
	contains(t, v, "DENY")
	contains(t, v, "status: denied")
}

func TestOfflineRetriesAndHaltAreShown(t *testing.T) {
	noWait := func(ctx context.Context, d time.Duration) error { return ctx.Err() }

	t.Run("rate-limit", func(t *testing.T) {
		cfg, _ := offlineWorldWith(t, "rate-limit", loop.Config{Sleep: noWait})
		h := newHarness(t, cfg, 160, 48)
		h.press("enter", "c")
		v := h.plainView()
		contains(t, v, "retry 1: HTTP 429, waited")
		contains(t, v, "answer delivered to ui")
	})
	t.Run("outage", func(t *testing.T) {
		cfg, _ := offlineWorldWith(t, "outage", loop.Config{Sleep: noWait})
		h := newHarness(t, cfg, 160, 48)
		h.press("enter", "c")
		if !slices.Contains(h.edges(), loop.EdgeLLMFailure) || !slices.Contains(h.edges(), loop.EdgeReported) {
			t.Fatalf("edges %v", h.edges())
		}
		v := h.plainView()
		contains(t, v, "■ halted")
		contains(t, v, "HTTP 503")
	})
	t.Run("iteration-limit", func(t *testing.T) {
		cfg, _ := offlineWorldWith(t, "iteration-limit", loop.Config{MaxIterations: 3})
		h := newHarness(t, cfg, 160, 48)
		h.press("enter", "c")
		if !slices.Contains(h.edges(), loop.EdgeMaxIterations) {
			t.Fatalf("edges %v", h.edges())
		}
		contains(t, h.plainView(), "iteration limit")
	})
}
