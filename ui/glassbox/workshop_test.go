package glassbox

import (
	"regexp"
	"unicode/utf8"

	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
)

// Issue 10: what a learner trips over in the first ten minutes.

// A sentence typed while the stepper has the keyboard lands in the input
// whole: the q of "quickly" quits nothing, no letter is lost.
func TestTypingAtTheStepperGoesToTheInput(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("enter", "c") // the tour lesson, run to the answer
	if h.m.inputFocused {
		t.Fatal("after enter the stepper should have the keyboard")
	}
	// All at once, as tmux send-keys or a fast typist delivers it.
	h.typeText("quickly list the files")
	if h.quit {
		t.Fatal("typing a sentence quit glassbox")
	}
	if !h.m.inputFocused || h.m.input.Value() != "quickly list the files" {
		t.Fatalf("input %q (focused %v)", h.m.input.Value(), h.m.inputFocused)
	}
	contains(t, h.plainView(), "typing into the input")

	// One key at a time: q asks, u is not a key, so "qu" is typed.
	h.press("esc")
	h.m.input.Reset()
	for _, r := range "quickly" {
		h.press(string(r))
	}
	if h.quit || h.m.input.Value() != "quickly" {
		t.Fatalf("quit %v, input %q", h.quit, h.m.input.Value())
	}

	// A letter that is not a stepper key starts typing too.
	h.press("esc")
	h.m.input.Reset()
	h.press("s", "h", "o", "w")
	if h.m.input.Value() != "show" {
		t.Fatalf("input %q", h.m.input.Value())
	}
}

// q on a run with history asks; y or a second q quits, n stays. On a
// fresh screen q quits at once. Both overlays close on q and never quit.
func TestQuitAsksWhenThereIsHistory(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc", "q")
	if !h.quit {
		t.Fatal("q on a fresh screen should quit")
	}

	w = newWorld(t, tourScript()...)
	h = newHarness(t, w.config(), 120, 34)
	h.press("enter", "space")
	h.press("q")
	if h.quit {
		t.Fatal("q quit a run with history without asking")
	}
	v := h.plainView()
	contains(t, v, "quit glassbox? the steps on screen are lost")
	contains(t, v, "y/q quit")
	h.press("n")
	if h.quit || isOpen[quitDialog](h.m) {
		t.Fatal("n should stay")
	}
	h.press("?", "q")
	if h.quit || isOpen[*helpOverlay](h.m) {
		t.Fatalf("q in the help overlay: quit %v, open %v", h.quit, isOpen[*helpOverlay](h.m))
	}
	h.press("l", "q")
	if h.quit || isOpen[*lessonMenu](h.m) {
		t.Fatalf("q in the lessons menu: quit %v, open %v", h.quit, isOpen[*lessonMenu](h.m))
	}
	h.press("q", "q")
	if !h.quit {
		t.Fatal("q twice should quit")
	}
}

// With a session on disk, the quit question says that nothing is lost and
// how to come back: the command when it fits beside the keys, else where
// it will be.
func TestQuitWithASessionSaysHowToResume(t *testing.T) {
	for _, c := range []struct {
		resume string
		width  int
		want   string
	}{
		{"glassbox --resume 20261124-150405-3fa9", 120, "quit glassbox? the session is kept: glassbox --resume 20261124-150405-3fa9  y/q quit • n/esc stay (any other key too)"},
		{"glassbox --resume 20261124-150405-3fa9", 100, "quit glassbox? the session is kept  y/q quit • n/esc stay (any other key too)"},
		{"glassbox --resume '/home/ada/workshop sessions/day 2 — the tour lesson.jsonl'", 120, "quit glassbox? the session is kept  y/q"},
	} {
		w := newWorld(t, tourScript()...)
		cfg := w.config()
		cfg.Resume = c.resume
		h := newHarness(t, cfg, c.width, 34)
		h.press("enter", "space", "q")
		v := h.plainView()
		contains(t, v, c.want)
		contains(t, v, "y/q quit")
		if strings.Contains(v, "are lost") {
			t.Errorf("%d columns: the quit question says the steps are lost although the session is kept:\n%s", c.width, v)
		}
	}
}

