package open

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// mitmproxyHAR is Gemini CLI's HTTP, saved by mitmproxy (loop/tracefile/
// testdata/README.md says how): the requests' bytes are in it.
var mitmproxyHAR = filepath.Join("..", "..", "loop", "tracefile", "testdata", "geminicli", "mitmproxy.har")

// An opened HAR file's model calls are taken apart in the Anatomy pane as
// a run's are: the first call's request, then the second one's, which
// kept the first and appended the tool's result; back in time, the first
// again. A trace of messages only (Gemini CLI's telemetry) says why there
// is nothing to take apart, and draws no growth of nothing.
func TestAnatomyOfAnOpenedFile(t *testing.T) {
	h := openTUI(t, mitmproxyHAR, lang.EN, 160, 48)
	h.press("space", "space", "space")
	first := []string{"call 1 · #3", "9,996 bytes · 39 parts", "9,050 tokens reported (+7,006)", "the run's first call: nothing cached", "tool ×16"}
	has(t, "the first call", h.view(), first...)
	h.press("c")
	has(t, "the second call", h.view(), "call 2 · #8", "kept 9,804 · appended 407 bytes · 8,192", "growth ▇█ 9,996→10,405 bytes")
	for range 5 {
		h.press("[")
	}
	has(t, "back at step 3", h.view(), first...)

	g := openTUI(t, geminiCLI, lang.EN, 120, 34)
	g.press("space", "space", "space", "space", "space") // at step 5, call 1 is still shown
	v := g.view()
	has(t, "telemetry", v, "call 1 · #3", "nothing to take apart.")
	if strings.Contains(v, "Growth") || strings.Contains(v, "growth") {
		t.Error("a trace without bytes draws a growth chart")
	}
}

func has(t *testing.T, what, v string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, v)
		}
	}
}
