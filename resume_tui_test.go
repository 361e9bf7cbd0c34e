package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui"
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

	c, _, err := loadConfig("glassbox", []string{"--resume", path}, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	persons := map[string]*ui.Person{}
	runs, err := agentrun.OpenAll(t.Context(), c, func(name string) loop.Person {
		persons[name] = ui.NewPerson()
		return persons[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer agentrun.CloseAll(runs)
	cfg, err := ui.ConfigFor(c.Lesson, runs, persons)
	if err != nil {
		t.Fatal(err)
	}
	// The session lives outside the sessions folder: quitting names it by path.
	if want := "glassbox --resume " + path; cfg.Resume != want {
		t.Errorf("the quit question would say %q, want %q", cfg.Resume, want)
	}
	steps := len(cfg.Runs[0].Past)
	if steps < 10 {
		t.Fatalf("%d past steps", steps)
	}
	var m tea.Model = ui.New(cfg)
	// update feeds msg to the model and runs what it asks for (reading a
	// payload back from the session) until nothing is left.
	var update func(msg tea.Msg)
	update = func(msg tea.Msg) {
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		run(cmd, update)
	}
	run(m.Init(), update)
	update(tea.WindowSizeMsg{Width: 160, Height: 48})
	view := func() string { return ansi.Strip(m.View()) }
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
	for _, want := range []string{"◀ step 3/", "response (r)", "generateContent · 200 OK", `"functionCall"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("step 3 of the resumed session lacks %q:\n%s", want, v)
		}
	}
}

// run runs cmd (and every command of a batch) and hands each message to
// update.
func run(cmd tea.Cmd, update func(tea.Msg)) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			run(c, update)
		}
	default:
		update(msg)
	}
}
