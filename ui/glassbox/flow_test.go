package glassbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func TestFirstRunWelcomeAndLessonOnEnter(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)

	v := h.plainView()
	checkScreen(t, h.view(), 160, 48)
	contains(t, v, "glassbox — an AI coding agent's")
	contains(t, v, "offline: no GEMINI_API_KEY")
	contains(t, v, "set GEMINI_API_KEY")
	contains(t, v, "Enter: send the tour lesson")
	if !h.m.inputFocused {
		t.Fatal("the input should have focus at start")
	}

	h.press("enter") // empty input: sends the starting lesson
	if got := w.eng.QueueLen(); got != 1 {
		t.Fatalf("queue length %d after Enter, want 1", got)
	}
	if h.m.inputFocused {
		t.Fatal("Enter should hand focus to the stepper")
	}
	if len(h.m.runs[0].live.steps) != 0 {
		t.Fatal("Enter must not step by itself")
	}
	contains(t, h.plainView(), "press space to take it")
	contains(t, h.plainView(), "queue 1 event")

	h.press("space")
	if got := h.edges(); !slices.Equal(got, []loop.Edge{loop.EdgeNewEvent}) {
		t.Fatalf("edges %v", got)
	}
	contains(t, h.plainView(), "● you")
	contains(t, h.plainView(), "List the files in this project")
	notContains(t, h.plainView(), "queue 1 event")
}

// The input line says "Enter: send the tour lesson" whether or not it has
// the keyboard: Enter from the panes sends the lesson too, and / only
// gives the input the keyboard. Once the lesson is sent, Enter from the
// panes goes back to the input line.
func TestEnterFromThePanesSendsTheLessonOnOffer(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc")
	if h.m.inputFocused {
		t.Fatal("esc should give the panes the keyboard")
	}
	contains(t, h.plainView(), "Enter: send the tour lesson")
	h.press("/")
	if !h.m.inputFocused || w.eng.QueueLen() != 0 {
		t.Fatalf("/ should only focus the input: focused %v, queue %d", h.m.inputFocused, w.eng.QueueLen())
	}
	h.press("esc")
	h.press("enter")
	if got := w.eng.QueueLen(); got != 1 {
		t.Fatalf("queue length %d after Enter from the panes, want 1", got)
	}
	if h.m.inputFocused {
		t.Fatal("sending should leave the keyboard with the panes")
	}
	contains(t, h.plainView(), "press space to take it")
	h.press("enter")
	if !h.m.inputFocused || w.eng.QueueLen() != 1 {
		t.Fatalf("with the lesson sent, Enter should focus the input: focused %v, queue %d", h.m.inputFocused, w.eng.QueueLen())
	}
}

func TestStepWholeTourWithSpace(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter")
	h.stepUntil(loop.DeliveringOutput)
	h.press("space")

	want := []loop.State{
		loop.AssemblingContext, loop.AwaitingLLMResponse, loop.CheckingPolicy, loop.ExecutingTool, loop.RecordingResult,
		loop.AssemblingContext, loop.AwaitingLLMResponse, loop.CheckingPolicy, loop.ExecutingTool, loop.RecordingResult,
		loop.AssemblingContext, loop.AwaitingLLMResponse, loop.DeliveringOutput, loop.WaitingForEvent,
	}
	if got := h.states(); !slices.Equal(got, want) {
		t.Fatalf("states\n got %v\nwant %v", got, want)
	}
	v := h.plainView()
	checkScreen(t, h.view(), 160, 48)
	contains(t, v, "● assistant · reasoning")
	contains(t, v, "I should look at the files first.")
	contains(t, v, "▸ → list_files")
	contains(t, v, "▸ ← read_file")
	contains(t, v, "hello.py prints a greeting")
	contains(t, v, "answer delivered to ui")
	contains(t, v, "iter 3/10")
	contains(t, v, "tokens 600 in / 30 out")

	// Time travel to the first step: the status bar shows the numbers as
	// they were then, not today's totals.
	for h.m.runs[0].live.selectedIndex() > 0 {
		h.press("[")
	}
	past := h.plainView()
	contains(t, past, "tokens 0 in / 0 out")
	contains(t, past, "context 1 msg ")
	notContains(t, past, "600 in")
	for h.m.runs[0].live.travelling() {
		h.press("]")
	}
	contains(t, h.plainView(), "tokens 600 in / 30 out")

	// One more step: the queue is empty.
	h.press("space")
	contains(t, h.plainView(), "idle — nothing queued")
}