// The input line's help and placeholder name no key that would be typed
// into the input (? or l): the first screen teaches the real first moves.
func TestInputHelpAdvertisesNoTypingKeys(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("x") // the placeholder goes; the help line stays
	lines := strings.Split(h.plainView(), "\n")
	help := lines[len(lines)-2]
	for _, bad := range []string{"? help", "l lessons", "q quit"} {
		if strings.Contains(help, bad) {
			t.Fatalf("the input's help line offers %q: %q", bad, help)
		}
	}
	h.press("ctrl+c") // nothing in flight: quits; a fresh one for the placeholder
	w = newWorld(t)
	cfg := w.config()
	cfg.Lesson = ""
	h = newHarness(t, cfg, 120, 34)
	if strings.Contains(h.m.input.Placeholder, "· l lessons") {
		t.Fatalf("placeholder %q offers l while l types", h.m.input.Placeholder)
	}
	contains(t, h.plainView(), "esc, then l: lessons")
}

// The approval dialog opens in the step that enters
// AWAITING_USER_CONFIRMATION; esc hides it (no denial), the look keys
// work while it is open or hidden, space brings it back, y approves.
func TestApprovalOpensInTheStepThatAsks(t *testing.T) {
	w := newWorld(t, reply{calls: writeCall()}, reply{text: "ok"})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("write")
	h.press("enter")
	h.stepUntil(loop.CheckingPolicy)
	h.press("space")
	r := h.m.runs[0]
	if r.live.state != loop.AwaitingUserConfirmation {
		t.Fatalf("state %s", r.live.state)
	}
	if r.confirm == nil {
		t.Fatal("the step that entered AWAITING_USER_CONFIRMATION opened no dialog")
	}
	contains(t, h.plainView(), "Confirm: write_file")
	n := len(r.live.steps)

	// [ works with the dialog open: back to the response that asked.
	h.press("[")
	if !r.live.travelling() || r.confirm == nil {
		t.Fatalf("[ with the dialog open: travelling %v, dialog %v", r.live.travelling(), r.confirm != nil)
	}
	h.press("]")
	// tab moves the focus under the dialog.
	before := h.m.stepper.pane
	h.press("tab")
	if h.m.stepper.pane == before {
		t.Fatal("tab did nothing while the dialog was open")
	}

	h.press("esc")
	if r.confirm == nil || h.m.stepper.dialogRun() != nil || !r.hidden {
		t.Fatal("esc should hide the dialog, not answer it")
	}
	if len(r.live.steps) != n || slices.Contains(h.edges(), loop.EdgeUserDenial) {
		t.Fatalf("esc took a transition: %v", h.edges())
	}
	contains(t, h.plainView(), "dialog is hidden")
	h.press("r") // the payload pane's request/response
	h.press("space")
	if h.m.stepper.dialogRun() == nil {
		t.Fatal("space should bring the dialog back")
	}
	h.press("[") // look back, then answer: the answer shows the present
	h.press("y")
	if r.live.state != loop.ExecutingTool || r.confirm != nil {
		t.Fatalf("state %s after y", r.live.state)
	}
	if r.live.travelling() {
		t.Fatal("after the answer the panes still show a past step")
	}
	if got := h.edges()[len(h.edges())-1]; got != loop.EdgeUserApproval {
		t.Fatalf("last edge %s", got)
	}
}

// Stepping with n into an ask_user question does not type n into the
// answer: n is held back while the answer is empty, with a word; the next
// letter puts it back in front ("no"), a digit picks an option.
func TestSteppingWithNIntoAQuestionTypesNothing(t *testing.T) {
	ask := map[string]any{"question": "Which file?"}
	w := newWorld(t, reply{calls: []history.ToolCall{call("a1", "ask_user", ask)}}, reply{text: "ok"})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("ask me")
	h.press("enter")
	for h.m.runs[0].ask == nil {
		if len(h.m.runs[0].live.steps) > 20 {
			t.Fatalf("no question; states %v", h.states())
		}
		h.press("n")
	}
	h.press("n", "n", "n") // still stepping
	if got := h.m.runs[0].ask.text.Value(); got != "" {
		t.Fatalf("stepping with n typed %q into the answer", got)
	}
	contains(t, h.plainView(), "n is held back until you type the next letter")
	h.press("o", "enter", "space") // "no"; record the result
	var results []string
	for _, e := range h.m.runs[0].history.entries {
		if e.kind == entryResult {
			results = append(results, e.text)
		}
	}
	if !slices.Equal(results, []string{"no"}) {
		t.Fatalf("answers %q", results)
	}
}

