package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
)

// options are the command-line flags of DESIGN §3.
type options struct {
	provider   string
	model      string
	toolMode   string
	offline    bool
	live       bool
	lesson     string
	simLatency time.Duration
	workspace  string
	maxIter    int
	policy     string
	yes        bool
	record     string
	replay     string
	json       bool
	trace      string

	// sleep replaces the engine's retry wait; tests set it, no flag does.
	sleep func(context.Context, time.Duration) error
}

// parseFlags parses args for the TUI (headless=false) or `run`. It returns
// the remaining positional arguments.
func parseFlags(name string, args []string, headless bool, stderr io.Writer) (options, []string, error) {
	var o options
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.provider, "provider", "gemini", "which provider: gemini or llama")
	fs.StringVar(&o.model, "model", "", "model id (default gemini-2.5-flash / llama3.1:8b)")
	fs.StringVar(&o.toolMode, "tool-mode", "json", "llama only: json (JSON-mode prompting) or native (Ollama tools API)")
	fs.BoolVar(&o.offline, "offline", false, "force the offline simulation")
	fs.BoolVar(&o.live, "live", false, "force the live service (never falls back to offline)")
	fs.StringVar(&o.lesson, "lesson", "tour", "offline: which lesson's request to start with (see 'glassbox lessons')")
	defLatency := 300 * time.Millisecond
	if headless {
		defLatency = 0
	}
	fs.DurationVar(&o.simLatency, "sim-latency", defLatency, "offline: simulated delay per provider call")
	fs.StringVar(&o.workspace, "workspace", "", "the folder the tools may touch (default: a fresh temporary copy of the sample project)")
	fs.IntVar(&o.maxIter, "max-iterations", loop.DefaultMaxIterations, "LLM calls per event before HALTED")
	fs.StringVar(&o.policy, "policy", "", "security rules (TOML) replacing the built-in ones (docs/policy.md)")
	fs.BoolVar(&o.yes, "yes", false, "approve every confirmation (DENY rules still deny)")
	fs.StringVar(&o.record, "record", "", "write a cassette of the raw HTTP exchanges to FILE")
	fs.StringVar(&o.replay, "replay", "", "serve the provider from a cassette FILE (no key, no network)")
	fs.StringVar(&o.trace, "trace", "", "also append the JSONL trace to FILE")
	if headless {
		fs.BoolVar(&o.json, "json", false, "print the JSONL trace on stdout instead of the human trace")
	}
	fs.Usage = func() {
		if headless {
			fmt.Fprintln(stderr, "Usage: glassbox run [flags] PROMPT\n\nRuns the agent loop on PROMPT until it is idle and prints every transition.\nWith --lesson and no PROMPT, the lesson's own request is used.\n\nFlags:")
		} else {
			fmt.Fprintln(stderr, "Usage: glassbox [flags]\n\nOpens the full-screen glass box.\n\nFlags:")
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, nil, flag.ErrHelp
		}
		return o, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := o.validate(); err != nil {
		return o, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return o, fs.Args(), nil
}

func (o *options) validate() error {
	switch o.provider {
	case "gemini", "llama":
	default:
		return fmt.Errorf("--provider %q: want gemini or llama", o.provider)
	}
	switch o.toolMode {
	case "json", "native":
	default:
		return fmt.Errorf("--tool-mode %q: want json or native", o.toolMode)
	}
	if o.offline && o.live {
		return errors.New("--offline and --live contradict each other")
	}
	if o.replay != "" && (o.offline || o.live) {
		return errors.New("--replay serves a cassette; it cannot be combined with --offline or --live")
	}
	if o.replay != "" && o.record != "" {
		return errors.New("--record and --replay cannot be used together")
	}
	if o.maxIter < 1 {
		return fmt.Errorf("--max-iterations %d: want at least 1", o.maxIter)
	}
	if o.simLatency < 0 {
		return fmt.Errorf("--sim-latency %s: want zero or more", o.simLatency)
	}
	return nil
}
