package glassbox

import (
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The status bar says where the run's spans stand: how many were sent and
// how many dropped, and why, right after the backend — at 120 columns it
// is still on the bar — in the person's language.
func TestStatusBarCountsSpans(t *testing.T) {
	stats := telemetry.Stats{Sent: 12}
	for _, tc := range []struct {
		name  string
		lang  lang.Lang
		drops []telemetry.Drop
		want  string
	}{
		{"all sent", lang.EN, nil, " otlp 12 sent "},
		{"refused", lang.EN, []telemetry.Drop{{Reason: telemetry.ReasonRefused, Count: 3}}, " otlp 12 sent · 3 dropped: refused "},
		{"rejected", lang.EN, []telemetry.Drop{{Reason: telemetry.ReasonRejected, Count: 2, Detail: "HTTP 401"}}, " otlp 12 sent · 2 dropped: HTTP 401 "},
		{"japanese", lang.JA, []telemetry.Drop{{Reason: telemetry.ReasonTimeout, Count: 5}}, " otlp 12 件送信 · 5 件欠落: 応答なし "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			cfg := w.config()
			cfg.Lang = tc.lang
			s := stats
			s.Dropped = tc.drops
			cfg.Telemetry = func() telemetry.Stats { return s }
			h := newHarness(t, cfg, 120, 34)
			lines := strings.Split(h.plainView(), "\n")
			if bar := lines[len(lines)-1]; !strings.Contains(bar, tc.want) {
				t.Errorf("status bar %q lacks %q", bar, tc.want)
			}
		})
	}
	// Without export, no segment.
	h := newHarness(t, newWorld(t).config(), 120, 34)
	if strings.Contains(h.plainView(), " otlp ") {
		t.Error("an otlp segment without --otlp")
	}
}
