package headless

import (
	"fmt"
	"io"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// resumed tells what reopening a session found and did: on stderr, the
// warnings (a torn last line) and the recovery from a crash; in the trace,
// the session's position and each fork (a record of its own in JSONL).
func (p printer) resumed(stderr io.Writer) error {
	if len(p.runs) == 0 || p.runs[0].Session == nil || !p.runs[0].Session.Resumed {
		return nil
	}
	s := p.runs[0].Session
	l := p.o.Lang
	for _, w := range s.Warnings {
		fmt.Fprintf(stderr, "glassbox run: %s\n", l.F("warning: %s", loop.Printable(w)))
	}
	for _, r := range s.Recovery {
		fmt.Fprintf(stderr, "glassbox run: %s\n", l.F("recovering: %s", loop.Printable(r)))
	}
	for _, r := range p.runs {
		if !p.o.JSON {
			fmt.Fprintf(p.out, "%s%s\n", prefix(r), l.F("resumed %s at step %d (%s)", s.Path, r.Engine.Seq(), r.Engine.State()))
		}
		for _, f := range r.Forks {
			if p.o.JSON {
				line, err := f.JSON()
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintf(p.out, "%s\n", line); err != nil {
					return err
				}
				continue
			}
			note := ""
			if f.Fork.Note != "" {
				note = " · " + f.Fork.Note
			}
			if _, err := fmt.Fprintln(p.out, loop.Printable(prefix(r)+"[FORK]    "+l.F("from step %d, continuing with %s (%s)", f.Fork.From, f.Fork.Provider, f.Fork.Model)+note)); err != nil {
				return err
			}
		}
	}
	return nil
}

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
