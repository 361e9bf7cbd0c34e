package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// A session run headless, then reopened in the glass box: History holds the
// conversation, and time travel reaches every past step with its raw
// payload, read back from the files beside the session.
func TestResumeInTheGlassBoxBringsBackThePast(t *testing.T) {
	isolate(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "class.jsonl")
	var out, errb strings.Builder
	if code := runHeadless(t.Context(), []string{"--session", path, "--offline", "--lesson", "tour"}, noSleep, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}

	p, _, cfg := openGlassBox(t, "--resume", path)
	// The session lives outside the sessions folder: quitting names it by path.
	if want := "glassbox --resume " + path; cfg.Resume != want {
		t.Errorf("the quit question would say %q, want %q", cfg.Resume, want)
	}
	steps := len(cfg.Runs[0].Past)
	if steps < 10 {
		t.Fatalf("%d past steps", steps)
	}
	// Every message's commands run (reading a payload back from the
	// session) until nothing is left.
	update := func(msg tea.Msg) { p.send(msg) }
	view := func() string { return ansi.Strip(p.m.View()) }
	v := view()
	for _, want := range []string{"resumed: the", "Give me a tour", "answer delivered"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the resumed screen lacks %q:\n%s", want, v)
		}
	}
	update(tea.KeyMsg{Type: tea.KeyEsc})
	// Back to the first model call: its response, as it came over the wire,
	// read back from beside the session file.
	for i := 0; i < steps-3; i++ {
		update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'['}})
	}
	v = view()
	// The pane has scrolled to the functionCall part that decided the edge.
	for _, want := range []string{"◀ step 3/", "response (r)", "▶ tool_call", `"functionCall"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("step 3 of the resumed session lacks %q:\n%s", want, v)
		}
	}
}

// program is a Bubble Tea model driven the way the real program drives
// it, without a terminal: one message at a time, each command run and its
// message queued, and (with view) the screen drawn after every update. It
// is a loop, not a recursion, so a session of 20,000 steps does not grow
// a goroutine stack of 20,000 frames the real program never has. Spinner
// frames are left out.
type program struct {
	m      tea.Model
	view   bool
	onView func(string) // with view: is given every screen drawn
	queue  []tea.Msg
}

// send delivers msgs and everything their commands lead to.
func (p *program) send(msgs ...tea.Msg) {
	p.queue = append(p.queue, msgs...)
	for len(p.queue) > 0 {
		msg := p.queue[0]
		p.queue = p.queue[1:]
		if _, ok := msg.(spinner.TickMsg); ok {
			// The real program runs the spinner's timer beside everything
			// else; here it would wait 80 ms in line before each step.
			continue
		}
		var cmd tea.Cmd
		p.m, cmd = p.m.Update(msg)
		if p.view {
			v := p.m.View()
			if p.onView != nil {
				p.onView(v)
			}
		}
		p.queue = append(p.queue, messages(cmd)...)
	}
}

// messages runs cmd (and every command of a batch) and returns what they said.
func messages(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, messages(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}
