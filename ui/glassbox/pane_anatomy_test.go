package glassbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/cell"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// anatomyEditor is a what-if editor that adds plan.txt to the tour's first
// tool result (list_files'), message 3 of the conversation.
func anatomyEditor(t testing.TB) {
	t.Helper()
	editor := filepath.Join(t.TempDir(), "editor.sh")
	script := "#!/bin/sh\nsed -i '0,/hello\\.py\\\\n/s//hello.py\\\\nplan.txt\\\\n/' \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
}

// showAnatomy gives the keys to the Anatomy pane and zooms it.
func showAnatomy(h *harness) {
	h.m.focusPane(paneAnatomy)
	if !h.m.stepper.zoomed {
		h.press("z")
	}
}

// anatomyInfo is the Anatomy pane's status on run r's frame.
func anatomyInfo(r *runView) string { return r.panes[paneAnatomy].(*anatomyPane).info }

// The pane follows the step on screen: the request assembled and not sent
// yet, the call sent, and, travelling back, each earlier call in turn; a
// step before the iteration's call says so.
func TestAnatomyPaneFollowsTheStepShown(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	r := h.m.runs[0]
	h.press("enter", "space", "space") // new_event, context_ready: the request is previewed
	if got := anatomyInfo(r); got != "call 1 · unsent" {
		t.Fatalf("at context_ready the pane shows %q", got)
	}
	contains(t, h.plainView(), "not sent yet: the request as")
	h.press("space")
	if got := anatomyInfo(r); got != "call 1 · #3" {
		t.Fatalf("after the call the pane shows %q", got)
	}
	h.press("c")
	showAnatomy(h)
	v := h.plainView()
	for _, want := range []string{"Call 3, sent at step #13", "What it is made of", "reported by the provider in usageMetadata.promptTokenCount",
		"Since call 2: what a provider's prompt cache can reuse", "The cache does not break", "zoomed (z) · call 3 · #13"} {
		contains(t, v, want)
	}
	for _, want := range []struct {
		key, info string
	}{{"[", "call 3 · #13"}, {"[", "call 3 · #13"}, {"[", "call 3 · #13"}, {"[", "call 2 · #8"}} {
		for i := 0; i < 3 && anatomyInfo(r) != want.info; i++ {
			h.press(want.key)
		}
		if got := anatomyInfo(r); got != want.info {
			t.Fatalf("travelling back the pane shows %q, want %q", got, want.info)
		}
	}
	contains(t, h.plainView(), "Call 2, sent at step #8")
	for r.live.selectedIndex() > 0 {
		h.press("[")
	}
	contains(t, h.plainView(), "This step is before the iteration's model call")
	// j scrolls the zoomed pane; another call on screen starts from its top.
	p := r.panes[paneAnatomy].(*anatomyPane)
	for anatomyInfo(r) != "call 1 · #3" {
		h.press("]")
	}
	h.press("j", "j")
	if p.pos.off != 2 {
		t.Fatalf("j j: the pane is at line %d", p.pos.off)
	}
	for anatomyInfo(r) == "call 1 · #3" {
		h.press("]")
	}
	if p.pos.off != 0 {
		t.Fatalf("at %q the pane is at line %d, not at the top", anatomyInfo(r), p.pos.off)
	}
}

// A what-if edit of the first tool result shows, before the third call is
// sent, where the prompt cache will break — message 3 — and the call sent
// says the same.
func TestAnatomyPaneShowsTheCacheBreakOfAWhatIf(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	anatomyEditor(t)
	h := newHarness(t, cfg, 160, 48)
	r := h.m.runs[0]
	h.press("enter")
	for len(r.live.callSteps()) < 2 || r.live.state != loop.AwaitingLLMResponse {
		h.press("space")
	}
	showAnatomy(h)
	contains(t, h.plainView(), "The cache does not break: this call only appends")
	h.press("w")
	if r.edit == "" {
		t.Fatalf("no edit: %q", h.m.bar.noticeText(h.m.top()))
	}
	v := h.plainView()
	contains(t, v, "Call 3, assembled at step #12, not sent yet")
	contains(t, v, "The cache breaks at message 3 (tool_result): from there on nothing can come from the cache.")
	h.press("space")
	v = h.plainView()
	contains(t, v, "Call 3, sent at step #13")
	contains(t, v, "The cache breaks at message 3 (tool_result)")
}

// In compare mode each run's pane reads its own run's request: zoomed, the
// two dialects' requests side by side; [ moves both to the same call.
func TestAnatomyPaneInCompareMode(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
	h.press("enter", "c")
	for _, r := range h.m.runs {
		if r.live.state != loop.WaitingForEvent {
			t.Fatalf("%s stopped at %s", r.name, r.live.state)
		}
	}
	h.m.focusPane(paneAnatomy)
	h.press("z")
	v := h.plainView()
	if L := h.m.computeLayout(); L.mode != layoutZoom || len(L.panes) != 2 || L.panes[0].pane != paneAnatomy || L.panes[1].pane != paneAnatomy {
		t.Fatalf("zoomed: %+v", L.panes)
	}
	contains(t, v, "Call 3, sent at step #13 · gemini · gemini-2.5-flash")
	contains(t, v, "Call 3, sent at step #13 · ollama · llama · llama3.1:8b")
	contains(t, v, "usageMetadata.promptTokenCount")
	contains(t, v, "prompt_eval_count")
	h.press("[", "[")
	for _, r := range h.m.runs {
		if got := anatomyInfo(r); got != "call 2 · #8" {
			t.Fatalf("%s after [ [: %q", r.name, got)
		}
	}
	if a, b := h.m.runs[0].panes[paneAnatomy].(*anatomyPane).shown.call.Bytes, h.m.runs[1].panes[paneAnatomy].(*anatomyPane).shown.call.Bytes; a == b || a == 0 || b == 0 {
		t.Fatalf("the two runs' call 2: %d and %d bytes", a, b)
	}
}

