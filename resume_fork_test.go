package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// A session forked onto another dialect (F), quit and reopened, shows
// what was on screen before quitting: the same count of messages in the
// context, the answer once, the fork's note on what could not carry over,
// and the payload pane on the same side. It used to read back one message
// more, with the answer twice, and the payload on the request side.
func TestResumeAfterForkOntoShowsWhatWasOnScreen(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	press := func(p *program, keys ...string) {
		for _, k := range keys {
			switch k {
			case "enter":
				p.send(tea.KeyMsg{Type: tea.KeyEnter})
			case "esc":
				p.send(tea.KeyMsg{Type: tea.KeyEsc})
			default:
				p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
			}
		}
	}
	view := func(p *program) string { return ansi.Strip(p.m.View()) }
	count := regexp.MustCompile(`context (\d+) msgs`)
	side := regexp.MustCompile(`(request|response) \(r\)`)
	type screen struct{ msgs, side string }
	look := func(v string) screen {
		var s screen
		if m := count.FindStringSubmatch(v); m != nil {
			s.msgs = m[1]
		}
		if m := side.FindStringSubmatch(v); m != nil {
			s.side = m[1]
		}
		return s
	}

	p, runs, _ := openGlassBox(t, "--session", path, "--offline", "--lesson", "tour")
	press(p, "enter", " ", " ", " ") // the request, assembled, the model asks for a tool
	press(p, "F")
	if v := view(p); !strings.Contains(v, "Fork onto another dialect") {
		t.Fatalf("F opened no menu:\n%s", v)
	}
	press(p, "1") // llama (JSON mode)
	v := view(p)
	for _, want := range []string{"forked onto llama", "instead of Gemini", "could not"} {
		if !strings.Contains(v, want) {
			t.Fatalf("after the fork the screen lacks %q:\n%s", want, v)
		}
	}
	press(p, "c")
	v = view(p)
	if !strings.Contains(v, "answer delivered") {
		t.Fatalf("the forked run did not reach its answer:\n%s", v)
	}
	before := look(v)
	if before.msgs == "" || before.side == "" {
		t.Fatalf("no context count or payload side on screen:\n%s", v)
	}
	answers := strings.Count(v, "answer delivered")
	h := runs[0].Engine.History()
	answer := strings.Join(strings.Fields(h[len(h)-1].Text)[:3], " ") // its first words, on one line
	shown := strings.Count(v, answer)
	if shown == 0 {
		t.Fatalf("the answer (%q) is not on screen:\n%s", answer, v)
	}
	if err := agentrun.CloseAll(runs); err != nil { // quitting
		t.Fatal(err)
	}

	p, _, _ = openGlassBox(t, "--resume", path)
	press(p, "esc") // out of the input line, as a learner would
	v = view(p)
	if after := look(v); after != before {
		t.Errorf("resumed: %+v, before quitting: %+v\n%s", after, before, v)
	}
	if n := strings.Count(v, "answer delivered"); n != answers {
		t.Errorf("'answer delivered' %d times after resume, %d before:\n%s", n, answers, v)
	}
	if n := strings.Count(v, answer); n != shown {
		t.Errorf("the answer (%q) is on screen %d times after resume, %d before:\n%s", answer, n, shown, v)
	}
	for _, want := range []string{"instead of Gemini", "could not"} {
		if !strings.Contains(v, want) {
			t.Errorf("the resumed History lacks the fork's note (%q):\n%s", want, v)
		}
	}
}
