package glassbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// What a workshop's day showed (issue 29), one test each: the first screen,
// a resumed session, compare mode on a small terminal, time travel, the
// handout's address, F at the present, compare mode's help, the MCP bus.

// oneOfflineRun is a single run on the offline simulation through the real
// SDK (it previews each request before it is sent).
func oneOfflineRun(t *testing.T) Config {
	t.Helper()
	cfg := compareWorld(t, "gemini")
	cfg.Runs[0].Name, cfg.Runs[0].Label = "", ""
	return cfg
}

// flat is screen text with the frames' borders gone and every run of
// white space one space: a sentence the pane wrapped reads whole.
func flat(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 0x2500 && r <= 0x257F {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// squash is flat without any space: a Japanese sentence a pane wrapped
// (with no space at the break) reads whole.
func squash(s string) string { return strings.ReplaceAll(flat(s), " ", "") }

// historyTop is the first line of content in run run's History pane.
func historyTop(h *harness, run int) string {
	h.t.Helper()
	lines := strings.Split(paneText(h, run, paneHistory), "\n")
	if len(lines) < 2 {
		h.t.Fatalf("History is not on screen:\n%s", h.plainView())
	}
	return strings.TrimSpace(strings.Trim(lines[1], "│"))
}

// The first screen never opens mid-sentence: History's first line is the
// start of the welcome, however long the welcome and the notes after it
// (a served instructor's room notes), in English and Japanese, in compare
// mode and served.
func TestFirstScreenStartsAtTheWelcome(t *testing.T) {
	notes := []string{"glassbox serve: listening on 127.0.0.1:2222 (up to 50 learners)",
		"learners connect with: ssh -p 2222 NAME@HOST (NAME is theirs: the same name resumes their session)",
		"workshop passphrase: abcd-efgh-ijkm", "host key fingerprint: SHA256:0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"}
	cases := []struct {
		name string
		cfg  func() Config
		w, h int
	}{
		{"english", func() Config { return oneOfflineRun(t) }, 120, 34},
		{"japanese", func() Config { c := oneOfflineRun(t); c.Lang = lang.JA; return c }, 120, 34},
		{"compare", func() Config { return compareWorld(t, "gemini", "llama") }, 120, 34},
		{"compare_small", func() Config { return compareWorld(t, "gemini", "llama") }, 100, 30},
		{"served_instructor", func() Config {
			c := oneOfflineRun(t)
			c.Runs[0].Notes = notes
			c.Room = &Room{Roster: func() Roster { return Roster{} }}
			return c
		}, 120, 34},
		{"served_learner_ja", func() Config { c := oneOfflineRun(t); c.Room = &Room{}; c.Lang = lang.JA; return c }, 160, 48},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%dx%d", c.name, c.w, c.h), func(t *testing.T) {
			cfg := c.cfg()
			h := newHarness(t, cfg, c.w, c.h)
			want := strings.Fields(cfg.Lang.T("glassbox — an AI coding agent's Think → Act → Observe loop, one transition at a time."))[0]
			if top := historyTop(h, 0); !strings.HasPrefix(top, want+" ") {
				t.Fatalf("History opens on %q, not on the welcome's first line:\n%s", top, h.plainView())
			}
			// Something happening follows the newest again.
			h.press("enter", "space")
			if !h.m.runs[0].history.follow {
				t.Fatal("History does not follow the steps once the request is taken")
			}
		})
	}
}

// After --resume, History says space goes on, and the first space steps:
// the keyboard is at the stepper, not in the input.
func TestResumedSessionStepsOnTheFirstSpace(t *testing.T) {
	w := newWorld(t, tourScript()...)
	h := newHarness(t, w.config(), 120, 34)
	h.press("enter", "space", "space", "space")
	var past []loop.Transition
	for _, s := range h.m.runs[0].live.steps {
		past = append(past, s.t)
	}
	cfg := w.config()
	cfg.Runs = []RunConfig{{Engine: w.eng, Person: w.person, Backend: "offline", Workspace: w.dir, Past: past}}
	r := newHarness(t, cfg, 120, 34)
	contains(t, flat(paneText(r, 0, paneHistory)), fmt.Sprintf("space goes on from step #%d", past[len(past)-1].Seq))
	if r.m.inputFocused {
		t.Fatal("a resumed glass box opens with the keyboard in the input")
	}
	r.press("space")
	if n := len(r.m.runs[0].live.steps); n != len(past)+1 {
		t.Fatalf("the first space took %d steps (%d before), input %q", n-len(past), len(past), r.m.input.Value())
	}
}

