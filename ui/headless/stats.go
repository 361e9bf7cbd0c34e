package headless

import (
	"fmt"
	"io"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// ListSessionStats is `glassbox sessions --stats`: the sessions in dir,
// oldest first, one per line under a header, tab-separated: id, started,
// provider(s), steps, and the run's health (loop.Health). A file that
// cannot be read is listed with the reason.
func ListSessionStats(stdout, stderr io.Writer, dir string) error {
	list, err := session.List(dir)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "glassbox sessions: no sessions yet in %s\n", dir)
		return nil
	}
	fmt.Fprintln(stdout, "id\tstarted\tprovider(s)\tsteps\thealth")
	for _, s := range list {
		h, err := health(s)
		if err != nil {
			fmt.Fprintf(stdout, "%s\t-\t-\t-\t(unreadable: %s)\n", s.ID, loop.Printable(oneLine(err.Error())))
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%d\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"), dialectNames(s.Runs), s.Steps, h)
	}
	return nil
}

func health(s session.Summary) (loop.Health, error) {
	if s.Err != nil {
		return loop.Health{}, s.Err
	}
	return loop.SessionHealth(s.Path)
}

// SessionStats is `glassbox sessions --stats ID`: one session's health in
// full, a labelled line each. idOrFile is taken as --resume takes it.
func SessionStats(stdout io.Writer, dir, idOrFile string) error {
	path, err := session.Locate("--stats", dir, idOrFile)
	if err != nil {
		return err
	}
	s := session.Summarize(path)
	h, err := health(s)
	if err != nil {
		return err
	}
	failures := h.FailureKinds()
	if failures == "" {
		failures = "none"
	}
	w := func(label, format string, args ...any) {
		fmt.Fprintf(stdout, "%-18s%s\n", label, fmt.Sprintf(format, args...))
	}
	w("session", "%s", loop.Printable(path))
	w("started", "%s", s.Started.Local().Format("2006-01-02 15:04:05"))
	w("provider(s)", "%s", loop.Printable(dialectNames(s.Runs)))
	w("steps", "%d (last state %s)", s.Steps, loop.Printable(s.LastState))
	w("health", "%s", h)
	w("size on disk", "%d bytes (the session file, its exchanges and file copies)", h.Bytes)
	w("model calls", "%d, %d retried attempts", h.Calls, h.Retries)
	w("fed back", "%d (%s)", h.FedBack(), failures)
	if h.Calls > 0 {
		w("time per call", "%s", h.CallTimes())
	}
	w("tokens", "%d in, %d out", h.In, h.Out)
	return nil
}
