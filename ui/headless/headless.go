// Package headless is `glassbox run`: one event from the cli source, stepped
// until the engine is idle, every transition printed — the human trace or
// JSONL. Confirmations and questions are read from standard input, one line
// each. It imports no Bubble Tea, so scripts and CI never need a terminal.
package headless

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// Outcome is how a headless run ended; main turns it into an exit code.
type Outcome int

const (
	Answered       Outcome = iota // the answer was delivered
	ProviderFailed                // the provider failed, or the run could not go on
	Halted                        // the iteration limit stopped the loop
)

// Options shape the output.
type Options struct {
	JSON    bool   // JSONL on stdout instead of the human trace
	Version string // shown in the human trace's first line
}

// Run feeds prompt to r's engine and steps it until it is idle. The trace
// goes to stdout; the one-line reason for a failure goes to stderr too, so a
// person running a script sees it while the trace stays clean.
func Run(ctx context.Context, r *agentrun.Run, prompt string, o Options, stdout, stderr io.Writer) Outcome {
	if !o.JSON {
		fmt.Fprintf(stdout, "glassbox %s · %s\nworkspace: %s\n", o.Version, r.Backend.Describe(), r.WorkspaceLabel())
	}
	outcome := Answered
	r.Engine.Submit(loop.Event{Source: "cli", Type: "user_input", Data: prompt})
	for {
		t, err := r.Engine.Step(ctx)
		if errors.Is(err, loop.ErrIdle) {
			return outcome
		}
		if err != nil {
			fmt.Fprintf(stderr, "glassbox run: interrupted in %s: %v\n", r.Engine.State(), err)
			return ProviderFailed
		}
		if o.JSON {
			err = loop.WriteJSON(stdout, t)
		} else {
			_, err = fmt.Fprintln(stdout, loop.Human(t))
		}
		if err != nil {
			fmt.Fprintf(stderr, "glassbox run: writing the trace: %v\n", err)
			return ProviderFailed
		}
		switch t.Edge {
		case loop.EdgeMaxIterations:
			outcome = Halted
			fmt.Fprintf(stderr, "glassbox run: halted: the iteration limit (%d model calls for one request) was reached\n", r.Engine.MaxIterations())
		case loop.EdgeLLMFailure:
			outcome = ProviderFailed
			if t.Error != nil {
				fmt.Fprintf(stderr, "glassbox run: the provider failed: %s\n", loop.Printable(t.Error.Message))
			}
		}
	}
}