// A session resumed right after context_ready shows the request it is
// about to send, as the run did before it was left: the Raw payload pane
// has its HTTP request and the Anatomy pane its parts, before space.
func TestResumedBeforeTheCallShowsTheRequest(t *testing.T) {
	cfg, dir := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "space", "space")
	if st := h.m.runs[0].live.state; st != loop.AwaitingLLMResponse {
		t.Fatalf("the run is in %s, not AWAITING_LLM_RESPONSE", st)
	}
	var past []loop.Transition
	for _, s := range h.m.runs[0].live.steps {
		past = append(past, s.t)
	}
	run := RunConfig{Engine: cfg.Engine, Person: cfg.Person, Backend: "offline", Workspace: dir, Past: past}
	cfg.Engine, cfg.Runs = nil, []RunConfig{run}
	r := newHarness(t, cfg, 120, 34)
	if cmd := r.m.Init(); cmd != nil {
		r.send(cmd())
	}
	if n := len(r.m.runs[0].live.steps); n != len(past) {
		t.Fatalf("reading the request took a step: %d steps, %d before", n, len(past))
	}
	payload := flat(paneText(r, 0, panePayload))
	contains(t, payload, "not sent yet")
	contains(t, payload, "streamGenerateContent")
	anat := flat(paneText(r, 0, paneAnatomy))
	notContains(t, anat, "could not build it")
	contains(t, anat, "parts")
}

// Compare mode on a 100×30 terminal opens where a learner starts: History
// with the welcome and the lesson to send, the comparison strip above, and
// the tab bar names the key that changes the pane (shift+tab; tab picks the
// run there).
func TestCompareAt100x30OpensWhereALearnerStarts(t *testing.T) {
	h := newHarness(t, compareWorld(t, "gemini", "llama"), 100, 30)
	L := h.m.computeLayout()
	if L.mode != layoutTabs || L.strip.h == 0 {
		t.Fatalf("mode %v, strip %+v: want tabs under the strip", L.mode, L.strip)
	}
	v := h.plainView()
	contains(t, v, "COMPARE: this is the gemini run")
	contains(t, v, "Press Enter to send the tour lesson")
	contains(t, v, "Compare: the latest model call of each run")
	tabBar := strings.Split(v, "\n")[L.tabBar.y]
	if !strings.Contains(tabBar, "shift+tab ⇤") || strings.Contains(tabBar, "tab ⇥") {
		t.Fatalf("the tab bar says %q", tabBar)
	}
	h.press("esc", "shift+tab")
	if h.m.stepper.pane != paneHistory-1+numPanes && h.m.stepper.pane == paneHistory {
		t.Fatal("shift+tab did not change the pane")
	}
	// A single run's tab bar: tab changes the pane.
	s := newHarness(t, oneOfflineRun(t), 100, 30)
	tabBar = strings.Split(s.plainView(), "\n")[s.m.computeLayout().tabBar.y]
	if !strings.Contains(tabBar, "tab ⇥") {
		t.Fatalf("a single run's tab bar says %q", tabBar)
	}
}

