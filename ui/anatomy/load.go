// Package anatomy is `glassbox anatomy` — what each model call of a session
// or a cassette is made of and what each part costs — and `glassbox
// rosetta` — one step's conversation as every dialect would send it. The
// figures come from providers/anatomy and providers/rosetta; this package
// reads the files, and words and lays out what those packages compute.
package anatomy

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers"
)

// call is one model call of a file: the step it was made on (0 in a
// cassette, which has no steps) and its exchange.
type call struct {
	Step int
	X    providers.Exchange
}

// recording is what a session or a cassette holds for these commands.
type recording struct {
	Path  string
	Calls []call
	// Steps are the transitions of the session's run, with the messages
	// each added; nil for a cassette.
	Steps []loop.Transition
	// Run names the run read in a session of several (compare mode), ""
	// in a session of one run and in a cassette.
	Run string
}

// load reads a session (an id or a file) or a cassette file. A file is a
// cassette when it reads as one. run names the run of a compare session
// to read ("" the first); a cassette has none to choose.
func load(arg, run string, getenv func(string) string, needSteps bool) (*recording, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() && !needSteps {
		if c, cerr := providers.LoadCassette(arg); cerr == nil {
			r := &recording{Path: arg}
			if run != "" {
				return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, sentence.Errorf("--run %s: %s is a cassette, which holds one run", run, arg))
			}
			for _, x := range c.Exchanges {
				r.Calls = append(r.Calls, call{X: x})
			}
			return r, nil
		}
	}
	dir, derr := session.Dir(getenv)
	path, err := session.Locate("anatomy", dir, arg)
	if err != nil {
		if derr != nil && !strings.ContainsRune(arg, os.PathSeparator) {
			err = fmt.Errorf("%w (%w)", err, derr)
		}
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	return loadSession(path, run)
}

// loadSession reads one run of a session (the one named run, or the
// first): its steps and the exchanges of its model calls.
func loadSession(path, run string) (*recording, error) {
	f, err := session.Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	rl, err := pickRun(f, run)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	ts, err := loop.SessionTransitions(path, rl, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	r := &recording{Path: path, Steps: ts, Run: rl.Info.Name}
	reader := loop.NewExchangeReader(path, 0)
	for i, t := range ts {
		if t.LLM == nil || i >= len(rl.Steps) {
			continue
		}
		xs, err := reader.Load(rl.Steps[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
		}
		for _, x := range xs {
			r.Calls = append(r.Calls, call{Step: t.Seq, X: x})
		}
	}
	return r, nil
}

// pickRun is the run of f named run (as --compare names it), or its
// first run when run is "".
func pickRun(f *session.File, run string) (*session.RunLog, error) {
	if len(f.Runs) == 0 {
		return nil, sentence.Errorf("%s holds no run", f.Path)
	}
	if run == "" {
		return f.Runs[0], nil
	}
	var names []string
	for _, rl := range f.Runs {
		if rl.Info.Name == run {
			return rl, nil
		}
		if rl.Info.Name != "" {
			names = append(names, rl.Info.Name)
		}
	}
	if len(names) == 0 {
		return nil, sentence.Errorf("--run %s: %s holds one run, with no name (--run is for a session of compare mode)", loop.Printable(run), f.Path)
	}
	return nil, sentence.Errorf("--run %s: %s has no run of that name; its runs are %s", loop.Printable(run), f.Path, strings.Join(names, ", "))
}

// ErrNoStep: the step asked for is not in the file.
var ErrNoStep = errors.New("no such step")

// conversation is the conversation after step n: the messages every step
// up to it added, glassbox's notes left out.
func (r *recording) conversation(n int) ([]history.Message, error) {
	if n < 1 || n > len(r.Steps) {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, sentence.Errorf("step %d: %s has %d steps", n, r.Path, len(r.Steps)))
	}
	var msgs []history.Message
	for _, t := range r.Steps[:n] {
		msgs = append(msgs, t.Added...)
	}
	return history.WithoutNotes(msgs), nil
}
