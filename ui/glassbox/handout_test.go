package glassbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// handoutWorld is a run of the tour that writes its session to disk, as
// glassbox's own TUI does, with the session named in the Config.
func handoutWorld(t *testing.T) (*testWorld, Config, string) {
	t.Helper()
	w := newWorld(t, tourScript()...)
	path := journalled(t, w)
	cfg := w.config()
	cfg.Session = path
	return w, cfg, path
}

// X writes a handout of the step the time-travel cursor shows, and of the
// latest step when there is no cursor; the notice says where, and the page
// holds that step (its transition) and masks the run's keys.
func TestHandoutKeyWritesTheStepOnScreen(t *testing.T) {
	const key = "AIzaSyTEST-handout-key-0123456789"
	_, cfg, path := handoutWorld(t)
	cfg.Secrets = []string{key}
	h := newHarness(t, cfg, 160, 48)
	h.typeText("list the files, my key is " + key)
	h.press("enter", "space", "space", "space") // new_event, context_ready, tool_call
	r := h.m.runs[0]
	if n := len(r.live.steps); n != 3 {
		t.Fatalf("%d steps, want 3: %v", n, h.states())
	}
	h.press("[") // step 2 on screen
	if s := r.live.selected(); s == nil || s.t.Seq != 2 {
		t.Fatalf("the cursor is not on step 2")
	}
	h.press("X")
	want := filepath.Join(session.DataDir(path), "handouts", "step-2.html")
	contains(t, h.plainView(), "handout written: "+want)
	page := readFile(t, want)
	for _, s := range []string{"step 2 of 3", "ASSEMBLING_CONTEXT ─context_ready→ AWAITING_LLM_RESPONSE"} {
		if !strings.Contains(page, s) {
			t.Errorf("the handout of step 2 lacks %q", s)
		}
	}
	if strings.Contains(page, "AWAITING_LLM_RESPONSE ─tool_call→") {
		t.Error("the handout of step 2 holds step 3")
	}
	if strings.Contains(page, key) {
		t.Error("the handout shows the run's key")
	}

	// Back at the present: the latest step.
	h.press("]", "X")
	want = filepath.Join(session.DataDir(path), "handouts", "step-3.html")
	contains(t, h.plainView(), "handout written: "+want)
	if page := readFile(t, want); !strings.Contains(page, "AWAITING_LLM_RESPONSE ─tool_call→ CHECKING_POLICY") {
		t.Errorf("the handout of the latest step does not hold it:\n%.400s", page)
	}
}

// Without a session on disk (or before any step, or when the session
// cannot be read) X says so, clearly, and writes nothing.
func TestHandoutKeyWithoutASessionOrAStep(t *testing.T) {
	t.Run("no session", func(t *testing.T) {
		w := newWorld(t, tourScript()...)
		h := newHarness(t, w.config(), 160, 48)
		h.press("enter", "space", "X")
		contains(t, h.plainView(), "X: no handout — this glass box keeps no session on disk to write it from")
	})
	t.Run("no step yet", func(t *testing.T) {
		_, cfg, path := handoutWorld(t)
		h := newHarness(t, cfg, 160, 48)
		h.press("esc", "X")
		contains(t, h.plainView(), "X: no step yet")
		if _, err := os.Stat(filepath.Join(session.DataDir(path), "handouts")); !os.IsNotExist(err) {
			t.Errorf("a handouts folder was made: %v", err)
		}
	})
	t.Run("session gone", func(t *testing.T) {
		_, cfg, path := handoutWorld(t)
		h := newHarness(t, cfg, 200, 48)
		h.press("enter", "space")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		h.press("X")
		contains(t, h.plainView(), "handout of step 1 not written: ")
		notContains(t, h.plainView(), "handout written")
		// The health says it cannot measure the session any more.
		h.press("space", "?")
		contains(t, h.plainView(), "session size unknown: ")
	})
}

