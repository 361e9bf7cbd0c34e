package tapbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/headless"
)

// tapped is an open tap and what it keeps: its session, its cassette, its
// spans.
type tapped struct {
	o        Options
	tap      *tap.Tap
	path     string // the session file
	writer   *session.Writer
	journal  *loop.Journal
	cassette *providers.CassetteWriter
	spans    *telemetry.Exporter
	feed     *telemetry.Feed
	past     []loop.Transition
}

// open opens the tap — holding every call in the glass box (tui), nothing
// headless — then what it keeps: the session (new, or the one --resume
// goes on with, whose steps the tap reads first), the cassette and the
// exporter. An upstream the tap cannot use is refused before any file is
// made; whatever was opened is closed again when a later part fails.
func open(o Options, tui bool) (*tapped, error) {
	k := &tapped{o: o}
	if err := k.openAll(tui); err != nil {
		k.close(io.Discard)
		return nil, err
	}
	return k, nil
}

func (k *tapped) openAll(tui bool) error {
	secrets := providers.SecretValues(os.Environ())
	if k.o.Resume != "" {
		if err := k.resume(); err != nil {
			return err
		}
	}
	mode := tap.Running
	if tui {
		mode = tap.Stepping
	}
	var err error
	k.tap, err = tap.New(tap.Options{Upstream: k.o.Upstream, Getenv: os.Getenv, Secrets: secrets, Mode: mode,
		Breakpoints: k.o.Breaks, OnExchange: k.recorded, Observe: k.observe, Past: k.past})
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if k.o.Resume == "" {
		if err := k.create(); err != nil {
			return err
		}
	}
	k.writer.Guard(nil, liveMask{k.tap})
	if k.o.Record != "" {
		if k.cassette, err = providers.NewCassetteWriter(k.o.Record, providers.CassetteHeader{Provider: tap.CassetteProvider}, secrets...); err != nil {
			return fmt.Errorf("%w: --record: %w", agentrun.ErrUsage, err)
		}
	}
	return k.startTelemetry(secrets)
}

// create makes the session file: --session, or a new one in the sessions
// folder.
func (k *tapped) create() error {
	path := k.o.Session
	if path == "" {
		dir, err := agentrun.SessionDir(os.Getenv)
		if err != nil {
			return err
		}
		if path, err = session.NewPath(dir, time.Now()); err != nil {
			return err
		}
	}
	w, err := session.Create(path, session.Header{Glassbox: k.o.Version, Started: time.Now().UTC(),
		Runs: []session.RunInfo{{Provider: tap.CassetteProvider, Backend: tap.CassetteProvider, Workspace: ""}}})
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	k.path, k.writer, k.journal = path, w, loop.NewJournal(w, "", "")
	return nil
}

// resume reads a tap session back: its steps (with their exchanges, which
// the tap reads again) and a writer that appends to it.
func (k *tapped) resume() error {
	dir, _ := agentrun.SessionDir(os.Getenv)
	path, err := session.Find(dir, k.o.Resume)
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	f, err := session.Read(path)
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if len(f.Header.Runs) != 1 || f.Header.Runs[0].Backend != tap.CassetteProvider {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, k.o.Lang.F("%s is a session of glassbox's own agent, not of a tap: go on with it with glassbox --resume %s", path, k.o.Resume))
	}
	rl, _ := f.Run("")
	if k.past, err = loop.SessionTransitions(path, rl, true); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	w, err := session.Append(f)
	if err != nil {
		return err
	}
	k.path, k.writer, k.journal = path, w, loop.NewJournal(w, "", "")
	if n := len(k.past); n > 0 {
		k.journal.ObservedAfter(k.past[n-1].HistoryLen)
	}
	return nil
}

// startTelemetry starts the OpenTelemetry exporter --otlp (or the
// environment) asks for; the spans begin with the first step.
func (k *tapped) startTelemetry(secrets []string) error {
	s, err := telemetry.Resolve(k.o.OTLP, k.o.OTLPContent, os.Getenv)
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if !s.Enabled() {
		return nil
	}
	s.Secrets = append(s.Secrets, secrets...)
	if k.spans, err = telemetry.Start(s, k.o.Version, telemetry.Limits{}); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	k.feed = k.spans.Observe(telemetry.Run{Provider: tap.CassetteProvider, Operation: "chat",
		Conversation: strings.TrimSuffix(filepath.Base(k.path), ".jsonl"), Stream: true})
	return nil
}

// observe keeps each step: in the session (which says where its
// exchanges are), and as spans.
func (k *tapped) observe(t *loop.Transition) {
	if k.journal != nil {
		k.journal.Observed(t)
	}
	if k.feed != nil {
		k.feed.Transition(*t)
	}
}

// recorded writes each exchange to the cassette.
func (k *tapped) recorded(x providers.Exchange) {
	if k.cassette != nil {
		k.cassette.Write(x)
	}
}

// close lets the held calls go and closes what was opened, saying on w
// where the session is and what could not be kept.
func (k *tapped) close(w io.Writer) {
	l := k.o.Lang
	if k.tap != nil {
		k.tap.Close()
	}
	if k.cassette != nil {
		if err := k.cassette.Close(); err != nil {
			fmt.Fprintf(w, "glassbox tap: %s\n", l.Error(err))
		} else {
			fmt.Fprintf(w, "glassbox tap: %s\n", l.F("cassette written to %s (glassbox --replay %s steps it again)", k.o.Record, k.o.Record))
		}
	}
	headless.TelemetryClosed(l, w, "glassbox tap", k.spans)
	if k.writer == nil {
		return
	}
	if err := k.journal.Err(); err != nil {
		fmt.Fprintf(w, "glassbox tap: %s\n", l.Error(err))
	}
	if err := k.writer.Close(); err != nil {
		fmt.Fprintf(w, "glassbox tap: %s\n", l.Error(err))
	}
	id := strings.TrimSuffix(filepath.Base(k.path), ".jsonl")
	fmt.Fprintf(w, "glassbox tap: %s\n", l.F("session saved: %s (glassbox tap --resume %s goes on with it)", k.path, id))
}

// liveMask masks the session with what the tap masks now: its secrets and
// every key an agent has sent so far.
type liveMask struct{ t *tap.Tap }

func (m liveMask) MaskJSON(b []byte) []byte { return m.t.Masker().MaskJSON(b) }
func (m liveMask) Holds(b []byte) bool      { return m.t.Masker().Holds(b) }