func TestTypeRequestAndAltEnterNewline(t *testing.T) {
	w := newWorld(t, reply{text: "done"})
	h := newHarness(t, w.config(), 120, 30)
	h.typeText("first line")
	h.press("alt+enter")
	h.typeText("日本語の二行目")
	if got := h.m.input.Value(); got != "first line\n日本語の二行目" {
		t.Fatalf("input value %q", got)
	}
	checkScreen(t, h.view(), 120, 30)
	// Both lines are visible in the input while typing.
	input := h.plainView()
	contains(t, input, "› first line")
	contains(t, input, "日本語の二行目")
	h.press("enter")
	h.press("c")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s after c", h.m.runs[0].live.state)
	}
	contains(t, h.plainView(), "日本語の二行目")
	contains(t, h.plainView(), "done")
}

func TestConfirmModalApproveAndDeny(t *testing.T) {
	writeArgs := map[string]any{"path": "notes/todo.txt", "content": "buy milk\n"}
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("w1", "write_file", writeArgs)}},
		reply{calls: []history.ToolCall{call("x1", "execute_command", map[string]any{"command": "python3 hello.py"})}},
		reply{text: "I wrote the file; you did not want the command run."},
	)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("write and run")
	h.press("enter", "c")

	if h.m.runs[0].confirm == nil {
		t.Fatalf("no confirmation modal; states %v", h.states())
	}
	v := h.plainView()
	checkScreen(t, h.view(), 160, 48)
	contains(t, v, "Confirm: write_file")
	contains(t, v, "REQUIRE_USER_CONFIRMATION")
	contains(t, v, "+buy milk")
	contains(t, v, "y allow once")

	h.press("y")
	got, err := os.ReadFile(filepath.Join(w.dir, "notes", "todo.txt"))
	if err != nil || string(got) != "buy milk\n" {
		t.Fatalf("todo.txt = %q, %v", got, err)
	}
	// c goes on after the answer and stops at the next confirmation.
	if h.m.runs[0].confirm == nil || h.m.runs[0].confirm.req.confirm.Call.Name != "execute_command" {
		t.Fatalf("expected the execute_command confirmation; states %v", h.states())
	}
	h.press("n")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s, want idle after the run", h.m.runs[0].live.state)
	}
	if !slices.Contains(h.edges(), loop.EdgeUserDenial) || !slices.Contains(h.edges(), loop.EdgeUserApproval) {
		t.Fatalf("edges %v lack approval/denial", h.edges())
	}
	contains(t, h.plainView(), "I wrote the file")
}

func TestAllowForSessionSkipsTheSecondConfirmation(t *testing.T) {
	args := map[string]any{"path": "a.txt", "content": "x"}
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("w1", "write_file", args)}},
		reply{calls: []history.ToolCall{call("w2", "write_file", args)}},
		reply{text: "ok"},
	)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("write twice")
	h.press("enter", "c", "a")
	if h.m.runs[0].confirm != nil {
		t.Fatal("the same call was asked about twice after allow-for-session")
	}
	// Back to the first call: its Tool calls line says how it was approved.
	for h.m.runs[0].live.selectedIndex() > 0 && h.m.runs[0].live.selected().t.Edge != loop.EdgeToolSuccess {
		h.press("[")
	}
	for h.m.runs[0].live.selected().t.Iteration > 1 {
		h.press("[")
	}
	contains(t, h.plainView(), "approved for the session")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
}

func TestAskUserPickByNumberAndFreeText(t *testing.T) {
	ask := map[string]any{"question": "Delete old_log.txt?", "options": []string{"yes", "no"}}
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("a1", "ask_user", ask)}},
		reply{calls: []history.ToolCall{call("a2", "ask_user", map[string]any{"question": "Why?"})}},
		reply{text: "understood"},
	)
	h := newHarness(t, w.config(), 100, 30)
	h.typeText("clean up")
	h.press("enter", "c")
	if h.m.runs[0].ask == nil {
		t.Fatalf("no question modal; states %v", h.states())
	}
	v := h.plainView()
	checkScreen(t, h.view(), 100, 30)
	contains(t, v, "Delete old_log.txt?")
	contains(t, v, "2) no")
	h.press("2")
	if h.m.runs[0].ask == nil {
		t.Fatal("the second question should be open")
	}
	h.typeText("it is 3 years old")
	h.press("enter")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
	var results []string
	for _, e := range h.m.runs[0].history.entries {
		if e.kind == entryResult {
			results = append(results, e.text)
		}
	}
	if !slices.Equal(results, []string{"no", "it is 3 years old"}) {
		t.Fatalf("tool results %q", results)
	}
}

