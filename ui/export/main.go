package export

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Main is `glassbox export SESSION|CASSETTE [--step N] [--format md|html|har]
// [--out FILE]`, flags and all, for glassbox version (a HAR file's
// creator); SESSION may come before or after the flags. A mistake the
// person can fix wraps agentrun.ErrUsage; flag.ErrHelp means the help was
// asked for and shown.
func Main(version string) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		c, err := parse(args, stderr)
		if err != nil {
			return err
		}
		c.Version = version
		return c.Run(os.Getenv, stdout)
	}
}

// parse binds the flags and reads args into a Command.
func parse(args []string, stderr io.Writer) (Command, error) {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Command
	fs.IntVar(&c.Step, "step", 0, l.T("export only step N, counted from 1 as in 'glassbox sessions' (default: the whole session)"))
	format := fs.String("format", "md", l.T("md (Markdown), html (one self-contained file) or har (every HTTP exchange as HAR 1.2, for a browser's network panel; SESSION may then be a cassette)"))
	fs.StringVar(&c.Out, "out", "", l.T("write the page to FILE (default: standard output)"))
	langFlag := fs.String("lang", "", l.T("the language of the page's headings and labels: en or ja (default: from LC_ALL, LC_MESSAGES or LANG); what the session holds is shown as it is"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox export SESSION|CASSETTE [--step N] [--format md|html|har] [--out FILE]\n\nWrites a step, or the whole session, as one page a learner can take home,\nor its HTTP exchanges as a HAR file (--format har, also from a cassette).\nSESSION is an id (see 'glassbox sessions') or a session file.\n\nFlags:"))
		fs.PrintDefaults()
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		c.Session, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return c, usageMistake(err)
	}
	if err := sessionArg(&c, fs, l); err != nil {
		return c, err
	}
	var err error
	if c.Lang, err = lang.Choose(*langFlag, os.Getenv); err != nil {
		return c, fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	if c.Format, err = ParseFormat(*format); err != nil {
		return c, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	return c, nil
}

// sessionArg checks the arguments left after the flags (one SESSION in
// all) and --step.
func sessionArg(c *Command, fs *flag.FlagSet, l lang.Lang) error {
	if c.Session == "" && fs.NArg() > 0 {
		c.Session = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("unexpected argument %q (one session at a time)", fs.Arg(0)))
	}
	if c.Session == "" || fs.NArg() > 1 {
		fs.Usage()
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("which session? Give its id (see 'glassbox sessions') or its file"))
	}
	stepSet := false
	fs.Visit(func(f *flag.Flag) { stepSet = stepSet || f.Name == "step" })
	if stepSet && c.Step < 1 {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--step %d: steps count from 1", c.Step))
	}
	return nil
}

// usageMistake is a flag parsing error as Main returns it: the help asked
// for stays flag.ErrHelp, anything else is a usage mistake.
func usageMistake(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
}
