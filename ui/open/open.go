// Package open is `glassbox open FILE`: a trace another tool wrote — a HAR
// file, an OTLP JSON trace file, Gemini CLI's telemetry outfile — stepped
// through in the glass box like a replay, with every pane and time travel,
// or printed as trace records (--json) as `glassbox run --json` prints
// them. The file is read as the person steps (loop/tracefile streams it);
// nothing in it reaches a live agent. docs/standards.md, "Reading other
// tools' traces", is its page.
package open

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/tracefile"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Command is one `glassbox open`, its flags read.
type Command struct {
	File string
	JSON bool
	Lang lang.Lang
	// NoColor drops every colour (NO_COLOR).
	NoColor bool
}

// Main is `glassbox open FILE [--json]`, flags and all; FILE may come
// before or after the flags. A mistake the person can fix — a file that
// cannot be opened, or is none of the kinds glassbox reads — wraps
// agentrun.ErrUsage; flag.ErrHelp means the help was asked for and shown.
func Main(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	f, err := os.Open(c.File)
	if err != nil {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, c.Lang.F("cannot open %s: %v", c.File, err))
	}
	defer f.Close()
	r, err := tracefile.Open(f, tracefile.Options{Secrets: providers.SecretValues(os.Environ())})
	if err != nil {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, c.Lang.F("%s: %s", c.File, c.Lang.Error(err)))
	}
	if c.JSON {
		return c.printJSON(r, stdout, stderr)
	}
	if !glassbox.IsTerminal(stdout) {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, c.Lang.T("the glass box needs a terminal; --json prints the steps instead"))
	}
	return glassbox.Run(ctx, c.Config(r))
}

