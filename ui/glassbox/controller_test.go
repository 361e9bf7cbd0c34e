package glassbox

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// Controllers and dialogs take a key or a message and answer with an
// action: what the Model must do beyond their own state. They are tested
// here on their own, without routing a key through the Model: the action
// says everything.
func TestControllersAnswerWithActions(t *testing.T) {
	w := newWorld(t, tourScript()...)
	m := New(w.config())
	lessons := []Lesson{{Name: "tour", Title: "A tour", Request: "List the files"}}
	m.lessons.lessons = lessons

	t.Run("f at the present says why and starts nothing", func(t *testing.T) {
		a := m.forks.fork()
		if a.cmd != nil || a.open != nil || a.notice != "f forks from a past step: go back with [ first (you are at the present)" {
			t.Errorf("%+v", a)
		}
	})
	t.Run("the quit question", func(t *testing.T) {
		q := quitDialog{m.kit}
		if a := q.update(keyMsg("y")); !a.quit || a.close != q {
			t.Errorf("y: %+v", a)
		}
		if a := q.update(keyMsg("n")); a.quit || a.close != q || a.notice != "not quitting" {
			t.Errorf("n: %+v", a)
		}
		if a := q.update(keyMsg("u")); string(a.typing) != "qu" || a.close != q {
			t.Errorf("u: %+v (a letter types, with the q in front)", a)
		}
		if a := q.update(keyMsg("[")); !a.again || a.close != q || a.quit {
			t.Errorf("[: %+v (any other key closes the question and does what it does)", a)
		}
	})
	t.Run("a prediction picked steps the run", func(t *testing.T) {
		d := &predictDialog{c: m.predict, from: loop.CheckingPolicy, arcs: edgesFrom(loop.CheckingPolicy), key: " "}
		a := d.update(keyMsg("2"))
		if a.close != d || a.step == nil || a.step.mode != runOne || a.step.by != " " {
			t.Fatalf("%+v", a)
		}
		if m.predict.pending != d.arcs[1].Edge || a.notice != "you predict "+string(d.arcs[1].Edge)+" — stepping" {
			t.Errorf("pending %q, notice %q", m.predict.pending, a.notice)
		}
		m.predict.pending = ""
		if a := d.update(keyMsg("esc")); a.step != nil || a.close != d {
			t.Errorf("esc: %+v", a)
		}
	})
	t.Run("a lesson picked fills the input and gives it the keys", func(t *testing.T) {
		menu := m.lessons.open().open.(*lessonMenu)
		a := menu.update(keyMsg("enter"))
		if a.close != menu || a.fill == nil || *a.fill != "List the files" || !a.input || m.lessons.name != "tour" {
			t.Errorf("%+v", a)
		}
	})
	t.Run("z in tabs only says so", func(t *testing.T) {
		s := m.stepper
		if a := s.zoom(true); a.resize || s.zoomed || a.notice == "" {
			t.Errorf("tabs: %+v, zoomed %v", a, s.zoomed)
		}
		if a := s.zoom(false); !a.resize || !s.zoomed {
			t.Errorf("grid: %+v, zoomed %v", a, s.zoomed)
		}
		if a := s.unzoom(); !a.resize || s.zoomed {
			t.Errorf("esc: %+v, zoomed %v", a, s.zoomed)
		}
	})
	t.Run("a run's dialog hidden, passed, answered", func(t *testing.T) {
		r := m.runs[0]
		if a := personAnswered(r, dialogHidden); !a.panes || !r.hidden {
			t.Errorf("hidden: %+v", a)
		}
		if a := personAnswered(r, dialogPass); !a.pass {
			t.Errorf("pass: %+v", a)
		}
		if a := personAnswered(r, dialogKept); a.pass || a.panes || a.cmd != nil {
			t.Errorf("kept: %+v", a)
		}
	})
}

// apply carries an action out on the Model: the notice, the stack, the
// keyboard, the input.
func TestApplyCarriesOutTheAction(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	d := &forkQuestion{c: h.m.forks, run: h.m.runs[0], reason: "why"}
	h.m.apply(action{open: d, notice: "asked"})
	if h.m.top() != d || h.m.bar.notice != "asked" {
		t.Fatalf("open: top %v, notice %q", h.m.top(), h.m.bar.notice)
	}
	h.m.apply(action{close: d, panes: true})
	if h.m.top() != nil || h.m.inputFocused {
		t.Fatalf("close: top %v, input focused %v", h.m.top(), h.m.inputFocused)
	}
	text := "a request"
	h.m.apply(action{fill: &text, input: true})
	if h.m.input.Value() != text || !h.m.inputFocused {
		t.Fatalf("fill: %q, focused %v", h.m.input.Value(), h.m.inputFocused)
	}
	if cmd := h.m.apply(action{quit: true}); cmd == nil {
		t.Fatal("quit: no command")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("quit: not tea.Quit")
	}
}

// Compare mode's runs share one session file: the help overlay says its
// size once, as last measured, not once per run with two different
// numbers (each run measures after its own steps).
func TestCompareHelpSaysTheSessionSizeOnce(t *testing.T) {
	m := New(Config{Runs: []RunConfig{{Name: "a"}, {Name: "b"}}})
	a, b := m.runs[0], m.runs[1]
	a.disk.path, b.disk.path = "/s.jsonl", "/s.jsonl"
	a.live.sized(1000)
	b.live.sized(1200)
	a.disk.at = b.disk.at.Add(time.Second) // a measured last
	var sizes []string
	for _, ln := range m.helpBox.healthLines(100) {
		if strings.Contains(ln, "session on disk") {
			sizes = append(sizes, ln)
		}
	}
	if len(sizes) != 1 || !strings.Contains(sizes[0], "session on disk (both runs): 1000 bytes") {
		t.Errorf("the session's size in the help: %q, want it once, as a last measured it", sizes)
	}
}