// Time travel to a step that assembled a request the next step sent says
// what space does there (it returns to the present), never "space sends
// it"; and space does what it says.
func TestPastContextReadySaysWhatSpaceDoes(t *testing.T) {
	h := newHarness(t, oneOfflineRun(t), 160, 48)
	h.press("enter", "space", "space") // new_event, context_ready: the preview
	r := h.m.runs[0]
	contains(t, paneText(h, 0, panePayload), "Press space to send it")
	h.press("space", "[") // the call went out; back to the step that assembled it
	if s := r.live.selected(); s == nil || s.t.Edge != loop.EdgeContextReady || !r.live.travelling() {
		t.Fatalf("not at the past context_ready step: %+v", s)
	}
	p := flat(paneText(h, 0, panePayload))
	if strings.Contains(p, "Press space to send it") || !strings.Contains(p, "space returns to the present") {
		t.Fatalf("the past step's payload says:\n%s", paneText(h, 0, panePayload))
	}
	steps := len(r.live.steps)
	h.press("space")
	if r.live.travelling() || len(r.live.steps) != steps {
		t.Fatalf("space at the past step: travelling %v, %d steps (was %d)", r.live.travelling(), len(r.live.steps), steps)
	}
}

// A served learner's handout address is on one line of History, never
// wrapped (a terminal copies a wrapped address with the pane's border in
// it); where History is too narrow it is cut, and says how to see it whole.
func TestHandoutAddressIsOneLine(t *testing.T) {
	const url = "http://workshop.example.org:8080/h/Zm9vYmFyYmF6cXV4cXV1eA/step-2.html"
	for _, size := range [][2]int{{120, 34}, {160, 48}} {
		_, cfg, _ := handoutWorld(t)
		cfg.Room = &Room{Handout: func(string) (string, error) { return url, nil }}
		h := newHarness(t, cfg, size[0], size[1])
		h.press("enter", "space", "space", "X")
		hist := paneText(h, 0, paneHistory)
		whole := strings.Contains(hist, url)
		if !whole && !strings.Contains(flat(hist), "z on History shows it whole") {
			t.Fatalf("%dx%d: the address is neither whole nor said to be cut:\n%s", size[0], size[1], hist)
		}
		if strings.Contains(hist, "step-2.html") && !whole {
			t.Fatalf("%dx%d: the address is wrapped:\n%s", size[0], size[1], hist)
		}
		h.press("tab", "tab", "tab", "z") // History zoomed: the whole line
		for h.m.stepper.pane != paneHistory {
			h.press("z", "tab", "z")
		}
		contains(t, paneText(h, 0, paneHistory), url)
	}
}

// F at the present step forks onto another dialect without cutting
// anything, and says so: never "the 0 later steps are abandoned".
func TestForkOntoAtThePresentAbandonsNothing(t *testing.T) {
	cfg := oneOfflineRun(t)
	cfg.Dialects = []string{"gemini", "llama"}
	cfg.Runs[0].Onto = func(ctx context.Context, dialect string) (loop.Onto, func(), error) {
		d, _ := backend.Lookup(dialect)
		b, err := backend.Choose(ctx, backend.Options{Dialect: d, Offline: true})
		if err != nil {
			return loop.Onto{}, nil, err
		}
		t.Cleanup(func() { b.Close() })
		return loop.Onto{Provider: b.Provider, Backend: b.Kind, BackendReason: b.Reason, Dialect: agentrun.LoopDialect(d)}, func() {}, nil
	}
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "space")
	h.press("F", "1")
	hist := flat(paneText(h, 0, paneHistory))
	notContains(t, hist, "the 0 later steps")
	contains(t, hist, "the present: no step is abandoned")
}

// Compare mode's help says the one session's size once, whichever run
// measured it last, and no run's health line gives another.
func TestCompareHelpSaysOneSessionSize(t *testing.T) {
	cfg := compareWorld(t, "gemini", "llama")
	cfg.Session = t.TempDir() + "/s.jsonl"
	h := newHarness(t, cfg, 160, 48)
	for i, r := range h.m.runs {
		r.disk.path = cfg.Session
		h.send(sessionSizeMsg{run: i, bytes: int64(4096 * (i + 1))})
	}
	h.press("esc", "?")
	v := h.plainView()
	contains(t, v, "session on disk (both runs): 8192 bytes")
	for _, other := range []string{"4096", "4.0 KB", "4 KB", "8.0 KB", "8 KB"} {
		notContains(t, v, other)
	}
	if a, b := h.m.runs[0].live.health.Bytes, h.m.runs[1].live.health.Bytes; a != b {
		t.Fatalf("the runs hold two sizes of one session: %d and %d", a, b)
	}
}

