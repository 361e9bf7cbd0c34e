package agentrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
)

// WhatIf is one what-if edit: the context the engine is about to send, in a
// file for a person to edit in $VISUAL or $EDITOR (the TUI runs the editor
// with tea.ExecProcess; headless code and tests run it directly), then
// applied before the call is made.
type WhatIf struct {
	// Path is the file to edit: indented JSON, {"system", "messages", "tools"}.
	Path     string
	engine   *loop.Engine
	original []byte
}

// PrepareWhatIf writes the context e is about to send (e must be in
// AWAITING_LLM_RESPONSE) to a new temporary file.
func PrepareWhatIf(e *loop.Engine) (*WhatIf, error) {
	data, err := e.ExportContext()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "glassbox-what-if-*.json")
	if err != nil {
		return nil, err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return &WhatIf{Path: f.Name(), engine: e, original: data}, nil
}

// EditorCommand is the command that opens path in the person's editor:
// $VISUAL, else $EDITOR, else vi. A value with arguments ("code -w") is
// split at spaces.
func EditorCommand(getenv func(string) string, path string) *exec.Cmd {
	editor := strings.TrimSpace(getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(getenv("EDITOR"))
	}
	if editor == "" {
		editor = "vi"
	}
	words := strings.Fields(editor)
	return exec.Command(words[0], append(words[1:], path)...)
}

// Apply reads the edited file and makes it what is sent (the transition
// that sends it is marked "edited"). A file left as it was changes
// nothing (changed is false). An invalid edit is an error that says what is
// wrong, and the original context stays; the file is kept so the person
// can fix it and Apply again.
func (w *WhatIf) Apply() (changed bool, err error) {
	data, err := os.ReadFile(w.Path)
	if err != nil {
		return false, fmt.Errorf("what-if: reading the edited context: %w", err)
	}
	if bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(w.original)) {
		return false, nil
	}
	if err := w.engine.ReplaceContext(data); err != nil {
		return false, err
	}
	return true, nil
}

// Close removes the file.
func (w *WhatIf) Close() error { return os.Remove(w.Path) }
