// Package sessions is `glassbox sessions`: the sessions saved in the
// sessions folder listed one per line, with their health (--stats), or
// one session's health in full (--stats ID), in the person's language.
package sessions

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Main is `glassbox sessions [--stats [ID]]`, flags and all. Every
// mistake, and a folder or session that cannot be read, wraps
// agentrun.ErrUsage; flag.ErrHelp means the help was asked for and shown.
func Main(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stats := fs.Bool("stats", false, l.T("add each session's health (size, calls, retries, failures fed back, time per call, tokens); with an ID, that session's in full"))
	fs.String("lang", "", l.T("the language of what you read: en or ja (default: from LC_ALL, LC_MESSAGES or LANG)"))
	id, err := parseIDs(fs, args)
	if err != nil {
		return err
	}
	if len(id) > 1 || len(id) == 1 && !*stats {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("takes no arguments but --stats [ID]"))
	}
	dir, err := agentrun.SessionDir(os.Getenv)
	switch {
	case err == nil && len(id) == 1:
		err = Stats(l, stdout, dir, id[0])
	case err == nil && *stats:
		err = ListStats(l, stdout, stderr, dir)
	case err == nil:
		err = List(l, stdout, stderr, dir)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	return nil
}

// parseIDs parses args with fs and returns the words that are not flags:
// flags may follow an ID too (--stats ID --lang ja).
func parseIDs(fs *flag.FlagSet, args []string) ([]string, error) {
	var id []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, err
		} else if err != nil {
			return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
		}
		if fs.NArg() == 0 {
			return id, nil
		}
		id, args = append(id, fs.Arg(0)), fs.Args()[1:]
	}
}

// List is `glassbox sessions`: the sessions saved in dir, one per
// line, oldest first, tab-separated: id, started, provider(s), first
// request, steps, last state. A file that cannot be read is listed with
// the reason.
func List(l lang.Lang, stdout, stderr io.Writer, dir string) error {
	list, err := listed(l, stderr, dir)
	if err != nil || len(list) == 0 {
		return err
	}
	for _, s := range list {
		if s.Err != nil {
			fmt.Fprintf(stdout, "%s\t-\t-\t%s\t-\t-\n", s.ID, l.F("(unreadable: %s)", loop.Printable(oneLine(l.Error(s.Err)))))
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"),
			dialectNames(s.Runs), quoteRequest(s.Request), s.Steps, s.LastState)
	}
	return nil
}

// listed is the sessions in dir, oldest first; with none it says so on
// stderr.
func listed(l lang.Lang, stderr io.Writer, dir string) ([]session.Summary, error) {
	list, err := session.List(dir)
	if err == nil && len(list) == 0 {
		fmt.Fprintf(stderr, "glassbox sessions: %s\n", l.F("no sessions yet in %s", dir))
	}
	return list, err
}

// quoteRequest is the first request on one line, quoted, at most 60
// characters.
func quoteRequest(s string) string {
	s = oneLine(s)
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return strconv.Quote(s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// dialectNames names each run's dialect, as --compare does: "A,B".
func dialectNames(runs []session.RunDialect) string {
	var out []string
	for _, r := range runs {
		out = append(out, backend.NameOf(r.Provider, r.ToolMode))
	}
	return strings.Join(out, ",")
}