func TestIterationKeyStopsAtTheNextContextReady(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "i")
	if got := h.edges(); !slices.Equal(got, []loop.Edge{loop.EdgeNewEvent, loop.EdgeContextReady}) {
		t.Fatalf("first i: %v", got)
	}
	h.press("i")
	want := []loop.Edge{loop.EdgeNewEvent, loop.EdgeContextReady,
		loop.EdgeToolCall, loop.EdgeAllow, loop.EdgeToolSuccess, loop.EdgeObserved, loop.EdgeContextReady}
	if got := h.edges(); !slices.Equal(got, want) {
		t.Fatalf("second i:\n got %v\nwant %v", got, want)
	}
	contains(t, h.plainView(), "iteration 2 begins")
}

func TestBreakpointStopsContinue(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter") // focus goes to the History pane
	h.press("tab")   // the diagram
	if h.m.stepper.pane != paneDiagram {
		t.Fatalf("pane %v after tab", h.m.stepper.pane)
	}
	// Select EXECUTING_TOOL with the arrows and set a breakpoint.
	for i := 0; i < len(h.m.runs[0].diagram.order()) && h.m.runs[0].diagram.selected() != loop.ExecutingTool; i++ {
		h.press("right")
	}
	h.press("b")
	if !h.m.runs[0].stopsAt(loop.ExecutingTool) {
		t.Fatal("no breakpoint on EXECUTING_TOOL")
	}
	h.press("c")
	if h.m.runs[0].live.state != loop.ExecutingTool {
		t.Fatalf("c stopped in %s, want the breakpoint", h.m.runs[0].live.state)
	}
	contains(t, h.plainView(), "stopped by breakpoint #1 state=EXECUTING_TOOL at step 4 (CHECKING_POLICY ─allow─▶ EXECUTING_TOOL)")
	h.press("b") // remove it
	h.press("c")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
}

func TestTimeTravelShowsEarlierSteps(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "c")
	n := len(h.m.runs[0].live.steps)
	if n != 14 {
		t.Fatalf("%d steps", n)
	}
	final := h.plainView()
	contains(t, final, "hello.py prints a greeting")

	// Back to the step that allowed list_files: EXECUTING_TOOL of iteration 1.
	for i := 0; i < n-4; i++ {
		h.press("[")
	}
	if got := h.m.runs[0].live.selected().t; got.To != loop.ExecutingTool || got.Iteration != 1 {
		t.Fatalf("selected %s", describe(got))
	}
	v := h.plainView()
	contains(t, v, "◀ step 4/14")
	contains(t, v, "1 list_files")
	contains(t, v, "ALLOW")
	contains(t, v, "as of step #4")
	notContains(t, v, "hello.py prints a greeting")
	// The payload shows the exchange of this iteration's model call.
	contains(t, v, "of step #3")

	for i := 0; i < n; i++ {
		h.press("]")
	}
	if h.m.runs[0].live.travelling() {
		t.Fatal("] should return to the latest step")
	}
	contains(t, h.plainView(), "hello.py prints a greeting")
}

