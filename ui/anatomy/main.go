package anatomy

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Main is `glassbox anatomy SESSION|CASSETTE [--step N] [--json]`.
func Main(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox anatomy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	step := fs.Int("step", 0, l.T("show the model call of step N part by part (default: every call, by kind)"))
	asJSON := fs.Bool("json", false, l.T("print the figures as one JSON document"))
	run := fs.String("run", "", l.T("in a session of compare mode, the run to read, named as --compare names it (default: the first)"))
	langFlag := fs.String("lang", "", l.T("the language of the page's headings and labels: en or ja (default: from LC_ALL, LC_MESSAGES or LANG); what the session holds is shown as it is"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox anatomy SESSION|CASSETTE [--step N] [--run NAME] [--json]\n\nWhat each model call's request is made of — system prompt, tools, each message, settings — with the bytes and tokens of every part, what each call keeps from the one before (what a prompt cache can reuse) and how the requests grow.\nSESSION is an id (see 'glassbox sessions') or a session file; CASSETTE a file written with --record.\n\nFlags:"))
		fs.PrintDefaults()
	}
	target, err := parse(fs, args, l)
	if err != nil {
		return err
	}
	if l, err = lang.Choose(*langFlag, os.Getenv); err != nil {
		return fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	rec, err := load(target, *run, os.Getenv, false)
	if err != nil {
		return err
	}
	rep, err := report(rec, *step)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	_, err = io.WriteString(stdout, rep.text(l))
	return err
}

// parse binds the flags and returns the one SESSION|CASSETTE argument,
// which may come before or after them.
func parse(fs *flag.FlagSet, args []string, l lang.Lang) (string, error) {
	target := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		target, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if target == "" && fs.NArg() > 0 {
		target = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("unexpected argument %q (one session at a time)", fs.Arg(0)))
	}
	if target == "" {
		fs.Usage()
		return "", fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("which session? Give its id (see 'glassbox sessions') or its file"))
	}
	return target, nil
}

// Report is what `glassbox anatomy` shows, and its --json document.
type Report struct {
	File string `json:"file"`
	// Run names the run read in a session of compare mode.
	Run   string `json:"run,omitempty"`
	Calls []Call `json:"calls"`
	// Growth is the requests' size call by call.
	Growth []anatomy.Point `json:"growth"`
	// Unread are the exchanges no dialect reads.
	Unread []Unread `json:"unread,omitempty"`
}

// Unread is an exchange no dialect reads: its method and address, and the
// reader's error when its body is at fault ("" for a path no dialect has).
type Unread struct {
	Call  string `json:"call"`
	Error string `json:"error,omitempty"`
}

// Call is one model call's anatomy, with its place in the file and what
// it did with the call before.
type Call struct {
	N    int `json:"call"`           // 1, 2, … in the file's order
	Step int `json:"step,omitempty"` // the session's step; 0 in a cassette
	anatomy.Call
	Since *anatomy.Change `json:"since_previous,omitempty"`
}

// report reads every call of rec; with step, only that step's calls keep
// their parts.
func report(rec *recording, step int) (*Report, error) {
	rep := &Report{File: rec.Path, Run: rec.Run}
	var calls []anatomy.Call
	for _, c := range rec.Calls {
		a, ok, err := anatomy.FromExchange(backend.Wire(), c.X)
		if !ok {
			u := Unread{Call: loop.Printable(c.X.Method + " " + c.X.URL)}
			if err != nil {
				u.Error = loop.Printable(err.Error())
			}
			rep.Unread = append(rep.Unread, u)
			continue
		}
		entry := Call{N: len(calls) + 1, Step: c.Step, Call: a}
		if len(calls) > 0 {
			ch := anatomy.Between(calls[len(calls)-1], a)
			entry.Since = &ch
		}
		calls = append(calls, a)
		if step == 0 || c.Step == step {
			if step == 0 {
				entry.Call = entry.Call.Summary()
			}
			rep.Calls = append(rep.Calls, entry)
		}
	}
	if step > 0 && len(rep.Calls) == 0 {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, sentence.Errorf("step %d of %s made no model call", step, rec.Path))
	}
	rep.Growth = anatomy.Growth(calls)
	return rep, nil
}
