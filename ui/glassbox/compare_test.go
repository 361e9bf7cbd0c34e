package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
)

// compareWorld is compare mode minus the terminal: two runs, each with its
// dialect's real SDK talking to the offline simulation, its own copy of the
// sample project and its own person.
func compareWorld(t testing.TB, names ...string) Config {
	t.Helper()
	return compareWorldWith(t, nil, names...)
}

// compareWorldWith gives the runs named in policies their own security rules.
func compareWorldWith(t testing.TB, policies map[string]*loop.Policy, names ...string) Config {
	t.Helper()
	cfg := Config{Lesson: "tour", NoColor: true}
	for _, l := range lessons.All() {
		cfg.Lessons = append(cfg.Lessons, Lesson{Name: l.Name, Title: l.Title, Request: l.Request, Dialects: backend.Showing(l)})
	}
	for _, name := range names {
		d, ok := backend.Lookup(name)
		if !ok {
			t.Fatalf("no dialect %q", name)
		}
		b, err := backend.Choose(t.Context(), backend.Options{Dialect: d, Offline: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		ws, dir := sampleWorkspace(t)
		person := NewPerson()
		eng, err := loop.New(loop.Config{
			Provider: b.Provider, Backend: b.Kind, BackendReason: b.Reason, Person: person,
			Tools: tools.Default(ws, person, 0), Workspace: ws, Run: name, Policy: policies[name],
			Dialect: agentrun.LoopDialect(b.Dialect),
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Runs = append(cfg.Runs, RunConfig{
			Name: name, Label: d.Label, Engine: eng, Person: person,
			Backend: b.Kind, BackendReason: b.Reason, Banner: b.Describe(), Workspace: dir,
		})
	}
	return cfg
}

// The card's promise: the tour's first request, and within four keypresses
// after Enter both raw responses are on one screen, side by side, with the
// comparison strip above them.
func TestCompareShowsBothRawResponsesWithinFourKeys(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
	if L := h.m.computeLayout(); L.mode != layoutCompare {
		t.Fatalf("160×48 compare: layout %v", L.mode)
	}
	h.press("enter") // the tour's request, into both runs
	for _, r := range h.m.runs {
		if r.live.queued != 1 {
			t.Fatalf("%s: %d queued", r.name, r.live.queued)
		}
	}
	h.press("space", "space", "space")
	v := h.plainView()
	checkScreen(t, h.view(), 160, 48)
	for _, r := range h.m.runs {
		if r.live.state != loop.CheckingPolicy {
			t.Fatalf("%s is in %s after three steps", r.name, r.live.state)
		}
	}
	if n := strings.Count(v, "response (r)"); n != 2 {
		t.Fatalf("%d payload panes show a response, want 2:\n%s", n, v)
	}
	// Each pane has scrolled to what decided tool_call, marked ▶.
	if !marked(v, `"functionCall"`) { // Gemini's native function calling
		t.Fatalf("the functionCall part is not marked:\n%s", v)
	}
	if !marked(v, "2 · the JSON extracted") { // Llama's JSON mode, parsed
		t.Fatalf("the parsed JSON is not marked:\n%s", v)
	}
	if n := strings.Count(v, "· ▶ tool_call"); n != 2 {
		t.Fatalf("%d payload panes mark what decided tool_call, want 2:\n%s", n, v)
	}
	contains(t, v, "tool_use / STOP") // the strip, Gemini's row
	contains(t, v, "tool_use / stop") // the strip, Llama's row
	contains(t, v, "tool_call list_fi")
}

// One run asks for approval, the other does not: the dialog names its run,
// answering it answers that run only, and the other run waits.
func TestCompareLockstepOnlyOneRunAsks(t *testing.T) {
	// The llama run may write without asking: its policy allows write_file.
	// The built-in rules with one in front: a rule list starts at the first
	// [[rule]], after the file's top-level settings.
	head, rules, _ := strings.Cut(loop.DefaultPolicyTOML, "[[rule]]")
	pol, err := loop.ParsePolicy([]byte(head + `
[[rule]]
name = "class-allows-writes"
tools = ["write_file"]
verdict = "ALLOW"
reason = "this class lets the model write files"

[[rule]]` + rules))
	if err != nil {
		t.Fatal(err)
	}
	cfg := compareWorldWith(t, map[string]*loop.Policy{"llama": pol}, "gemini", "llama")
	cfg.Lesson = "write-file"
	h := newHarness(t, cfg, 160, 48)
	h.press("enter") // the write-file lesson's request, into both runs
	for i := 0; i < 40 && h.m.stepper.dialogRun() == nil; i++ {
		h.press("space")
	}
	dr := h.m.stepper.dialogRun()
	if dr == nil || dr.name != "gemini" || dr.confirm == nil {
		t.Fatalf("want gemini's approval dialog, got %+v", dr)
	}
	contains(t, h.plainView(), "Confirm: write_file — gemini run")
	if other := h.m.runs[1]; other.waitsForPerson() {
		t.Fatal("the llama run asks too")
	}
	h.press("y")
	if h.m.runs[0].confirm != nil {
		t.Fatal("y did not answer gemini's dialog")
	}
	for i := 0; i < 60 && !(h.m.runs[0].idle() && h.m.runs[1].idle()); i++ {
		h.press("c")
	}
	for _, r := range h.m.runs {
		if !r.idle() {
			t.Fatalf("%s not idle: %s", r.name, r.live.state)
		}
		var edges []string
		for _, s := range r.live.steps {
			edges = append(edges, string(s.t.Edge))
		}
		joined := strings.Join(edges, " ")
		switch r.name {
		case "gemini":
			if !strings.Contains(joined, "confirm_required user_approval") {
				t.Fatalf("gemini: %s", joined)
			}
		case "llama":
			if strings.Contains(joined, "confirm_required") || !strings.Contains(joined, "allow") {
				t.Fatalf("llama: %s", joined)
			}
		}
	}
}

// [ and ] move both runs to the same model call.
func TestCompareTimeTravelLinesUpModelCalls(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama:native"), 160, 48)
	h.press("enter")
	for i := 0; i < 40 && !(h.m.runs[0].idle() && h.m.runs[1].idle()); i++ {
		h.press("c")
	}
	for _, r := range h.m.runs {
		if len(r.live.callSteps()) < 2 {
			t.Fatalf("%s made %d calls", r.name, len(r.live.callSteps()))
		}
	}
	h.press("[")
	for _, r := range h.m.runs {
		k, exact := r.live.callAt()
		if k != len(r.live.callSteps()) || !exact {
			t.Fatalf("%s: call %d exact=%v after the first [", r.name, k, exact)
		}
	}
	h.press("[")
	for _, r := range h.m.runs {
		if k, exact := r.live.callAt(); k != len(h.m.runs[0].live.callSteps())-1 || !exact {
			t.Fatalf("%s: call %d exact=%v", r.name, k, exact)
		}
	}
	contains(t, h.plainView(), fmt.Sprintf("model call %d of each run", len(h.m.runs[0].live.callSteps())-1))
	for i := 0; i < 10; i++ {
		h.press("]")
	}
	for _, r := range h.m.runs {
		if r.live.travelling() {
			t.Fatalf("%s still in the past", r.name)
		}
	}
}

// marked reports whether a line of screen v marked ▶ holds s: a pretty
// body's line starts with it (the mark sits in the pane's first cell,
// before the line's indentation); a streamed record, one compact record
// per entry, holds it inside the marked line. Only the marked pane's part
// of the screen line counts, up to its border.
func marked(v, s string) bool {
	for _, ln := range strings.Split(v, "\n") {
		for _, part := range strings.Split(ln, "▶")[1:] {
			if i := strings.IndexAny(part, "│┃"); i >= 0 {
				part = part[:i]
			}
			if strings.Contains(part, s) {
				return true
			}
		}
	}
	return false
}
