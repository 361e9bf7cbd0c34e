package glassbox

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// The handout (X) of a call sent after a what-if edit shows where the
// prompt cache breaks — at the edited message, marked on the page.
func TestHandoutShowsTheCacheBreakOfAWhatIf(t *testing.T) {
	_, cfg, path := handoutWorld(t)
	anatomyEditor(t)
	h := newHarness(t, cfg, 160, 48)
	r := h.m.runs[0]
	h.typeText("list the files")
	h.press("enter")
	for len(r.live.callSteps()) < 2 || r.live.state != loop.AwaitingLLMResponse {
		h.press("space")
	}
	h.press("w", "space")
	if s := r.live.selected(); !s.t.Edited {
		t.Fatalf("the call was not sent edited: %s", h.m.bar.noticeText(h.m.top()))
	}
	seq := r.live.selected().t.Seq
	h.press("X")
	page := readFile(t, filepath.Join(session.DataDir(path), "handouts", "step-"+strconv.Itoa(seq)+".html"))
	if !strings.Contains(page, `<p class="breaks">`) || !strings.Contains(page, "The cache breaks at message 3 (tool_result)") {
		t.Errorf("the handout of the edited call does not show the break:\n%s", page)
	}
}
