package headless

import (
	"testing"

	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Every reason the summary says through Dyn has Japanese.
func TestTelemetryReasonsHaveJapanese(t *testing.T) {
	for _, r := range telemetry.Reasons {
		if !lang.Has(string(r)) {
			t.Errorf("%q has no Japanese", r)
		}
	}
}