// Picking a lesson in the middle of an event says the truth: its request
// waits behind the event in progress, which space goes on with.
func TestLessonPickedMidEventSaysItWaits(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter")
	h.stepUntil(loop.CheckingPolicy)
	h.press("l", "2")
	v := h.plainView()
	contains(t, v, "behind the event in progress (CHECKING_POLICY)")
	notContains(t, v, "press space to take it")
	h.press("enter")
	v = h.plainView()
	contains(t, v, "event queued behind the one in progress (CHECKING_POLICY)")
	notContains(t, v, "press space to take it")
	h.press("space")
	if got := h.edges()[len(h.edges())-1]; got == loop.EdgeNewEvent {
		t.Fatal("space took the new event mid-event")
	}
}

// The deciding rule is readable at the projector size: the verdict line
// wraps instead of cutting the rule's name, G reaches the last call's
// verdict, and a list_files result shows more than its first name.
func TestToolCallsShowTheWholeRuleAt120x34(t *testing.T) {
	cfg, _ := offlineWorld(t, "path-escape")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "c")
	r := h.m.runs[0]
	// The last step of the first iteration: both calls have their verdict.
	var decided []*loop.Decision
	for i, s := range r.live.steps {
		if s.t.Decision != nil && s.t.Iteration == 1 {
			decided = append(decided, s.t.Decision)
		}
		if s.t.Edge == loop.EdgeObserved {
			for r.live.selectedIndex() != i {
				h.press("[")
			}
			break
		}
	}
	if len(decided) < 2 {
		t.Fatalf("fewer than two decisions in iteration 1; edges %v", h.edges())
	}
	h.press("tab", "tab") // Tool calls
	if h.m.stepper.pane != paneTools {
		t.Fatalf("pane %v", h.m.stepper.pane)
	}
	h.press("g")
	contains(t, h.plainView(), decided[0].Rule)
	h.press("G")
	v := h.plainView()
	contains(t, v, decided[len(decided)-1].Rule)
	contains(t, v, "status: denied")
}

func TestListFilesResultShowsItsNames(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter")
	for h.m.runs[0].live.state != loop.RecordingResult {
		h.press("space")
	}
	v := h.plainView()
	contains(t, v, "⇒ README.md · hello.py")
}

// Line breaking keeps words whole (--provider, hello.py) and follows the
// Japanese rules: 。、」 never start a line, 「 never ends one.
func TestWrapKeepsWordsAndKinsoku(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want []string
	}{
		{"then start with --provider gemini", 20, []string{"then start with", "--provider gemini"}},
		{"これはhello.pyです。", 10, []string{"これは", "hello.pyで", "す。"}},
		{"ファイルを読みました。次に", 12, []string{"ファイルを読", "みました。次", "に"}},
		{"「はい」と答えた", 4, []string{"「は", "い」", "と答", "えた"}},
		{`  "path": "a.txt"`, 40, []string{`  "path": "a.txt"`}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"what is in ../../etc/passwd now", 22, []string{"what is in", "../../etc/passwd now"}},
		{"a farewell(name) function", 18, []string{"a farewell(name)", "function"}},
	} {
		got := wrapLines(tc.in, tc.w)
		if !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		for _, ln := range got {
			if ansi.StringWidth(ln) > tc.w {
				t.Errorf("line %q is wider than %d", ln, tc.w)
			}
			if r, _ := utf8.DecodeRuneInString(ln); strings.ContainsRune("。、」", r) {
				t.Errorf("line %q starts with closing punctuation", ln)
			}
		}
	}
}