// A request from the MCP bus is headed by its client, not "● you"; after
// c, the Raw payload's title counts the frames both ways, so the answer
// going back is never "0 frames".
func TestBusRequestIsHeadedByItsClient(t *testing.T) {
	w, b := busWorld(t, tourScript()[2])
	h := newHarness(t, onTheBus(w, b), 160, 48)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	go b.Serve(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "probe", Version: "1.0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go cs.CallTool(ctx, &mcp.CallToolParams{Name: bus.ToolName, Arguments: map[string]any{"request": "hello"}})
	arrive(t, h)
	h.press("c")
	hist := paneText(h, 0, paneHistory)
	contains(t, hist, "● probe 1.0 on the MCP bus")
	notContains(t, hist, "● you")
	h.press("tab", "tab", "tab") // the Raw payload
	for _, side := range []string{"sent", "received"} {
		title := strings.Split(paneText(h, 0, panePayload), "\n")[0]
		if !strings.Contains(title, "1 sent · 0 received") {
			t.Fatalf("showing %s, the Raw title is %q", side, title)
		}
		h.press("r")
	}
}

// helpLine is the line under the input: the notice and the keys' help.
func helpLine(h *harness) string {
	h.t.Helper()
	return strings.Split(h.plainView(), "\n")[h.m.computeLayout().help.y]
}

// Each person is told what they may do, from one table (ui/role): a
// follower is never told to type a request or step, nor offered fork,
// what-if, lessons or answers; a served learner is never told about flags
// they did not pass or how to start glassbox with a key; the roster is
// the instructor's alone.
func TestEachPersonIsToldWhatTheyMayDo(t *testing.T) {
	follower := Config{
		Runs:    []RunConfig{{Banner: "gemini gemini-2.5-flash · offline: --offline", Backend: "offline", BackendReason: "--offline"}},
		Follow:  &Follow{Who: "instructor", Next: func(ctx context.Context) (FollowBatch, bool) { <-ctx.Done(); return FollowBatch{}, false }},
		NoColor: true, Lessons: testLessons, Lesson: "tour",
	}
	learner := func() Config {
		c := oneOfflineRun(t)
		c.Runs[0].Banner, c.Runs[0].BackendReason = "gemini gemini-2.5-flash · offline: --offline", "--offline"
		c.Room = &Room{}
		return c
	}
	instructor := func() Config {
		c := oneOfflineRun(t)
		c.Room = &Room{Roster: func() Roster { return Roster{} }}
		return c
	}
	for _, l := range lang.All {
		t.Run(string(l), func(t *testing.T) {
			f := follower
			f.Lang = l
			h := newHarness(t, f, 120, 34)
			welcome := squash(paneText(h, 0, paneHistory))
			for _, never := range []string{l.T("First moves: type a request (or press Enter for the lesson below), then space steps one transition, c runs to the answer. Press esc, then ? for every key."), "To go live", "--provider", "Press Enter to send"} {
				notContains(t, welcome, squash(never))
			}
			contains(t, welcome, squash(l.F("You follow the %s's run, read-only: their steps appear here as they take them, and nothing you press reaches their run.", l.Dyn("instructor"))))
			hint := helpLine(h)
			contains(t, hint, l.T("catch up"))
			for _, never := range []string{"c " + l.T("continue"), "i " + l.T("iteration"), "l " + l.T("lessons"), "enter,/ " + l.T("input")} {
				notContains(t, hint, never)
			}
			h.press("?")
			help := flat(h.plainView())
			for _, never := range []string{l.T("fork here"), l.T("what-if edit"), l.T("predict mode"), l.T("room roster"), l.T("allow once"), l.T("lessons"), flat(l.T("Type a request and press Enter: it becomes an event in the queue."))} {
				if strings.Contains(help, " "+never) {
					t.Errorf("a follower's help offers %q", never)
				}
			}
			h.press("esc", "f")
			contains(t, helpLine(h), l.F("read-only: you follow the %s's run (space catches up · [ ] go back in time · q quits)", l.Dyn("instructor")))

			lc := learner()
			lc.Lang = l
			h = newHarness(t, lc, 160, 48)
			v := flat(h.plainView())
			for _, never := range []string{"--offline", "--provider", "GEMINI_API_KEY", "go run"} {
				notContains(t, v, never)
			}
			contains(t, squash(paneText(h, 0, paneHistory)), squash(l.T("ask the instructor — the room's backend is theirs to choose, for every learner, and their key is never shown to you")))
			h.press("esc", "?")
			notContains(t, flat(h.plainView()), l.T("room roster"))
			h.press("esc", "R")
			contains(t, helpLine(h), l.T("R: the roster is the instructor's, in a served room (glassbox serve --instruct)"))

			ic := instructor()
			ic.Lang = l
			h = newHarness(t, ic, 160, 48)
			contains(t, flat(paneText(h, 0, paneHistory)), "--provider")
			h.press("esc", "?")
			contains(t, flat(h.plainView()), l.T("room roster"))
		})
	}
}

// An instructor's q with people in the room says how many and what
// happens to them, and offers to end the room or keep serving it; their
// choice reaches the room (Room.Leaving) and the glass box quits. With
// nobody in the room q asks as anywhere else.
func TestTheInstructorChoosesHowToLeaveTheRoom(t *testing.T) {
	for _, tc := range []struct {
		key  string
		keep bool
	}{{"e", false}, {"k", true}} {
		cfg := oneOfflineRun(t)
		var left []bool
		room := Roster{Learners: []Seated{{Name: "ada"}, {Name: "bo"}}, Following: 1}
		cfg.Room = &Room{Roster: func() Roster { return room }, Leaving: func(keep bool) { left = append(left, keep) }}
		h := newHarness(t, cfg, 120, 34)
		h.press("esc", "q")
		v := flat(h.plainView())
		for _, want := range []string{"Leave the room?", "2 learners and 1 follower are in the room.", "End the room: each learner's glass box closes",
			"Keep serving without your glass box", "e end the room", "k keep serving without me", "n/esc stay"} {
			contains(t, v, want)
		}
		if h.quit {
			t.Fatal("q quit at once")
		}
		h.press(tc.key)
		if !h.quit || len(left) != 1 || left[0] != tc.keep {
			t.Fatalf("%s: quit %v, Leaving told %v", tc.key, h.quit, left)
		}
	}
	cfg := oneOfflineRun(t)
	cfg.Room = &Room{Roster: func() Roster { return Roster{} }, Leaving: func(bool) { t.Fatal("an empty room asked how to leave") }}
	h := newHarness(t, cfg, 120, 34)
	h.press("esc", "q")
	if !h.quit {
		t.Fatal("q in an empty room with nothing done does not quit")
	}
}

// What the room tells the instructor while it is served (it outgrew the
// machine) is said on the notice line and kept in History.
func TestTheRoomsNotesReachTheInstructor(t *testing.T) {
	cfg := oneOfflineRun(t)
	notes := make(chan string, 1)
	cfg.Room = &Room{Roster: func() Roster { return Roster{} }, Notes: notes}
	h := newHarness(t, cfg, 160, 48)
	notes <- "the room has 31 learners and 0 followers, more than this machine was measured to carry"
	next, _ := h.m.Update(h.run(h.m.room.notesCmd())) // not settled: the next wait never ends
	h.m = next.(*Model)
	contains(t, helpLine(h), "the room has 31 learners")
	contains(t, flat(paneText(h, 0, paneHistory)), "the room has 31 learners and 0 followers")
}

// The instructor's leave dialog, in English and Japanese, at the sizes a
// room is shown at.
func TestGoldenLeaveTheRoom(t *testing.T) {
	for _, l := range lang.All {
		for _, size := range [][2]int{{120, 34}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", l, size[0], size[1]), func(t *testing.T) {
				w := newWorld(t, tourScript()...)
				cfg := w.config()
				cfg.Lang = l
				cfg.Resume = "glassbox serve --instruct --resume ~/.local/state/glassbox/sessions/s.jsonl"
				cfg.Room = &Room{Roster: sampleRoster, Leaving: func(bool) {}}
				h := newHarness(t, cfg, size[0], size[1])
				h.normalize = zeroDurations
				h.press("esc", "q")
				v := h.view()
				checkScreen(t, v, size[0], size[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// The lessons menu names the bundled lessons it does not offer and why,
// so it and the guide (every bundled lesson) agree: a Gemini run lists all
// but repeat-stop, and says that one needs a run of Ollama's dialect.
func TestLessonsMenuNamesWhatItLeavesOut(t *testing.T) {
	for _, l := range lang.All {
		cfg := oneOfflineRun(t)
		cfg.Lang = l
		h := newHarness(t, cfg, 120, 34)
		h.press("esc", "l")
		v := flat(h.plainView())
		shown := 0
		for _, ls := range cfg.Lessons {
			if strings.Contains(v, ") "+ls.Name+" ") {
				shown++
			}
		}
		want := l.F("not offered here: %s — only a %s run shows it", "repeat-stop", l.F("%s or %s", "llama, llama:native", "openai"))
		if !strings.Contains(v, want) {
			t.Fatalf("%s: the menu does not say %q:\n%s", l, want, v)
		}
		if shown+1 != len(cfg.Lessons) {
			t.Fatalf("%s: the menu lists %d of %d lessons and names 1 it leaves out", l, shown, len(cfg.Lessons))
		}
	}
}

// The ▶ that marks the bytes deciding the edge never covers a byte: in a
// zoomed Raw pane at 120 columns the write_file call's first line keeps
// every cell (no "…" where `",` was), and the lines read on unbroken.
func TestDecidingMarkCoversNoBytes(t *testing.T) {
	cfg, _ := offlineWorld(t, "write-file")
	h := newHarness(t, cfg, 120, 34)
	h.press("enter", "space", "space", "space")
	if got := h.m.runs[0].live.state; got != loop.CheckingPolicy {
		t.Fatalf("state %s", got)
	}
	h.press("esc")
	for h.m.stepper.pane != panePayload {
		h.press("tab")
	}
	h.press("z")
	v := h.plainView()
	contains(t, v, "zoomed (z)")
	var body strings.Builder
	for _, ln := range strings.Split(v, "\n") {
		inner := strings.Trim(ln, "│┃")
		if !strings.Contains(ln, "data: ") && !strings.HasPrefix(inner, "          ") {
			continue
		}
		ln = strings.TrimSpace(inner)
		if strings.HasSuffix(ln, "…") {
			t.Fatalf("a payload line is cut:\n%s", v)
		}
		body.WriteString(ln)
	}
	contains(t, body.String(), `"args":{"path":"farewell.py","content":"def farewell(name):`)
	if !marked(v, `"functionCall"`) {
		t.Fatalf("the deciding line is not marked:\n%s", v)
	}
}

// An input placeholder too long for the line ends with "…" where it is
// cut, in Japanese as in English.
func TestPlaceholderIsCutWithAnEllipsis(t *testing.T) {
	for _, l := range lang.All {
		cfg := oneOfflineRun(t)
		cfg.Lang = l
		for i := range cfg.Lessons {
			if cfg.Lessons[i].Name == "tour" {
				cfg.Lessons[i].Request = strings.Repeat("ファイルを一覧して説明してください。", 6)
			}
		}
		h := newHarness(t, cfg, 80, 24)
		found := false
		for _, ln := range strings.Split(h.plainView(), "\n") {
			if strings.HasPrefix(ln, "› ") {
				found = true
				if !strings.HasSuffix(strings.TrimRight(ln, " "), "…") {
					t.Errorf("%s: the placeholder is cut without …: %q", l, ln)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no input line:\n%s", l, h.plainView())
		}
	}
}
