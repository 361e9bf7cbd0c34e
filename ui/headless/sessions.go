package headless

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// ListSessions is `glassbox sessions`: the sessions saved in dir, one per
// line, oldest first, tab-separated: id, started, provider(s), first
// request, steps, last state. A file that cannot be read is listed with
// the reason.
func ListSessions(l lang.Lang, stdout, stderr io.Writer, dir string) error {
	list, err := session.List(dir)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "glassbox sessions: %s\n", l.F("no sessions yet in %s", dir))
		return nil
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

// SessionSaved says where the session of runs is and the command that
// picks it up again (cmd is "glassbox" or "glassbox run"); dir is the
// default sessions folder, where an id is enough.
func SessionSaved(l lang.Lang, w io.Writer, cmd, dir string, runs []*agentrun.Run) {
	if len(runs) == 0 || runs[0].Session == nil {
		return
	}
	s := runs[0].Session
	if err := s.Err(); err != nil {
		fmt.Fprintf(w, "%s: %s\n", cmd, l.F("%s (the session file is incomplete)", l.Error(err)))
	}
	fmt.Fprintf(w, "%s\n%s\n", l.F("session saved: %s", s.Path), l.F("resume it with: %s", s.ResumeCommand(cmd, dir)))
}

// dialectNames names each run's dialect, as --compare does: "A,B".
func dialectNames(runs []session.RunDialect) string {
	var out []string
	for _, r := range runs {
		out = append(out, backend.NameOf(r.Provider, r.ToolMode))
	}
	return strings.Join(out, ",")
}
