// Package tools holds the agent's tools (read_file, write_file, list_files,
// execute_command, ask_user), the workspace sandbox they run in, and the
// registry that lists them for the model.
package tools

import (
	"context"
	"encoding/json"

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
