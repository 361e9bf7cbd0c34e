package ui

import (
	"context"
	"os"

	"github.com/charmbracelet/x/term"

	tea "github.com/charmbracelet/bubbletea"
)

// NewServed is the glass box for a program glassbox does not start itself
// (glassbox serve runs one per SSH connection): New, with ctx as the base
// of every step, so a closed connection cancels the step in flight. Call
// Stop on the final model when its program ends.
func NewServed(ctx context.Context, cfg Config) Model {
	m := New(cfg)
	for _, r := range m.runs {
		r.base = ctx
	}
	return m
}

// Stop cancels every step still in flight (the program has ended).
func (m Model) Stop() { m.cancelSteps() }

// NoticeMsg puts one line on the notice line, as a key's own notice does:
// what a front end around the glass box refused or changed (a paste over
// the room's limit, a terminal clamped to the largest frame).
type NoticeMsg string

func (m Model) notify(msg NoticeMsg) (tea.Model, tea.Cmd) {
	m.notice = string(msg)
	return m, nil
}

// ReadPassword reads a line from the terminal f without echoing it: the
// workshop passphrase glassbox follow asks for.
func ReadPassword(f *os.File) (string, error) {
	b, err := term.ReadPassword(f.Fd())
	return string(b), err
}