// parse binds the flags and reads args into a Command.
func parse(args []string, stderr io.Writer) (Command, error) {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox open", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Command
	fs.BoolVar(&c.JSON, "json", false, l.T("print the steps as JSONL trace records (as 'glassbox run --json' does) instead of opening the glass box"))
	langFlag := fs.String("lang", "", l.T("the language of what you read: en or ja (default: from LC_ALL, LC_MESSAGES or LANG)"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox open FILE [--json]\n\nSteps through a trace another tool wrote, in the glass box, like a replay:\na HAR file (browser devtools, mitmproxy, glassbox export --format har),\nan OTLP JSON trace file (the OpenTelemetry collector's file exporter),\nor Gemini CLI's telemetry outfile. The kind is told from the content.\n\nFlags:"))
		fs.PrintDefaults()
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		c.File, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	var err error
	if c.Lang, err = lang.Choose(*langFlag, os.Getenv); err != nil {
		return c, fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	if c.File == "" && fs.NArg() > 0 {
		c.File = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: %s", agentrun.ErrUsage, c.Lang.F("unexpected argument %q (one file at a time)", fs.Arg(0)))
	}
	if c.File == "" || fs.NArg() > 1 {
		fs.Usage()
		return c, fmt.Errorf("%w: %s", agentrun.ErrUsage, c.Lang.T("which file? Give a HAR, OTLP JSON or Gemini CLI telemetry file"))
	}
	_, c.NoColor = os.LookupEnv("NO_COLOR")
	return c, nil
}

// printJSON writes every step as a trace record, and then, on stderr, what
// the file lacks. A file that breaks off keeps the steps before the break.
func (c Command) printJSON(r *tracefile.Reader, stdout, stderr io.Writer) error {
	var line bytes.Buffer
	for {
		t, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %s", c.File, c.Lang.Error(err))
		}
		line.Reset()
		if err := loop.WriteJSON(&line, t); err != nil {
			return err
		}
		if _, err := stdout.Write(escapeBidi(line.Bytes())); err != nil {
			return err
		}
	}
	for _, n := range c.notes(r, true) {
		fmt.Fprintf(stderr, "glassbox open: %s\n", n)
	}
	return nil
}

// escapeBidi writes the bidirectional controls of a JSON line as \u
// escapes: the same JSON, which a terminal cannot reorder.
func escapeBidi(b []byte) []byte {
	if !bytes.ContainsFunc(b, tools.IsBidiControl) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if tools.IsBidiControl(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// notes are what the History pane and --json's stderr say of the file:
// what it lacks, and, once it is read (end), the entries it skipped.
func (c Command) notes(r *tracefile.Reader, end bool) []string {
	var out []string
	for _, m := range r.Missing() {
		out = append(out, c.Lang.Dyn(m))
	}
	switch n := r.Skipped(); {
	case !end || n == 0:
	case n == 1:
		out = append(out, c.Lang.T("1 entry of the file is no model call (a page, a script, another request): it makes no step"))
	default:
		out = append(out, c.Lang.F("%d entries of the file are no model call (pages, scripts, other requests): they make no step", n))
	}
	return out
}

// kindName is how the screen names a file's kind.
func kindName(kind string) string {
	switch kind {
	case tracefile.HAR:
		return "HAR"
	case tracefile.OTLP:
		return "OTLP JSON"
	}
	return "Gemini CLI telemetry"
}

// Config is the glass box for the file r reads: its steps pulled as the
// person steps, read only.
func (c Command) Config(r *tracefile.Reader) glassbox.Config {
	s := &stepper{r: r, c: c}
	name := loop.Printable(c.File)
	banner := c.Lang.F("%s · %s, read from a file: nothing reaches a live agent", name, kindName(r.Kind()))
	if cr := r.Creator(); cr != "" {
		banner = c.Lang.F("%s · %s written by %s, read from a file: nothing reaches a live agent", name, kindName(r.Kind()), loop.Printable(cr))
	}
	rc := glassbox.RunConfig{Name: "open", Label: kindName(r.Kind()), Banner: banner, Backend: "file",
		BackendReason: c.Lang.T("a trace file"), Provider: kindName(r.Kind()), Notes: s.fresh(false)}
	return glassbox.Config{
		Runs:    []glassbox.RunConfig{rc},
		Follow:  &glassbox.Follow{Who: "trace", Pull: s.pull},
		Status:  func() (string, string) { return "OPEN", name },
		Lang:    c.Lang,
		NoColor: c.NoColor,
	}
}

// stepper hands the glass box the file's steps as far as a key asks.
type stepper struct {
	mu    sync.Mutex
	r     *tracefile.Reader
	c     Command
	said  map[string]bool
	ended bool
}

// fresh are the notes not said yet.
func (s *stepper) fresh(end bool) []string {
	if s.said == nil {
		s.said = map[string]bool{}
	}
	var out []string
	for _, n := range s.c.notes(s.r, end) {
		if !s.said[n] {
			s.said[n] = true
			out = append(out, n)
		}
	}
	return out
}

// pull reads the file's next steps: one, to the model's reply (an
// iteration), or to the loop's rest (a turn).
func (s *stepper) pull(_ context.Context, how glassbox.Pull) (glassbox.FollowBatch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b glassbox.FollowBatch
	if s.ended {
		return b, false
	}
	for {
		t, err := s.r.Next()
		if err != nil {
			s.ended = true
			notes := s.fresh(true)
			if !errors.Is(err, io.EOF) {
				notes = append(notes, s.c.Lang.F("the file breaks off here: %s", s.c.Lang.Error(err)))
			}
			b.Note = strings.Join(notes, "\n")
			return b, false
		}
		b.Transitions = append(b.Transitions, t)
		if done(how, t) {
			break
		}
	}
	b.Note = strings.Join(s.fresh(false), "\n")
	return b, true
}

// done says a pull of how far has gone far enough with t.
func done(how glassbox.Pull, t loop.Transition) bool {
	switch how {
	case glassbox.PullIteration:
		return t.LLM != nil || t.To == loop.WaitingForEvent
	case glassbox.PullTurn:
		return t.To == loop.WaitingForEvent
	}
	return true
}
