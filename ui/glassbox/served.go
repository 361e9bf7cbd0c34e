package glassbox

import (
	"context"
	"os"

	"github.com/charmbracelet/x/term"
)

// NewServed is the glass box for a program glassbox does not start itself
// (glassbox serve runs one per SSH connection): New, with ctx as the base
// of every step, so a closed connection cancels the step in flight. Call
// Stop on the final model when its program ends.
func NewServed(ctx context.Context, cfg Config) *Model {
	m := New(cfg)
	for _, r := range m.runs {
		r.base = ctx
	}
	return m
}

// Stop cancels every step still in flight (the program has ended).
func (m *Model) Stop() { m.stepper.cancelSteps() }

// NoticeMsg puts one line on the notice line, as a key's own notice does:
// what a front end around the glass box refused or changed (a paste over
// the room's limit, a terminal clamped to the largest frame).
type NoticeMsg string

// ReadPassword reads a line from the terminal f without echoing it: the
// workshop passphrase glassbox follow asks for. When ctx ends first (Ctrl-C)
// the terminal gets its echo back and ctx's error is returned.
func ReadPassword(ctx context.Context, f *os.File) (string, error) {
	fd := f.Fd() // once: the read below may outlive this call (and f)
	st, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		got <- line{string(b), err}
	}()
	select {
	case l := <-got:
		return l.s, l.err
	case <-ctx.Done():
		term.Restore(fd, st)
		return "", context.Cause(ctx)
	}
}