// TestGoldenAnatomy pins the Anatomy pane at the workshop's two sizes, in
// English and Japanese: the tour's third call zoomed (the top, and the
// parts at the bottom), the request a what-if edit changed, before it is
// sent, the pane in the grid, and compare mode's two runs side by side.
// Regenerate with: go test ./ui/glassbox -run TestGoldenAnatomy -update
func TestGoldenAnatomy(t *testing.T) {
	toCall3 := func(h *harness) { h.press("enter", "c"); showAnatomy(h) }
	scenes := []struct {
		name    string
		compare bool
		drive   func(h *harness)
	}{
		{"call3", false, toCall3},
		{"call3_parts", false, func(h *harness) { toCall3(h); h.press("G") }},
		{"whatif_preview", false, func(h *harness) {
			r := h.m.runs[0]
			h.press("enter")
			for len(r.live.callSteps()) < 2 || r.live.state != loop.AwaitingLLMResponse {
				h.press("space")
			}
			h.press("w")
			showAnatomy(h)
		}},
		{"grid", false, func(h *harness) {
			h.press("enter")
			for len(h.m.runs[0].live.callSteps()) < 2 {
				h.press("space")
			}
			h.m.focusPane(paneAnatomy)
		}},
		{"compare", true, func(h *harness) {
			h.press("enter", "space", "space", "space", "space", "space", "space", "space", "space")
			h.m.focusPane(paneAnatomy)
			h.press("z")
		}},
	}
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		for _, size := range [][2]int{{120, 34}, {160, 48}} {
			for _, sc := range scenes {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", l, sc.name, size[0], size[1]), func(t *testing.T) {
					anatomyEditor(t)
					var cfg Config
					if sc.compare {
						cfg = compareWorld(t, "gemini", "llama")
						for i := range cfg.Runs {
							cfg.Runs[i].Workspace = "/tmp/glassbox-workspace-" + cfg.Runs[i].Name
						}
					} else {
						cfg, _ = offlineWorld(t, "tour")
						cfg.Workspace = "/tmp/glassbox-workspace"
					}
					cfg.Lang = l
					h := newHarness(t, cfg, size[0], size[1])
					h.normalize = zeroTimings
					sc.drive(h)
					v := h.view()
					checkScreen(t, v, size[0], size[1])
					if l == lang.JA && sc.name != "grid" && sc.name != "compare" {
						for _, run := range englishRuns(v) {
							t.Errorf("English on the Japanese screen: %q", run)
						}
					}
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}

// zeroTimings is zeroDurations and the exchanges' timings too: the offline
// simulation's calls take microseconds that differ from run to run.
func zeroTimings(msg tea.Msg) tea.Msg {
	d, ok := zeroDurations(msg).(stepDoneMsg)
	if !ok {
		return msg
	}
	xs := make([]providers.Exchange, len(d.t.Exchanges))
	for i, x := range d.t.Exchanges {
		x.TTFB, x.Total = 0, 0
		chunks := make([]providers.Chunk, len(x.Chunks))
		for j, c := range x.Chunks {
			c.Offset, c.Start = 0, 0
			chunks[j] = c
		}
		x.Chunks = chunks
		xs[i] = x
	}
	d.t.Exchanges = xs
	return d
}

// The pane's chart draws a column per call while they fit, the largest
// value on the axis, and a sliver for a value far below the largest.
func TestAnatomyChart(t *testing.T) {
	pts := []growthPoint{{bytes: 100, read: true}, {bytes: 400, read: true}, {bytes: 800, read: true}}
	out := chart(theme.New(true), pts, func(g growthPoint) int { return g.bytes }, "bytes", 30, 4)
	if len(out) != 1+4+2 {
		t.Fatalf("%d lines:\n%s", len(out), strings.Join(out, "\n"))
	}
	if !strings.HasPrefix(out[1], "800 ┤") || !strings.Contains(out[5], "└") || !strings.HasSuffix(strings.TrimRight(out[6], " "), "3") {
		t.Fatalf("the chart:\n%s", strings.Join(out, "\n"))
	}
	if got := bucket(append(pts, growthPoint{bytes: 50, read: true}), 2); len(got) != 2 || got[0] != 400 || got[1] != 800 {
		t.Fatalf("bucket: %v", got)
	}
	if barBlock(1, 1000, 4, 0) != "▁" || barBlock(1000, 1000, 4, 3) != "█" || barBlock(500, 1000, 4, 3) != " " {
		t.Fatal("blocks")
	}
}

// The kinds table's heading is never cut mid-word: where "share of the
// bytes" does not fit (a zoomed compare pane at 120×34 cut it to "share
// of the b…"), it says "share".
func TestKindHeadingIsNeverCutMidWord(t *testing.T) {
	for _, tc := range []struct {
		l    lang.Lang
		w    int
		want string
	}{
		{lang.EN, 80, "share of the bytes"},
		{lang.EN, 58, "share"},
		{lang.JA, 80, "バイトの割合"},
		{lang.JA, 52, "割合"},
	} {
		got := kindHeading(tc.l, tc.w)
		if !strings.HasSuffix(got, "  "+tc.want) || strings.Contains(got, "…") || cell.Width(got) > tc.w {
			t.Errorf("%s at %d cells: %q, want it to end in %q, whole", tc.l, tc.w, got, tc.want)
		}
	}
}