func TestZoomTabsAndFocus(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("esc") // leave the input
	if h.m.inputFocused {
		t.Fatal("esc should leave the input")
	}
	L := h.m.computeLayout()
	if L.mode != layoutGrid {
		t.Fatal("160×48 should show four panes")
	}
	for p := paneID(0); p < numPanes; p++ {
		contains(t, h.plainView(), paneTitle(p, lang.EN))
	}
	h.press("z")
	L = h.m.computeLayout()
	if L.paneRect(paneHistory).w != 160 || L.shows(paneDiagram) {
		t.Fatalf("zoom: %+v", L)
	}
	contains(t, h.plainView(), "zoomed (z)")
	h.press("z")

	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	L = h.m.computeLayout()
	if L.mode != layoutTabs {
		t.Fatal("80×24 should use tabs")
	}
	checkScreen(t, h.view(), 80, 24)
	h.press("z") // tabs: every pane is already full-size; z says so
	if h.m.stepper.zoomed {
		t.Fatal("z zoomed in tabs mode")
	}
	contains(t, h.plainView(), "each pane already fills the screen")
	h.press("tab", "tab")
	if h.m.stepper.pane != paneTools || !h.m.computeLayout().shows(paneTools) {
		t.Fatalf("tab did not switch to Tool calls: pane %v", h.m.stepper.pane)
	}
	h.press("/")
	if !h.m.inputFocused {
		t.Fatal("/ should focus the input")
	}
	h.typeText("q") // typing q in the input does not quit
	if h.quit || h.m.input.Value() != "q" {
		t.Fatalf("quit=%v input=%q", h.quit, h.m.input.Value())
	}
}

func TestLessonsMenuFillsTheInput(t *testing.T) {
	w := newWorld(t)
	h := newHarness(t, w.config(), 100, 30)
	h.press("esc", "l")
	contains(t, h.plainView(), "2) write")
	h.press("down", "enter")
	if !h.m.inputFocused || h.m.input.Value() != testLessons[1].Request {
		t.Fatalf("input %q focused=%v", h.m.input.Value(), h.m.inputFocused)
	}
}

func TestHelpOverlayOpensAndCloses(t *testing.T) {
	w := newWorld(t)
	h := newHarness(t, w.config(), 120, 40)
	h.press("esc", "?")
	v := h.plainView()
	contains(t, v, "Keys")
	contains(t, v, "step")
	contains(t, v, "breakpoint")
	h.press("esc")
	if isOpen[*helpOverlay](h.m) {
		t.Fatal("esc should close the help")
	}
	h.press("q")
	if !h.quit {
		t.Fatal("q should quit from the stepper")
	}
}

func TestCtrlCCancelsAStepThenQuits(t *testing.T) {
	w := newWorld(t)
	w.prov.block = true
	h := newHarness(t, w.config(), 100, 30)
	h.typeText("hello")
	h.press("enter", "space", "space") // new_event, context_ready
	if h.m.runs[0].live.state != loop.AwaitingLLMResponse {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
	// Start the blocking call by hand so the test can cancel it while it
	// is in flight.
	m := h.m
	cmd := m.runs[0].startRun(runOne, " ")
	h.m = m
	if !h.m.stepper.busy() {
		t.Fatal("not busy after starting a step")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- h.run(cmd) }()
	h.press("space") // ignored while busy
	contains(t, h.plainView(), "busy")
	contains(t, h.plainView(), "AWAITING_LLM_RESPONSE…")
	h.press("ctrl+c")
	if h.quit {
		t.Fatal("the first ctrl+c should only cancel")
	}
	msg := <-done
	if batch, ok := msg.(tea.BatchMsg); ok {
		msg = h.run(batch[0])
	}
	h.send(msg)
	contains(t, h.plainView(), "cancelled: press space to send again")
	if h.m.runs[0].live.state != loop.AwaitingLLMResponse || w.eng.State() != loop.AwaitingLLMResponse {
		t.Fatal("a cancelled step must not move the state")
	}
	h.press("ctrl+c")
	if !h.quit {
		t.Fatal("the second ctrl+c should quit")
	}
}

func TestCtrlCWhileTheModalIsOpenDenies(t *testing.T) {
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("w1", "write_file", map[string]any{"path": "a.txt", "content": "x"})}},
	)
	h := newHarness(t, w.config(), 100, 30)
	h.typeText("write")
	h.press("enter", "c")
	if h.m.runs[0].confirm == nil {
		t.Fatal("no modal")
	}
	h.press("ctrl+c")
	if h.m.runs[0].confirm != nil || h.m.stepper.busy() {
		t.Fatal("ctrl+c should close the modal and end the step")
	}
	if h.m.runs[0].live.state != loop.AwaitingUserConfirmation {
		t.Fatalf("state %s", h.m.runs[0].live.state)
	}
	contains(t, h.plainView(), "cancelled: press space to try again")
	if _, err := os.Stat(filepath.Join(w.dir, "a.txt")); err == nil {
		t.Fatal("the file was written although the step was cancelled")
	}
	// Stepping again asks again.
	h.press("space")
	if h.m.runs[0].confirm == nil {
		t.Fatal("space should ask again")
	}
	h.press("n")
	if h.m.runs[0].live.state != loop.RecordingError {
		t.Fatalf("n should deny: state %s", h.m.runs[0].live.state)
	}
}