// The payload border's percentage is how far down the view is: 0% at the
// top, 100% at the bottom.
func TestPayloadPercentIsHowFarDown(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 24)
	h.press("enter", "space", "space", "space") // the first model call
	for h.m.stepper.pane != panePayload {
		h.press("tab")
	}
	h.press("h", "g") // with the headers, the exchange is taller than the pane
	contains(t, h.plainView(), " · 0%")
	h.press("G")
	contains(t, h.plainView(), " · 100%")
}

// Keys that do nothing here say why.
func TestIdleKeysSayWhy(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("enter", "space", "space", "space")
	h.press("x")
	contains(t, h.plainView(), "x: this model call made one HTTP exchange")
	for h.m.stepper.pane != paneTools {
		h.press("tab")
	}
	h.press("e")
	contains(t, h.plainView(), "e works in History: tab there first")
	h.press("h")
	contains(t, h.plainView(), "h works in Raw payload")
	for h.m.stepper.pane != paneDiagram {
		h.press("tab")
	}
	h.press("G")
	contains(t, h.plainView(), "G works in History, Tool calls, Raw payload and Anatomy")
}

// With NO_COLOR the help line's … carries no colour either.
func TestNoColorHelpEllipsis(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.NoColor = true
	m := New(cfg)
	if _, ok := m.help.Styles.Ellipsis.GetForeground().(lipgloss.NoColor); !ok {
		t.Fatalf("the help ellipsis has colour %v under NO_COLOR", m.help.Styles.Ellipsis.GetForeground())
	}
}

// At 120 columns the welcome keeps --provider whole.
func TestWelcomeKeepsFlagsWhole(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	if regexp.MustCompile(` -+ *│`).MatchString(h.plainView()) {
		t.Fatalf("a History line ends in a lone '-':\n%s", h.plainView())
	}
	contains(t, h.plainView(), "--provider")
}

// ASSEMBLING_CONTEXT says what is new: the request, or a tool result.
func TestAssemblingSaysWhatIsNew(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 160, 48)
	h.press("enter", "space")
	contains(t, h.plainView(), "the new event (your request)")
	for {
		h.press("space")
		if h.edges()[len(h.edges())-1] == loop.EdgeObserved {
			break
		}
	}
	v := h.plainView()
	contains(t, v, "the tool results just")
	notContains(t, v, "the latest event")
}

// "/" and the words typed right after it may arrive in one read: the / is
// the key that opens the input, the rest is the text.
func TestSlashAndTextTogether(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("esc")
	h.typeText("/first line")
	if h.m.input.Value() != "first line" {
		t.Fatalf("input %q", h.m.input.Value())
	}
}

// The wrapped verdict line carries no raw escape sequence.
func TestWrappedRuleHasNoRawEscape(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256) // styles emit escapes, as in a terminal
	defer lipgloss.SetColorProfile(termenv.Ascii)
	w := newWorld(t, reply{calls: writeCall()}, reply{text: "ok"})
	cfg := w.config()
	cfg.NoColor = false
	h := newHarness(t, cfg, 120, 34)
	h.typeText("write")
	h.press("enter", "c", "esc")
	v := h.plainView()
	contains(t, v, "changes-need-approval")
	notContains(t, v, "[0m")
	notContains(t, v, `\x1b`)
}

// n held back, then a digit: the option is picked, not "n1" sent.
func TestSteppingWithNThenADigitPicks(t *testing.T) {
	ask := map[string]any{"question": "Delete old_log.txt?", "options": []string{"yes", "no"}}
	w := newWorld(t, reply{calls: []history.ToolCall{call("a1", "ask_user", ask)}}, reply{text: "ok"})
	h := newHarness(t, w.config(), 120, 34)
	h.typeText("clean up")
	h.press("enter")
	for h.m.runs[0].ask == nil {
		if len(h.m.runs[0].live.steps) > 20 {
			t.Fatalf("no question; states %v", h.states())
		}
		h.press("n")
	}
	h.press("n", "n", "1", "space")
	var results []string
	for _, e := range h.m.runs[0].history.entries {
		if e.kind == entryResult {
			results = append(results, e.text)
		}
	}
	if !slices.Equal(results, []string{"yes"}) {
		t.Fatalf("answers %q", results)
	}
}
