package glassbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func breakpoints(t testing.TB, exprs ...string) []breakpoint.Breakpoint {
	t.Helper()
	bps, err := breakpoint.ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return bps
}

// lastLine is the frame's status bar: its last line.
func lastLine(h *harness) string {
	lines := strings.Split(h.plainView(), "\n")
	return lines[len(lines)-1]
}

// TestBreakFlagStopsContinue: glassbox --break tool=write_file on the
// write-file lesson. c stops on the model's reply that asks for write_file,
// before the policy checks it; the help line, the status bar and History
// name the breakpoint and the step. c again goes on to the approval (the
// call's later steps name the tool too: they do not stop it again), and,
// approved, to the answer.
func TestBreakFlagStopsContinue(t *testing.T) {
	cfg, _ := offlineWorld(t, "write-file")
	cfg.Breakpoints = breakpoints(t, "tool=write_file")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "c")
	r := h.m.runs[0]
	last := r.live.steps[len(r.live.steps)-1].t
	if last.Edge != loop.EdgeToolCall || last.LLM == nil || last.LLM.ToolCalls[0].Name != "write_file" {
		t.Fatalf("c stopped after %s, want the reply asking for write_file; edges %v", describe(last), h.edges())
	}
	if r.confirm != nil {
		t.Fatal("the approval opened: c ran past the breakpoint to the policy")
	}
	stop := fmt.Sprintf("stopped by breakpoint #1 tool=write_file at step %d (AWAITING_LLM_RESPONSE ─tool_call─▶ CHECKING_POLICY)", last.Seq)
	v := h.plainView()
	contains(t, v, stop)
	contains(t, lastLine(h), fmt.Sprintf("break #1 tool=write_file @ step %d", last.Seq))
	if !historyHas(r, stop) {
		t.Errorf("History does not say %q", stop)
	}

	h.press("c")
	if r.confirm == nil {
		t.Fatalf("c did not go on to the approval; edges %v", h.edges())
	}
	if r.stopped != nil {
		t.Errorf("the approval is a breakpoint's stop: %+v", r.stopped)
	}
	h.press("y")
	h.stepUntil(loop.WaitingForEvent)
	if got := strings.Count(strings.Join(historyTexts(r), "\n"), "stopped by breakpoint"); got != 1 {
		t.Errorf("History names %d breakpoint stops, want 1", got)
	}
	contains(t, lastLine(h), "break 1 set (K)")
}

// TestBreakpointOnTokensSaysWhereTheFigureComes: a size condition's stop
// says what it measured; the offline simulation reports usage, so the
// figure is the provider's.
func TestBreakpointOnTokensSaysWhereTheFigureComes(t *testing.T) {
	cfg, _ := offlineWorld(t, "write-file")
	cfg.Breakpoints = breakpoints(t, "tokens>10", "bytes>1k")
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "c")
	r := h.m.runs[0]
	last := r.live.steps[len(r.live.steps)-1].t
	if last.From != loop.AwaitingLLMResponse || last.LLM.Usage.InputTokens <= 10 {
		t.Fatalf("c stopped after %s", describe(last))
	}
	contains(t, h.plainView(), fmt.Sprintf("stopped by breakpoint #1 tokens>10 at step %d (AWAITING_LLM_RESPONSE ─tool_call─▶ CHECKING_POLICY); tokens %d (reported by the provider)", last.Seq, last.LLM.Usage.InputTokens))
}

// TestSpaceSaysABreakpointMatches: stepping one transition at a time, the
// step a breakpoint begins to match on is named, and History is left alone.
func TestSpaceSaysABreakpointMatches(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	cfg := w.config()
	cfg.Breakpoints = breakpoints(t, "edge=tool_call")
	h := newHarness(t, cfg, 160, 48)
	h.typeText("Add '- buy milk' to notes/todo.txt")
	h.press("enter", "space", "space", "space")
	contains(t, h.plainView(), "breakpoint #1 edge=tool_call matches step 3 (AWAITING_LLM_RESPONSE ─tool_call─▶ CHECKING_POLICY)")
	if historyHas(h.m.runs[0], "breakpoint #1") {
		t.Error("a single step's match went into History")
	}
}

