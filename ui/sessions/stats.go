package sessions

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// ListStats is `glassbox sessions --stats`: the sessions in dir,
// oldest first, one per line under a header, tab-separated: id, started,
// provider(s), steps, and the run's health (loop.Health). A file that
// cannot be read is listed with the reason.
func ListStats(l lang.Lang, stdout, stderr io.Writer, dir string) error {
	list, err := listed(l, stderr, dir)
	if err != nil || len(list) == 0 {
		return err
	}
	fmt.Fprintln(stdout, l.T("id\tstarted\tprovider(s)\tsteps\thealth"))
	for _, s := range list {
		h, err := health(s)
		if err != nil {
			fmt.Fprintf(stdout, "%s\t-\t-\t-\t%s\n", s.ID, l.F("(unreadable: %s)", loop.Printable(oneLine(l.Error(err)))))
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%d\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"), dialectNames(s.Runs), s.Steps, h.StringIn(l.F))
	}
	return nil
}

func health(s session.Summary) (loop.Health, error) {
	if s.Err != nil {
		return loop.Health{}, s.Err
	}
	return loop.SessionHealth(s.Path)
}

// Stats is `glassbox sessions --stats ID`: one session's health in
// full, a labelled line each. idOrFile is taken as --resume takes it.
func Stats(l lang.Lang, stdout io.Writer, dir, idOrFile string) error {
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
		failures = l.T("none")
	}
	var rows [][2]string // label, value
	w := func(label, value string) { rows = append(rows, [2]string{label, value}) }
	w(l.T("session"), loop.Printable(path))
	w(l.T("started"), s.Started.Local().Format("2006-01-02 15:04:05"))
	w(l.T("provider(s)"), loop.Printable(dialectNames(s.Runs)))
	w(l.T("steps"), l.F("%d (last state %s)", s.Steps, loop.Printable(s.LastState)))
	w(l.T("health"), h.StringIn(l.F))
	w(l.T("size on disk"), l.F("%d bytes (the session file, its exchanges and file copies)", h.Bytes))
	w(l.T("model calls"), l.F("%d, %d retried attempts", h.Calls, h.Retries))
	w(l.T("fed back"), fmt.Sprintf("%d (%s)", h.FedBack(), failures))
	if h.Calls > 0 {
		w(l.T("time per call"), h.CallTimes())
	}
	w(l.T("tokens"), l.F("%d in, %d out", h.In, h.Out))
	// The values start in one column: at 18 cells, or two past the widest
	// label (a double-width character takes two).
	col := 18
	for _, r := range rows {
		col = max(col, ansi.StringWidth(r[0])+2)
	}
	for _, r := range rows {
		fmt.Fprintf(stdout, "%s%s%s\n", r[0], strings.Repeat(" ", col-ansi.StringWidth(r[0])), r[1])
	}
	return nil
}