// In compare mode X writes the step of the run the keys act on (else the
// run shown) — for both runs, which share the session — and says which run.
func TestHandoutKeyInCompareMode(t *testing.T) {
	a, b := newWorld(t, tourScript()...), newWorld(t, tourScript()...)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	sw, err := session.Create(path, session.Header{Glassbox: "test", Started: time.Now(), Runs: []session.RunInfo{
		{Name: "gemini", Provider: "gemini", Backend: "offline", Workspace: a.dir, MaxIterations: 10},
		{Name: "llama", Provider: "gemini", Backend: "offline", Workspace: b.dir, MaxIterations: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sw.Close() })
	a.eng.SetJournal(loop.NewJournal(sw, "gemini", a.dir))
	b.eng.SetJournal(loop.NewJournal(sw, "llama", b.dir))
	cfg := a.config()
	cfg.Session = path
	cfg.Runs = []RunConfig{
		{Name: "gemini", Engine: a.eng, Person: a.person, Backend: "offline"},
		{Name: "llama", Engine: b.eng, Person: b.person, Backend: "offline"},
	}
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "tab", "tab", "space") // both: 2 steps; then llama alone: 3
	if h.m.stepper.run != 1 || len(h.m.runs[1].live.steps) != 3 || len(h.m.runs[0].live.steps) != 2 {
		t.Fatalf("focus %d, steps %d and %d", h.m.stepper.run, len(h.m.runs[0].live.steps), len(h.m.runs[1].live.steps))
	}
	h.press("X")
	want := filepath.Join(session.DataDir(path), "handouts", "step-3.html")
	contains(t, h.plainView(), "llama: handout written: "+want)
	page := readFile(t, want)
	if !strings.Contains(page, "AWAITING_LLM_RESPONSE ─tool_call→ CHECKING_POLICY") || !strings.Contains(page, "llama") {
		t.Errorf("the page lacks llama's step 3:\n%.600s", page)
	}
}

// A run's health is on its status bar as the last segment, added up from
// each transition and with the session's size measured on disk; the help
// overlay has it in full, with the exact byte count.
func TestHealthOnTheStatusBarAndInTheHelp(t *testing.T) {
	_, cfg, path := handoutWorld(t)
	h := newHarness(t, cfg, 300, 48)
	h.press("enter", "c")
	r := h.m.runs[0]
	if r.live.state != loop.WaitingForEvent || r.busy {
		t.Fatalf("the tour did not finish: %v", h.states())
	}
	want, err := loop.SessionBytes(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := r.live.health
	if hl.Calls != 3 || hl.Bytes != want {
		t.Fatalf("health %+v, want 3 calls and %d bytes", hl, want)
	}
	lines := strings.Split(h.plainView(), "\n")
	status := lines[len(lines)-1]
	if !strings.Contains(status, "health "+hl.String()) {
		t.Fatalf("the status bar lacks the health line %q:\n%s", hl.String(), status)
	}
	if !strings.HasSuffix(strings.TrimRight(status, " "), hl.String()) {
		t.Errorf("the health is not the last segment: %q", status)
	}
	h.press("?")
	v := h.plainView()
	contains(t, v, "This run's health")
	contains(t, v, hl.String())
	contains(t, v, "session on disk: "+strconv.FormatInt(want, 10)+" bytes")
}

// The health is the first segment to go on a narrow bar: shortened part
// by part, then dropped, before any other segment.
func TestHealthIsDroppedFirstWhenNarrow(t *testing.T) {
	_, cfg, _ := handoutWorld(t)
	cfg.BackendReason = "" // the reason would take the room first
	h := newHarness(t, cfg, 240, 48)
	h.press("enter", "c")
	r := h.m.runs[0]
	lk := h.m.look()
	full := runStatus(r, lk, 240)
	if !strings.Contains(full, r.live.health.String()) {
		t.Fatalf("no full health line at 240 columns: %q", full)
	}
	context := strings.Index(full, " health ")
	// Room for the other segments and a little of the health: only its
	// first parts.
	short := runStatus(r, lk, context+len(" health 3 calls · 0 retries "))
	if !strings.Contains(short, "health 3 calls · 0 retries") || strings.Contains(short, "fed back") {
		t.Errorf("the health is not shortened from its end: %q", short)
	}
	// Less room: the health goes, the context stays.
	narrow := runStatus(r, lk, context+3)
	if strings.Contains(narrow, "health") || !strings.Contains(narrow, "context") {
		t.Errorf("the health is not the first to go: %q", narrow)
	}
}

// A fork counts the run's health again from the line that is left, as
// sessions --stats does.
func TestHealthAfterAForkCountsThePresentLine(t *testing.T) {
	_, cfg, _ := handoutWorld(t)
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "c")
	r := h.m.runs[0]
	if r.live.health.Calls != 3 {
		t.Fatalf("%d calls before the fork", r.live.health.Calls)
	}
	for r.live.selectedIndex() > 2 { // step 3: the first call's tool_call
		h.press("[")
	}
	h.press("f")
	if n := len(r.live.steps); n != 3 {
		t.Fatalf("the fork left %d steps", n)
	}
	if got := r.live.health.Calls; got != 1 {
		t.Errorf("after forking at step 3 the health counts %d calls, want 1", got)
	}
	if r.live.health.Bytes == 0 {
		t.Error("the session's size was lost in the fork")
	}
	// The abandoned branch (B) is not on the session's line: no handout.
	h.press("B", "X")
	contains(t, h.plainView(), "X: this is an abandoned branch")
	if r.live.health.Calls != 1 {
		t.Errorf("showing the branch changed the run's health: %d calls", r.live.health.Calls)
	}
}

// The size is measured in a command, one at a time and at most once per
// sizeGap while a run of steps goes on; steps that ended meanwhile are
// measured once the run stops.
func TestSessionSizeIsMeasuredPaced(t *testing.T) {
	_, cfg, path := handoutWorld(t)
	m := New(cfg)
	r := m.runs[0]
	first := r.disk.measure(r.id, false)
	if first == nil {
		t.Fatal("no first measurement")
	}
	if r.disk.measure(r.id, true) != nil || !r.disk.stale {
		t.Fatal("a second measurement started while one is in flight")
	}
	r.busy = true // a run of steps goes on
	if r.disk.measured(r, first().(sessionSizeMsg)) != nil {
		t.Fatal("measured again while the run goes on")
	}
	if want, _ := loop.SessionBytes(path); r.live.health.Bytes != want {
		t.Fatalf("size %d, want %d", r.live.health.Bytes, want)
	}
	if r.disk.measure(r.id, false) != nil {
		t.Fatal("measured twice within sizeGap")
	}
	r.busy = false // the run stopped
	if r.disk.measure(r.id, true) == nil {
		t.Fatal("not measured when the run stopped")
	}
}