// TestBreakDialog: K lists the breakpoints in force (--break's and b's),
// adds a typed one, keeps a refused one in the line with the reason, and
// removes the one picked; the diagram marks what they name.
func TestBreakDialog(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	cfg := w.config()
	cfg.Breakpoints = breakpoints(t, "tool=write_file")
	h := newHarness(t, cfg, 160, 48)
	h.press("esc", "tab", "b") // b on WAITING_FOR_EVENT, the state picked first
	h.press("K")
	if !isOpen[*breakDialog](h.m) {
		t.Fatal("K opened no dialog")
	}
	v := h.plainView()
	contains(t, v, "1  tool=write_file")
	contains(t, v, "2  state=WAITING_FOR_EVENT")

	h.typeText("verdit=DENY")
	h.press("enter")
	v = h.plainView()
	contains(t, v, `unknown condition "verdit"`)
	contains(t, v, "verdit=DENY") // still in the line: nothing typed is lost
	if n := h.m.runs[0].breaks.Len(); n != 2 {
		t.Fatalf("a refused expression changed the list: %d in force", n)
	}

	for range len("verdit=DENY") {
		h.press("backspace")
	}
	h.typeText("edge=deny, tool~=write_*")
	h.press("enter")
	contains(t, h.plainView(), "3  edge=deny,tool~=write_*")
	contains(t, h.plainView(), "breakpoint #3 edge=deny,tool~=write_*: i and c stop where it begins to match")
	marks := h.m.runs[0].breaks.Marks()
	if marks.Edges[loop.EdgeDeny] != breakpoint.If || marks.States[loop.WaitingForEvent] != breakpoint.Always {
		t.Errorf("marks %+v", marks)
	}

	h.press("up", "ctrl+x") // the second: b's
	if h.m.runs[0].stopsAt(loop.WaitingForEvent) || h.m.runs[0].breaks.Len() != 2 {
		t.Errorf("ctrl+x did not remove state=WAITING_FOR_EVENT: %v", h.m.runs[0].breaks.List())
	}
	h.press("esc")
	if isOpen[*breakDialog](h.m) {
		t.Fatal("esc left the dialog open")
	}
	contains(t, h.plainView(), "2 breakpoints in force")
}

