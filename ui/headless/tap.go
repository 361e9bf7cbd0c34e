package headless

import (
	"context"
	"fmt"
	"io"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Tapped is what a headless tap reads its news from (loop/tap.Tap).
type Tapped interface {
	Next(ctx context.Context) (tap.News, bool)
	Secrets() []string
}

// Tap prints what a tap sees until the tap is closed and has said
// everything (the tap's server closes it when ctx ends): each step as
// `glassbox run` prints one — a JSON line with JSON (the trace format),
// else a line a person reads, with the inferred steps saying why they are
// believed — and the tap's notes on stderr. Nothing is held: the agent
// runs as it would without the tap. A line that cannot be written ends it
// with the error.
func Tap(ctx context.Context, t Tapped, o Options, stdout, stderr io.Writer) error {
	say := sayIn(o.Lang)
	// Next is not stopped by ctx: when ctx ends the tap shuts down, and
	// the steps of the calls that finish meanwhile still come, until the
	// tap is closed and has said everything.
	next := context.WithoutCancel(ctx)
	for {
		news, ok := t.Next(next)
		if !ok {
			return nil
		}
		mask := providers.NewMasker(t.Secrets()...)
		for _, e := range news.Events {
			if e.Note != nil {
				fmt.Fprintf(stderr, "glassbox tap: %s\n", mask.Mask(o.Lang.Error(e.Note)))
				continue
			}
			if err := writeStep(stdout, *e.Step, o, say, mask); err != nil {
				return err
			}
		}
	}
}

// writeStep prints one step of a tapped agent.
func writeStep(w io.Writer, t loop.Transition, o Options, say loop.Say, mask *providers.Masker) error {
	if o.JSON {
		return loop.WriteJSON(maskedWriter{w, mask}, t)
	}
	line := loop.HumanIn(t, say)
	if t.Inferred != "" {
		line += "  (" + inferred(o.Lang) + ")"
	}
	_, err := fmt.Fprintln(w, mask.Mask(line))
	return err
}

// inferred says a step was not seen on the wire, in a few words.
func inferred(l lang.Lang) string { return l.T("inferred: not on the wire") }

// maskedWriter masks what it writes: a step made from a call before the
// tap had seen the agent's key cannot hold it, but a line is checked all
// the same.
type maskedWriter struct {
	w    io.Writer
	mask *providers.Masker
}

func (m maskedWriter) Write(p []byte) (int, error) {
	if _, err := m.w.Write(m.mask.MaskBytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
