package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/providers/rosetta"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// rosettaOpen is the Rosetta dialog on the stack, or nil.
func rosettaOpen(h *harness) *rosettaDialog {
	d, _ := opened[*rosettaDialog](&h.m.stack)
	return d
}

// d from a step: the dialog opens at once, the four dialects' requests are
// built in a command (through each one's own provider) and laid out row by
// row — the system prompt, the tools, each message of the conversation as
// it stood at that step; what a dialect cannot carry is named on its cell.
// At 120 columns two dialects stand side by side and ←/→ show the others.
func TestRosettaFromAStep(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("esc", "d") // the stepper has the keys
	if rosettaOpen(h) != nil || !strings.Contains(h.m.bar.noticeText(h.m.top()), "no step yet") {
		t.Fatalf("d before any step: %q", h.m.bar.noticeText(h.m.top()))
	}
	h.press("/", "enter", "c")
	for h.m.runs[0].live.selected().t.Seq != 8 {
		h.press("[")
	}
	h.press("d")
	d := rosettaOpen(h)
	if d == nil || d.seq != 8 || d.tab == nil || d.err != nil {
		t.Fatalf("the dialog: %+v", d)
	}
	var dialects, kinds []string
	for _, c := range d.tab.Columns {
		dialects = append(dialects, c.Dialect)
		if c.Error != "" || c.Request == nil {
			t.Fatalf("%s: %s", c.Dialect, c.Error)
		}
	}
	for _, r := range d.tab.Rows {
		kinds = append(kinds, string(r.Kind))
	}
	// Step #8 is the second call's tool_call: the user's turn, the first
	// call, its result, the second call.
	if got := strings.Join(kinds, " "); got != "system tools user model_call tool_result model_call" {
		t.Fatalf("rows at step #8: %s", got)
	}
	if got := strings.Join(dialects, " "); got != "gemini llama llama:native openai" {
		t.Fatalf("columns: %s", got)
	}
	lost := false
	for _, c := range d.tab.Rows[3].Cells[1:] {
		lost = lost || strings.Contains(strings.Join(c.Lost, " "), rosetta.LostSignature)
	}
	if !lost {
		t.Fatal("the model's call carries a thought signature the other dialects cannot carry: not named")
	}
	v := h.plainView()
	for _, want := range []string{"One turn in every dialect: step #8", "Gemini · native function calling", "Llama · JSON-mode prompting", "dialects 1–2 of 4: ←/→ show the others", "system prompt"} {
		contains(t, v, want)
	}
	notContains(t, v, "Llama · Ollama's native tools")
	h.press("right", "right", "right")
	v = h.plainView()
	contains(t, v, "dialects 3–4 of 4")
	contains(t, v, "OpenAI-compatible")
	notContains(t, v, "Gemini · native function calling")
	h.press("G")
	contains(t, h.plainView(), "message 4: the model's tool call")
	h.press("esc")
	if rosettaOpen(h) != nil {
		t.Fatal("esc did not close the dialog")
	}
}

// In compare mode d lays out the run shown: the llama run's conversation,
// its system prompt read from its own request (JSON mode's, without the
// tools' paragraphs, which the JSON-mode column adds back).
func TestRosettaInCompareModeIsPerRun(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 160, 48)
	h.press("enter", "c", "tab", "tab") // the llama run alone
	if h.m.stepper.cur().name != "llama" {
		t.Fatalf("the run shown: %s", h.m.stepper.cur().name)
	}
	h.press("d")
	d := rosettaOpen(h)
	if d == nil || d.tab == nil || d.run != " — llama run" {
		t.Fatalf("the dialog: %+v", d)
	}
	v := h.plainView()
	contains(t, v, "One turn in every dialect: step #14 — llama run")
	for _, c := range d.tab.Columns {
		if c.Request == nil || strings.Count(c.Request.System, "## Tools") > 1 {
			t.Fatalf("%s: the system prompt %q", c.Dialect, c.Request.System)
		}
	}
	// Four dialects side by side at 160 columns.
	for _, want := range []string{"Gemini · native function calling", "Llama · JSON-mode prompting", "Llama · Ollama's native tools", "OpenAI-compatible"} {
		contains(t, v, want)
	}
}

// TestGoldenRosetta pins the dialog at the workshop's two sizes, in English
// and Japanese: the top of the table and its end (where the tool calls
// and results are, and what the other dialects cannot carry).
// Regenerate with: go test ./ui/glassbox -run TestGoldenRosetta -update
func TestGoldenRosetta(t *testing.T) {
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		for _, size := range [][2]int{{120, 34}, {160, 48}} {
			for _, sc := range []struct {
				name string
				keys []string
			}{{"top", nil}, {"end", []string{"G"}}, {"next_dialects", []string{"right", "right", "pgdown"}}} {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", l, sc.name, size[0], size[1]), func(t *testing.T) {
					cfg, _ := offlineWorld(t, "tour")
					cfg.Workspace, cfg.Lang = "/tmp/glassbox-workspace", l
					h := newHarness(t, cfg, size[0], size[1])
					h.normalize = zeroTimings
					h.press("enter", "c", "d")
					h.press(sc.keys...)
					v := h.view()
					checkScreen(t, v, size[0], size[1])
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}
