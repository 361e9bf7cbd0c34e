package glassbox

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/loop"
)

func init() {
	// Golden files and string assertions see plain text.
	lipgloss.SetColorProfile(termenv.Ascii)
}

// harness drives a Model the way the Bubble Tea runtime would, without a
// terminal (in the style of glow's resize_test.go): it feeds a message to
// Update, runs the command that comes back, feeds its message back in, and
// so on until nothing is left. A step command blocks until the engine's step
// is done or the step needs the person; then the modal is open and the test
// answers it with a key, which resumes the wait.
type harness struct {
	t    testing.TB
	m    *Model
	quit bool
	// normalize, if set, rewrites each message before Update sees it
	// (golden tests zero the measured durations).
	normalize func(tea.Msg) tea.Msg
	// late, when set, takes the messages of commands that wait for
	// something outside the model (a tap's next news): such a command is
	// left running, as the runtime would, and await feeds its message in
	// when it comes.
	late chan tea.Msg
}

// lateAfter is how long a command may take before a harness with late
// leaves it running.
const lateAfter = 50 * time.Millisecond

// await feeds the messages of the commands left running until ok holds,
// failing the test after a deadline.
func (h *harness) await(what string, ok func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for !ok() {
		select {
		case msg := <-h.late:
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func newHarness(t testing.TB, cfg Config, w, h int) *harness {
	t.Helper()
	m := New(cfg)
	m.animate = false // no spinner ticks: frames are stable
	// The what-if editor runs as a plain child process: no terminal to hand over.
	m.forks.exec = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		return func() tea.Msg { return fn(c.Run()) }
	}
	hs := &harness{t: t, m: m}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// send feeds msg to Update and settles: every resulting command is run and
// its message fed back, until none is left.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			h.t.Fatal("the model never settled")
		}
		msg := queue[0]
		queue = queue[1:]
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			for _, c := range msg {
				queue = append(queue, h.run(c))
			}
			continue
		case tea.QuitMsg:
			h.quit = true
			continue
		}
		if h.normalize != nil {
			msg = h.normalize(msg)
		}
		next, cmd := h.m.Update(msg)
		h.m = next.(*Model)
		if cmd != nil {
			queue = append(queue, h.run(cmd))
		}
	}
}

// run runs one command, failing the test if it hangs.
func (h *harness) run(c tea.Cmd) tea.Msg {
	h.t.Helper()
	if c == nil {
		return nil
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- c() }()
	limit := 10 * time.Second
	if h.late != nil {
		limit = lateAfter
	}
	select {
	case msg := <-out:
		return msg
	case <-time.After(limit):
		if h.late != nil {
			go func() { h.late <- <-out }()
			return nil
		}
		h.t.Fatal("a command did not return within 10s")
		return nil
	}
}

// press sends keys by name: "enter", "esc", "tab", "ctrl+c", "up", "space",
// "alt+enter", or a single character.
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "alt+enter":
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// typeText types s into whatever has focus, as one paste-like key message
// (so wide characters arrive whole).
func (h *harness) typeText(s string) {
	h.t.Helper()
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
}

func (h *harness) view() string { return h.m.View() }

// plainView is the view without any escape sequences.
func (h *harness) plainView() string { return ansi.Strip(h.m.View()) }

// states is the sequence of states the received transitions went through.
func (h *harness) states() []loop.State {
	var out []loop.State
	for _, s := range h.m.runs[0].live.steps {
		out = append(out, s.t.To)
	}
	return out
}

func (h *harness) edges() []loop.Edge {
	var out []loop.Edge
	for _, s := range h.m.runs[0].live.steps {
		out = append(out, s.t.Edge)
	}
	return out
}

// stepUntil presses space until the engine reaches state s (or fails).
func (h *harness) stepUntil(s loop.State) {
	h.t.Helper()
	for i := 0; i < 100; i++ {
		if h.m.runs[0].live.state == s && len(h.m.runs[0].live.steps) > 0 {
			return
		}
		if h.m.runs[0].confirm != nil || h.m.runs[0].ask != nil {
			h.t.Fatalf("a modal opened before %s", s)
		}
		h.press("space")
	}
	h.t.Fatalf("never reached %s; states: %v", s, h.states())
}

// checkScreen asserts the frame is exactly the terminal's size.
func checkScreen(t testing.TB, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d", len(lines), h)
	}
	for i, ln := range lines {
		if got := ansi.StringWidth(ln); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(ln))
		}
	}
}

func contains(t testing.TB, s, want string) {
	t.Helper()
	if !strings.Contains(s, want) {
		t.Fatalf("screen does not contain %q:\n%s", want, s)
	}
}

func notContains(t testing.TB, s, unwanted string) {
	t.Helper()
	if strings.Contains(s, unwanted) {
		t.Fatalf("screen contains %q:\n%s", unwanted, s)
	}
}

// cellAt is the character drawn in column x of a screen line.
func cellAt(line string, x int) string {
	return ansi.Cut(ansi.Strip(line), x, x+1)
}

// zeroDurations makes a finished step's measured times zero, so frames that
// show them are the same on every run.
func zeroDurations(msg tea.Msg) tea.Msg {
	d, ok := msg.(stepDoneMsg)
	if !ok {
		return msg
	}
	if d.t.LLM != nil {
		llm := *d.t.LLM
		llm.LatencyMS = 0
		d.t.LLM = &llm
	}
	if d.t.Result != nil {
		r := *d.t.Result
		r.DurationMS = 0
		d.t.Result = &r
	}
	pending := make([]loop.PendingCall, len(d.t.Pending))
	for i, pc := range d.t.Pending {
		if pc.Result != nil {
			r := *pc.Result
			r.DurationMS = 0
			pc.Result = &r
		}
		pending[i] = pc
	}
	d.t.Pending = pending
	return d
}

// isOpen reports whether a dialog of kind T is on the stack.
func isOpen[T dialog](m *Model) bool {
	_, ok := opened[T](&m.stack)
	return ok
}

func must[T any](v T, _ bool) T { return v }

// opened returns the open dialog of kind T, if any.
func opened[T dialog](s *dialogStack) (T, bool) {
	for i := len(s.open) - 1; i >= 0; i-- {
		if d, ok := s.open[i].(T); ok {
			return d, true
		}
	}
	var zero T
	return zero, false
}