func TestHistorySelectExpandAndWideText(t *testing.T) {
	w := newWorld(t,
		reply{calls: []history.ToolCall{call("r1", "read_file", map[string]any{"path": "hello.py"})}},
		reply{text: strings.Repeat("これは日本語の説明です。", 20)},
	)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("hello.py を説明して")
	h.press("enter", "c")
	checkScreen(t, h.view(), 160, 48)
	contains(t, h.plainView(), "これは日本語の説明です。")

	// Select the read_file result with the arrows and expand it.
	var idx int
	for i, e := range h.m.runs[0].history.entries {
		if e.kind == entryResult {
			idx = i
		}
	}
	for h.m.runs[0].history.sel != idx {
		h.press("up")
		if h.m.runs[0].history.sel == 0 {
			t.Fatal("never reached the result entry")
		}
	}
	notContains(t, h.plainView(), "▾ ← read_file")
	h.press("e")
	v := h.plainView()
	contains(t, v, "▾ ← read_file")
	contains(t, v, "print(")
	h.press("E")
	contains(t, h.plainView(), "▾ → read_file")
	checkScreen(t, h.view(), 160, 48)

	// Every History line stays inside its pane, wide characters included.
	L := h.m.computeLayout()
	r := L.paneRect(paneHistory)
	for i, ln := range strings.Split(h.view(), "\n")[r.y : r.y+r.h] {
		if cell := cellAt(ln, r.x+r.w-1); cell != "╮" && cell != "│" && cell != "╯" && cell != "┃" && cell != "┓" && cell != "┛" {
			t.Fatalf("row %d: the History pane's right border is %q:\n%s", i, cell, ln)
		}
	}
}