// TestBreakDialogLetters: every letter goes to the expression, even those
// that are keys at the stepper (q, c, b).
func TestBreakDialogLetters(t *testing.T) {
	w := newWorld(t, writeScriptReplies()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc", "K")
	h.typeText("edge=tool_call")
	h.press("enter", "esc")
	if got := h.m.runs[0].breaks.List(); len(got) != 1 || got[0].String() != "edge=tool_call" {
		t.Fatalf("breakpoints %v", got)
	}
	if len(h.m.runs[0].live.steps) != 0 {
		t.Fatal("typing in the dialog stepped the run")
	}
}

// TestGoldenBreakpoints pins the dialog and a stop at the recommended
// 120×34 and the projector's 160×48, in English and Japanese.
func TestGoldenBreakpoints(t *testing.T) {
	scenes := []struct {
		name  string
		drive func(h *harness)
	}{
		{"dialog", func(h *harness) {
			h.press("esc", "tab", "right", "right", "right", "b", "K")
			h.typeText("tokens>8k,state=AWAITING_LLM")
			h.press("enter")
		}},
		{"stopped", func(h *harness) {
			h.typeText("Add '- buy milk' to notes/todo.txt")
			h.press("enter", "c")
		}},
	}
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		for _, size := range [][2]int{{120, 34}, {160, 48}} {
			for _, sc := range scenes {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", sc.name, l, size[0], size[1]), func(t *testing.T) {
					w := newWorld(t, writeScriptReplies()...)
					cfg := japaneseConfig(w)
					cfg.Lang = l
					cfg.Breakpoints = breakpoints(t, "tool=write_file", "edge=deny")
					h := newHarness(t, cfg, size[0], size[1])
					h.normalize = zeroDurations
					sc.drive(h)
					v := h.view()
					checkScreen(t, v, size[0], size[1])
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}

func historyTexts(r *runView) []string {
	var out []string
	for _, e := range r.history.entries {
		out = append(out, e.text)
	}
	return out
}

func historyHas(r *runView, s string) bool {
	for _, e := range historyTexts(r) {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

// TestBreakpointsInCompareMode: --break is in force on both runs, and each
// run stops where its own steps match; K adds to the runs the keys act on.
func TestBreakpointsInCompareMode(t *testing.T) {
	a, b := newWorld(t, tourScript()...), newWorld(t, tourScript()[1:]...)
	cfg := a.config()
	cfg.Runs = []RunConfig{
		{Name: "gemini", Label: "Gemini", Engine: a.eng, Person: a.person, Backend: "offline"},
		{Name: "llama", Label: "Llama", Engine: b.eng, Person: b.person, Backend: "offline"},
	}
	cfg.Breakpoints = breakpoints(t, "tool=read_file")
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "c")
	for _, r := range h.m.runs {
		if r.stopped == nil || r.stopped.Breakpoint.String() != "tool=read_file" {
			t.Fatalf("%s run: not stopped by the breakpoint (%v)", r.name, r.stopped)
		}
		last := r.live.steps[len(r.live.steps)-1].t
		if last.Edge != loop.EdgeToolCall || last.LLM.ToolCalls[0].Name != "read_file" {
			t.Errorf("%s run stopped after %s", r.name, describe(last))
		}
	}
	h.press("tab") // the first run alone
	h.press("K")
	h.typeText("verdict=DENY")
	h.press("enter", "esc")
	if h.m.runs[0].breaks.Len() != 2 || h.m.runs[1].breaks.Len() != 1 {
		t.Errorf("K added to %d and %d breakpoints, want the first run only", h.m.runs[0].breaks.Len(), h.m.runs[1].breaks.Len())
	}
}

// TestBreakControllerAnswersWithActions: b and K answer with actions; the
// dialog's keys answer with actions and close it on esc.
func TestBreakControllerAnswersWithActions(t *testing.T) {
	w := newWorld(t, tourScript()...)
	m := New(w.config())
	r := m.runs[0]
	a := m.breaks.toggleState()
	if !r.stopsAt(loop.WaitingForEvent) || a.open != nil || !strings.HasPrefix(a.notice, "breakpoint on WAITING_FOR_EVENT: i and c stop when the loop enters it") {
		t.Errorf("b: %+v, in force %v", a, r.breaks.List())
	}
	if a := m.breaks.toggleState(); r.stopsAt(loop.WaitingForEvent) || a.notice != "breakpoint removed from WAITING_FOR_EVENT" {
		t.Errorf("b again: %+v", a)
	}
	a = m.breaks.open()
	d, ok := a.open.(*breakDialog)
	if !ok || len(d.e.runs) != 1 || d.e.runs[0] != r {
		t.Fatalf("K: %+v", a)
	}
	for _, k := range "edge=deny" {
		if a := d.update(keyMsg(string(k))); a.close != nil || a.notice != "" {
			t.Fatalf("typing %q: %+v", k, a)
		}
	}
	if a := d.update(keyMsg("enter")); a.close != nil || a.notice != "breakpoint #1 edge=deny: i and c stop where it begins to match" {
		t.Errorf("enter: %+v", a)
	}
	if a := d.update(keyMsg("esc")); a.close != d || a.notice != "1 breakpoint in force" {
		t.Errorf("esc: %+v", a)
	}
}
