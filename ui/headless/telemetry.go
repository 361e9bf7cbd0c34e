package headless

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// TelemetryWait bounds how long glassbox waits, as it ends, for the
// collector to take the spans still queued: a collector that hangs costs
// the exit at most this.
const TelemetryWait = 2 * time.Second

// TelemetryStarted says where the spans go and what asked for it (a
// variable set long ago may be what turned export on).
func TelemetryStarted(l lang.Lang, w io.Writer, name string, exp *telemetry.Exporter) {
	if exp == nil {
		return
	}
	s := exp.Settings()
	line := l.F("OpenTelemetry: spans go to %s (%s)", exp.Stats().Endpoint, s.From)
	if s.Content {
		line += "; " + l.T("with the messages and tool results, masked (--otlp-content)")
	}
	fmt.Fprintf(w, "%s: %s\n", name, line)
}

// TelemetryClosed ends the export (waiting TelemetryWait at most) and says
// how many spans went out and how many were dropped, and why.
func TelemetryClosed(l lang.Lang, w io.Writer, name string, exp *telemetry.Exporter) {
	if exp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), TelemetryWait)
	defer cancel()
	fmt.Fprintf(w, "%s: %s\n", name, TelemetrySummary(l, exp.Close(ctx)))
}

// TelemetrySummary is the export's account in one line: "OpenTelemetry:
// 42 spans sent to URL; 3 dropped: the collector refused the connection (3)".
func TelemetrySummary(l lang.Lang, s telemetry.Stats) string {
	if n := s.DroppedTotal(); n > 0 {
		return l.F("OpenTelemetry: %d span%s sent to %s; %d dropped: %s", s.Sent, plural(int(s.Sent), "", "s"), s.Endpoint, n, DropReasons(l, s.Dropped))
	}
	return l.F("OpenTelemetry: %d span%s sent to %s", s.Sent, plural(int(s.Sent), "", "s"), s.Endpoint)
}

// DropReasons lists why spans were dropped, with each reason's count.
func DropReasons(l lang.Lang, drops []telemetry.Drop) string {
	var parts []string
	for _, d := range drops {
		p := l.Dyn(string(d.Reason))
		if d.Detail != "" {
			p += ", " + d.Detail
		}
		parts = append(parts, l.F("%s (%d)", p, d.Count))
	}
	return strings.Join(parts, l.T("; "))
}
