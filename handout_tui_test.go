package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// The glass box glassbox opens knows its session and its keys: X in a
// resumed session writes the handout of the step time travel shows beside
// the session, and the status bar carries the run's health with the
// session's size as loop.SessionHealth measures it.
func TestHandoutKeyAndHealthInTheGlassBoxGlassboxOpens(t *testing.T) {
	isolate(t)
	const key = "AIzaSyWIRING-handout-0123456789abcdef"
	t.Setenv("GEMINI_API_KEY", key)
	path := filepath.Join(t.TempDir(), "class.jsonl")
	var out, errb strings.Builder
	if code := runHeadless(t.Context(), []string{"--session", path, "--offline", "--lesson", "tour"}, noSleep, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	p, _, cfg := openGlassBox(t, "--resume", path, "--offline")
	if cfg.Session != path || !slices.Contains(cfg.Secrets, key) {
		t.Fatalf("the glass box's session %q (want %q); its keys hold the run's: %v", cfg.Session, path, slices.Contains(cfg.Secrets, key))
	}
	want, err := loop.SessionHealth(path)
	if err != nil {
		t.Fatal(err)
	}
	p.send(tea.WindowSizeMsg{Width: 400, Height: 48}) // room for the whole health line
	lines := strings.Split(ansi.Strip(p.m.View()), "\n")
	if status := lines[len(lines)-1]; !strings.Contains(status, "health "+want.String()) {
		t.Errorf("the status bar lacks the session's health %q:\n%s", want.String(), status)
	}
	p.send(tea.WindowSizeMsg{Width: 160, Height: 48})

	steps := len(cfg.Runs[0].Past)
	p.send(tea.KeyMsg{Type: tea.KeyEsc})
	for i := 0; i < steps-3; i++ {
		p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'['}})
	}
	p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'X'}})
	file := filepath.Join(session.DataDir(path), "handouts", "step-3.html")
	if v := ansi.Strip(p.m.View()); !strings.Contains(v, "handout written: "+file) {
		t.Fatalf("no notice of the handout:\n%s", v)
	}
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "step 3 of") || strings.Contains(string(page), key) {
		t.Errorf("the handout is not step 3's, or shows the key")
	}
}
