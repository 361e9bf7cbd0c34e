// Package tools holds the agent's tools (read_file, write_file, list_files,
// execute_command, ask_user), the workspace sandbox they run in, and the
// registry that lists them for the model.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history"
)

// Tool is one capability the model may call.
type Tool interface {
	// Spec is the definition the model sees.
	Spec() history.ToolSpec
	// Run executes the call. A problem the model can fix (a missing file, a
	// bad argument, a non-zero exit code) is a Result with IsError set; an
	// error return means the infrastructure failed (or ctx was cancelled).
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what a tool run produced, as text for the model.
type Result struct {
	Content string
	IsError bool
	// Sandbox, for execute_command, says whether the command ran under the
	// kernel's sandbox: "on — Landlock ABI 7: …" or "off — reason".
	Sandbox string
}

// Question is what ask_user puts to the person.
type Question struct {
	Text    string   `json:"question"`
	Options []string `json:"options,omitempty"`
}

// Asker answers ask_user questions. The engine's person (headless stdin or
// the TUI modal) implements it; Ask blocks until the person answers or ctx
// ends.
type Asker interface {
	Ask(ctx context.Context, q Question) (string, error)
}

// EscapeBidi writes the Unicode bidirectional controls in s (U+202A–U+202E
// and U+2066–U+2069) as visible escapes such as \u202e, and leaves every
// other byte as it is. Printed raw, these invisible characters reorder the
// text around them, so a file name or a line of code can read on screen as
// something other than what it is (the "Trojan Source" trick); escaped, what
// a person reads is what is there. The file tools pass every result through
// it.
func EscapeBidi(s string) string {
	if !strings.ContainsFunc(s, IsBidiControl) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if IsBidiControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteString(s[:size]) // an invalid byte stays as it was
		}
		s = s[size:]
	}
	return b.String()
}

// IsBidiControl reports whether r is one of the explicit bidirectional
// embedding, override or isolate controls.
func IsBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
