package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"

	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/ui"
)

// runTUI opens the full-screen glass box.
func runTUI(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, rest, err := parseFlags("glassbox", args, false, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "glassbox: %v\n", err)
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "glassbox: unexpected argument %q (did you mean 'glassbox run %s'?)\n", rest[0], rest[0])
		return exitUsage
	}
	lesson, ok := offline.LessonByName(o.lesson)
	if !ok {
		fmt.Fprintf(stderr, "glassbox: no lesson named %q (see 'glassbox lessons')\n", o.lesson)
		return exitUsage
	}

	if out, ok := stdout.(*os.File); !ok || !term.IsTerminal(out.Fd()) {
		fmt.Fprintln(stderr, "glassbox: the glass box needs a terminal; for scripts and pipes use 'glassbox run [flags] PROMPT' (see 'glassbox help')")
		return exitUsage
	}

	// Stdout belongs to the TUI: everything logged (ours, and the SDKs'
	// log.Printf warnings) goes to a file.
	logPath, closeLog, err := logToFile()
	if err != nil {
		fmt.Fprintf(stderr, "glassbox: cannot open a log file (%v); start it with XDG_STATE_HOME pointing to a writable folder\n", err)
		return exitUsage
	}
	defer closeLog()

	person := ui.NewPerson()
	sess, err := newSession(ctx, o, person)
	if err != nil {
		fmt.Fprintf(stderr, "glassbox: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitProvider
	}
	defer sess.close()

	var lessons []ui.Lesson
	for _, l := range offline.Lessons() {
		lessons = append(lessons, ui.Lesson{Name: l.Name, Title: l.Title, Request: l.Request})
	}
	err = ui.Run(ctx, ui.Config{
		Engine:        sess.engine,
		Person:        person,
		Banner:        sess.backend.describe(),
		Backend:       sess.backend.kind,
		BackendReason: sess.backend.reason,
		Workspace:     workspaceLabel(sess),
		Lessons:       lessons,
		Lesson:        lesson.Name,
		NoColor:       os.Getenv("NO_COLOR") != "",
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "glassbox: %v (log: %s)\n", err, logPath)
		return exitProvider
	}
	return exitOK
}

// workspaceLabel is the workspace as the welcome shows it.
func workspaceLabel(s *session) string {
	if s.temporary {
		return s.workspace.Root() + " (a fresh copy of the sample project, removed when you quit)"
	}
	return s.workspace.Root()
}

// logToFile points the standard logger at glassbox.log in the user's state
// folder ($XDG_STATE_HOME/glassbox, or ~/.local/state/glassbox), or in the
// temporary folder when that one cannot be written.
func logToFile() (string, func(), error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	var firstErr error
	for _, d := range []string{filepath.Join(dir, "glassbox"), filepath.Join(os.TempDir(), "glassbox")} {
		path := filepath.Join(d, "glassbox.log")
		f, err := openLog(d, path)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		log.SetOutput(f)
		return path, func() { log.SetOutput(os.Stderr); f.Close() }, nil
	}
	return "", nil, firstErr
}

func openLog(dir, path string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}
