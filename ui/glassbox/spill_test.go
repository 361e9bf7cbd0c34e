package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// With a session to read from, only the latest model calls keep their
// payloads in memory; time travel to an older one reads it back.
func TestOldPayloadsAreReadBackFromTheSession(t *testing.T) {
	var replies []reply
	const keep = 3
	for i := 0; i < 9; i++ {
		replies = append(replies, reply{calls: []history.ToolCall{call(fmt.Sprint("l", i), "list_files", map[string]any{"path": "."})}})
	}
	w := newWorld(t, replies...)
	reader := loop.NewExchangeReader(journalled(t, w), 0)
	cfg := w.config()
	var asked []int
	cfg.Runs = []RunConfig{{Engine: w.eng, Person: w.person, Backend: "offline",
		Exchanges: func(tr *loop.Transition) ([]providers.Exchange, error) {
			asked = append(asked, tr.Seq)
			return reader.LoadAt(*tr.ExchangesAt)
		}}}
	h := newHarness(t, cfg, 160, 48)
	h.m.runs[0].store.keep = keep
	h.typeText("list, again and again")
	h.press("enter")
	for i := 0; i < 8; i++ {
		h.press("i")
	}
	r := h.m.runs[0]
	held, spilled := 0, 0
	for _, s := range r.live.steps {
		switch {
		case len(s.t.Exchanges) > 0:
			held++
		case s.spilled:
			spilled++
		}
	}
	if held > keep+1 || spilled < 3 {
		t.Fatalf("%d steps hold payloads, %d spilled (keep %d)", held, spilled, keep)
	}
	// Back to the first model call.
	h.press("esc")
	for r.live.selectedIndex() > 2 {
		h.press("[")
	}
	first := r.live.selected()
	if len(asked) == 0 || asked[len(asked)-1] != first.t.Seq {
		t.Fatalf("asked for %v, want step %d", asked, first.t.Seq)
	}
	if len(first.t.Exchanges) != 1 || first.spilled {
		t.Fatalf("step %d: %d exchanges, spilled %v", first.t.Seq, len(first.t.Exchanges), first.spilled)
	}
	h.press("r") // the request: the first one, with the person's words
	if v := h.plainView(); !strings.Contains(v, "request body") {
		t.Fatalf("the read-back payload is not shown:\n%s", v)
	}
}