func TestMouseWheelScrollsThePaneUnderThePointer(t *testing.T) {
	var replies []reply
	for i := 0; i < 30; i++ {
		replies = append(replies, reply{
			thought: strings.Repeat("Let me think about this step by step. ", 8),
			calls:   []history.ToolCall{call("l", "list_files", map[string]any{"path": "."})},
		})
	}
	w := newWorld(t, replies...)
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("list a lot")
	h.press("enter")
	for i := 0; i < 8; i++ {
		h.press("i")
	}
	if !h.m.runs[0].history.atBottom(h.m.runs[0].history.end()) {
		t.Fatal("History should follow the newest entry")
	}
	L := h.m.computeLayout()
	r := L.paneRect(paneHistory)
	h.send(tea.MouseMsg{X: r.x + 3, Y: r.y + 3, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if h.m.runs[0].history.atBottom(h.m.runs[0].history.end()) {
		t.Fatal("the wheel did not scroll History up")
	}
	contains(t, h.plainView(), "more below")
	h.send(tea.MouseMsg{X: r.x + 3, Y: r.y + 3, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if !h.m.runs[0].history.atBottom(h.m.runs[0].history.end()) {
		t.Fatal("the wheel did not scroll History back down")
	}
	// A click focuses the pane under the pointer.
	d := L.paneRect(panePayload)
	h.send(tea.MouseMsg{X: d.x + 2, Y: d.y + 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if h.m.inputFocused || h.m.stepper.pane != panePayload {
		t.Fatal("a click should focus the Raw payload pane")
	}
}

func TestResizeNeverPanics(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "i", "i")
	sizes := [][2]int{{0, 0}, {1, 1}, {29, 9}, {30, 10}, {31, 11}, {45, 12}, {80, 24}, {119, 40}, {120, 23}, {120, 24}, {200, 60}, {160, 48}}
	for _, s := range sizes {
		h.send(tea.WindowSizeMsg{Width: s[0], Height: s[1]})
		for _, z := range []bool{false, true} {
			h.m.stepper.zoomed = z
			v := h.view()
			if s[0] >= minWidth && s[1] >= minHeight {
				checkScreen(t, v, s[0], s[1])
			} else if !strings.Contains(strings.ReplaceAll(ansi.Strip(v), "\n", " "), "too small") && s[0] >= 20 {
				t.Fatalf("%v: no too-small message: %q", s, v)
			}
		}
		h.m.stepper.zoomed = false
	}
	for wd := 30; wd <= 130; wd += 7 {
		for ht := 10; ht <= 50; ht += 5 {
			h.send(tea.WindowSizeMsg{Width: wd, Height: ht})
			checkScreen(t, h.view(), wd, ht)
			h.press("?")
			checkScreen(t, h.view(), wd, ht)
			h.press("esc")
		}
	}
}

func TestPauseStopsARunAfterTheCurrentTransition(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 40)
	h.press("enter")
	// Start c by hand so p can arrive while the first step is in flight.
	m := h.m
	cmd := m.runs[0].startRun(runContinue, "c")
	h.m = m
	msg := h.run(cmd)
	h.press("p")
	contains(t, h.plainView(), "pausing after this transition")
	h.send(msg)
	if n := len(h.m.runs[0].live.steps); n != 1 {
		t.Fatalf("p should stop c after one transition, took %d", n)
	}
	contains(t, h.plainView(), "paused")
	h.press("c")
	if h.m.runs[0].live.state != loop.WaitingForEvent {
		t.Fatalf("c after a pause: %s", h.m.runs[0].live.state)
	}
}

func TestNoColorAndTabClicks(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	cfg.NoColor = true
	h := newHarness(t, cfg, 90, 30)
	if !h.m.th.NoColor {
		t.Fatal("Config.NoColor should choose the no-colour theme")
	}
	// Click the "Raw payload" tab in the tab bar.
	x := strings.Index(ansi.Strip(strings.Split(h.view(), "\n")[0]), "Raw payload")
	h.send(tea.MouseMsg{X: ansiCells(strings.Split(h.plainView(), "\n")[0][:x]) + 1, Y: 0, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if h.m.stepper.pane != panePayload || h.m.inputFocused {
		t.Fatalf("the tab click did not select Raw payload: pane %v", h.m.stepper.pane)
	}
	contains(t, h.plainView(), "No model call yet")
	// A click on the input line focuses it.
	L := h.m.computeLayout()
	h.send(tea.MouseMsg{X: 3, Y: L.input.y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if !h.m.inputFocused {
		t.Fatal("a click on the input should focus it")
	}
}

func ansiCells(s string) int { return ansi.StringWidth(s) }

func TestKeysThatArriveTogetherAreTakenOneByOne(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 40)
	h.press("enter", "c")
	h.typeText("[[[") // one KeyMsg with three runes, as a fast typist sends them
	if got := h.m.runs[0].live.selectedIndex(); got != len(h.m.runs[0].live.steps)-4 {
		t.Fatalf("selected step %d of %d after [[[", got, len(h.m.runs[0].live.steps))
	}
}

// Stepping with n into a confirmation does not deny it: n is also the
// dialog's deny key, so the first n only asks for a second one.
func TestSteppingWithNDoesNotDenyByAccident(t *testing.T) {
	w := newWorld(t, reply{calls: writeCall()}, reply{text: "ok"})
	h := newHarness(t, w.config(), 160, 48)
	h.typeText("write")
	h.press("enter")
	for h.m.runs[0].confirm == nil {
		if len(h.m.runs[0].live.steps) > 20 {
			t.Fatalf("no confirmation; states %v", h.states())
		}
		h.press("n")
	}
	h.press("n")
	if h.m.runs[0].confirm == nil {
		t.Fatal("the first n after stepping with n denied the call")
	}
	contains(t, h.plainView(), "press n again to deny")
	h.press("n")
	if h.m.runs[0].confirm != nil || !slices.Contains(h.edges(), loop.EdgeUserDenial) {
		t.Fatalf("the second n did not deny; edges %v", h.edges())
	}

	// Stepped with space, one n denies at once.
	w = newWorld(t, reply{calls: writeCall()}, reply{text: "ok"})
	h = newHarness(t, w.config(), 160, 48)
	h.typeText("write")
	h.press("enter")
	for h.m.runs[0].confirm == nil {
		h.press("space")
	}
	h.press("n")
	if h.m.runs[0].confirm != nil {
		t.Fatal("n did not deny a dialog opened by space")
	}
}
