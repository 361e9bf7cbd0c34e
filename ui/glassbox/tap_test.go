package glassbox

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// tapClock is the time every tap test stands at: a hold's age and every
// step's time are the same on every run.
var tapClock = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

// tapScreen is a glass box around a real tap (loop/tap, the built-in
// emulator upstream) served on a test server the agent calls.
type tapScreen struct {
	*harness
	tap *tap.Tap
	url string
}

func newTapScreen(t *testing.T, l lang.Lang, w, h int) *tapScreen {
	t.Helper()
	return newTapScreenOn(t, tap.Offline, l, w, h)
}

// newTapScreenOn is newTapScreen with the calls going to upstream, and
// breakpoints bps given as --break gives them.
func newTapScreenOn(t *testing.T, upstream string, l lang.Lang, w, h int, bps ...breakpoint.Breakpoint) *tapScreen {
	t.Helper()
	tp, err := tap.New(tap.Options{Upstream: upstream, Mode: tap.Stepping, Now: func() time.Time { return tapClock }, Breakpoints: bps})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tp)
	t.Cleanup(func() { tp.Close(); srv.Close() })
	intro := []string{l.F("glassbox tap on %s: point your agent here (set one of these in its shell):", "127.0.0.1:8080")}
	for _, v := range tp.Variables("127.0.0.1:8080") {
		intro = append(intro, "  "+v)
	}
	intro = append(intro, l.F("the calls go to %s", l.T("glassbox's built-in emulator (--upstream offline: no key, no network)")),
		l.T("a tap sees the model calls only: the agent's own approvals and the tools it runs happen out of sight (those steps are marked inferred)"))
	cfg := Config{Lang: l, Runs: []RunConfig{{Label: "tap", Backend: tap.CassetteProvider, Banner: intro[0], Provider: tap.CassetteProvider, Model: "offline"}},
		Tap: &Tap{Source: tp, Intro: intro}, Breakpoints: bps}
	m := New(cfg)
	m.tap.now = func() time.Time { return tapClock }
	m.animate = false
	m.forks.exec = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd { return func() tea.Msg { return fn(c.Run()) } }
	hs := &harness{t: t, m: m, late: make(chan tea.Msg, 16)}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.send(hs.run(hs.m.Init())) // the tap's news begin to arrive
	return &tapScreen{harness: hs, tap: tp, url: srv.URL}
}

// tapRequest is an agent's first call: a person's words and two tools.
const tapRequest = `{"contents":[{"role":"user","parts":[{"text":"list the files"}]}],"tools":[{"functionDeclarations":[` +
	`{"name":"list_directory","parameters":{"type":"object","properties":{"dir_path":{"type":"string","description":"The path to the directory to list"}},"required":["dir_path"]}},` +
	`{"name":"read_file","parameters":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}]}]}`

// call is the agent calling through the tap; its reply arrives on the
// channel once the tap delivers it.
func (s *tapScreen) call(body string) <-chan string {
	got := make(chan string, 1)
	go func() {
		resp, err := http.Post(s.url+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	return got
}

// deliverHeld checks that the agent has no reply while it is held, then
// delivers it (space) and checks the agent got want.
func (s *tapScreen) deliverHeld(reply <-chan string, want string) {
	s.t.Helper()
	select {
	case r := <-reply:
		s.t.Fatalf("the agent got its reply while it was held: %s", r)
	default:
	}
	s.press("space")
	if r := <-reply; !strings.Contains(r, want) {
		s.t.Fatalf("the agent got %s", r)
	}
}

// tapNext is the agent's second call: the listing it ran, sent back.
func tapNext() string {
	return strings.Replace(tapRequest, `]}],"tools"`, `]},{"role":"model","parts":[{"functionCall":{"name":"list_directory","args":{"dir_path":"."}}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"list_directory","response":{"output":"hello.py\nREADME.md"}}}]}],"tools"`, 1)
}

// shows waits until the screen shows want.
func (s *tapScreen) shows(want string) {
	s.t.Helper()
	s.await(fmt.Sprintf("%q on screen", want), func() bool { return strings.Contains(s.plainView(), want) })
}

// A tap's glass box steps a real agent's call: the request is held (its
// age on the status bar), space sends it, the reply is held, space
// delivers it; c lets the next call through unheld; the keys that would
// act on glassbox's own agent say why they cannot.
func TestTapStepsAnAgent(t *testing.T) {
	s := newTapScreen(t, lang.EN, 120, 34)
	contains(t, s.plainView(), "GOOGLE_GEMINI_BASE_URL=")
	contains(t, s.plainView(), "OLLAMA_HOST=http://127.0.0.1:8080")
	contains(t, s.plainView(), "No model call yet: point the agent at the tap")
	s.press("space")
	contains(t, s.plainView(), "nothing is held")

	reply := s.call(tapRequest)
	s.shows("held: request #1 (gemini)")
	contains(t, s.plainView(), "held: the agent's request, before it goes")
	contains(t, s.plainView(), "AWAITING_LLM_RESPONSE")
	s.m.tap.now = func() time.Time { return tapClock.Add(75 * time.Second) }
	s.send(tapTickMsg{})
	contains(t, s.plainView(), "for 1m15s")

	s.press("space")
	s.shows("held: reply #2 (gemini)")
	contains(t, s.plainView(), "list_directory")
	s.deliverHeld(reply, `"list_directory"`)
	s.shows("stepping")

	for _, k := range []string{"f", "A", "/"} {
		s.press(k)
		contains(t, s.plainView(), "a tap shows another agent's calls")
	}
	s.press("c")
	contains(t, s.plainView(), "running: the agent's calls pass through")
	next := tapNext()
	if r := <-s.call(next); !strings.Contains(r, `"finishReason":"STOP"`) || strings.Contains(r, "functionCall") {
		t.Fatalf("the agent got %s", r)
	}
	s.shows("the agent shows its user the answer")
	if v := s.plainView(); strings.Contains(v, "delivered, inferred:") { // said once, not twice
		t.Errorf("History says the inferred answer twice:\n%s", v)
	}
	if hs := s.m.tap.holds; len(hs) != 0 {
		t.Fatalf("held while running: %+v", hs)
	}
	for _, want := range []string{"allow", "tool_success", "final_answer"} {
		if !strings.Contains(fmt.Sprint(s.edges()), want) {
			t.Errorf("edges %v lack %s", s.edges(), want)
		}
	}
}

// Issue 30 §2 in the glass box: a breakpoint typed in K is the tap's (it
// decides which calls are held); c lets the agent run until it begins to
// match — here, until the agent's reply asks for list_directory — and
// History, the help line and the status bar say which breakpoint held
// which call. The tap steps from there. A breakpoint taken out in K holds
// nothing more.
func TestTapBreakpointHoldsAfterC(t *testing.T) {
	s := newTapScreen(t, lang.EN, 160, 48)
	s.press("K")
	s.typeText("tool=list_directory")
	s.press("enter")
	// On a tap i holds nothing: the dialog says c alone stops.
	v := s.plainView()
	contains(t, v, "In force — c stops where one begins to match")
	if strings.Contains(v, "i and c stop") || !strings.Contains(s.m.bar.notice, "breakpoint #1 tool=list_directory: c stops where it begins to match") {
		t.Fatalf("notice %q\n%s", s.m.bar.notice, v)
	}
	s.press("esc")
	if got := s.tap.Breakpoints(); len(got) != 1 || got[0].String() != "tool=list_directory" {
		t.Fatalf("the tap holds on %v: K's breakpoint did not reach it", got)
	}
	s.press("c")
	contains(t, s.plainView(), "running until a breakpoint (1 in force")
	reply := s.call(tapRequest)
	s.shows("held: reply #1 (gemini)")
	v = s.plainView()
	contains(t, v, "stopped by breakpoint #1 tool=list_directory at step 3 (AWAITING_LLM_RESPONSE ─tool_call─▶ CHECKING_POLICY)")
	contains(t, v, "#1 tool=list_directory @ step 3")
	contains(t, s.m.bar.notice, "held: the service's reply, before the agent gets it")
	s.deliverHeld(reply, `"list_directory"`)
	// The tap steps now: the agent's next request is held.
	next := tapNext()
	reply = s.call(next)
	s.shows("held: request #2 (gemini)")
	contains(t, s.plainView(), "break 1 set (K)") // the stop is shown until the next step

	s.press("K")
	s.press("ctrl+x", "esc")
	if got := s.tap.Breakpoints(); len(got) != 0 {
		t.Fatalf("the tap still holds on %v", got)
	}
	s.press("c")
	if r := <-reply; !strings.Contains(r, `"finishReason":"STOP"`) {
		t.Fatalf("the agent got %s", r)
	}
}

// --break reaches the tap as the glass box opens, before any key.
func TestTapBreakFlag(t *testing.T) {
	bps, err := breakpoint.ParseAll([]string{"edge=context_ready,bytes>100"})
	if err != nil {
		t.Fatal(err)
	}
	s := newTapScreenOn(t, tap.Offline, lang.EN, 120, 34, bps...)
	if got := s.tap.Breakpoints(); len(got) != 1 || got[0].String() != "edge=context_ready,bytes>100" {
		t.Fatalf("the tap holds on %v", got)
	}
	contains(t, s.plainView(), "1 set (K)")
	s.press("c")
	s.call(tapRequest)
	s.shows("held: request #1 (gemini)")
	contains(t, s.m.bar.notice, fmt.Sprintf("stopped by breakpoint #1 edge=context_ready,bytes>100 at step 2 (ASSEMBLING_CONTEXT ─context_ready─▶ AWAITING_LLM_RESPONSE); request %d bytes — held: the agent's request", len(tapRequest)))
}

// w edits the held request in the person's editor: what is saved is what
// goes, and the step that sends it is marked edited.
func TestTapWhatIf(t *testing.T) {
	editor := filepath.Join(t.TempDir(), "edit.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/list the files/read hello.py/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", editor)
	s := newTapScreen(t, lang.EN, 120, 34)
	reply := s.call(tapRequest)
	s.shows("held: request #1")
	s.press("w")
	s.shows("what-if: the edited request is what space sends")
	s.press("space")
	s.shows("held: reply #2")
	s.press("space")
	if r := <-reply; !strings.Contains(r, `"read_file"`) {
		t.Fatalf("the agent got %s: want the reply to the edited request", r)
	}
	s.await("the step that sent the edit", func() bool {
		for _, st := range s.m.runs[0].live.steps {
			if st.t.LLM != nil && st.t.Edited && st.t.Edit != nil {
				return true
			}
		}
		return false
	})
	s.press("w")
	contains(t, s.plainView(), "none is held")
}

// Goldens: the first screen of a tap and a held request, in English and
// Japanese, at 120×34 and 160×48. Regenerate with -update.
func TestGoldenTap(t *testing.T) {
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		for _, size := range [][2]int{{120, 34}, {160, 48}} {
			for _, scene := range []string{"first", "held_request"} {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", scene, l, size[0], size[1]), func(t *testing.T) {
					s := newTapScreen(t, l, size[0], size[1])
					if scene == "held_request" {
						s.call(tapRequest)
						s.await("the hold", func() bool { return len(s.m.tap.holds) == 1 })
					}
					v := s.view()
					checkScreen(t, v, size[0], size[1])
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}

// A tap's steps and its call in flight reach Config.OnTransition and
// Config.OnWire, the hooks a broadcast (--broadcast) publishes from: the
// room follows a tapped agent as it follows a glass box.
func TestTapIsBroadcast(t *testing.T) {
	var mu sync.Mutex
	var published []string
	var wire int
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}`+"\r\n\r\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"finishReason":"STOP"}]}`+"\r\n\r\n")
	}))
	defer slow.Close()
	s := newTapScreenOn(t, slow.URL, lang.EN, 120, 34)
	for _, r := range s.m.runs {
		r.observe = func(tr loop.Transition) { mu.Lock(); published = append(published, string(tr.Edge)); mu.Unlock() }
		r.observeWire = func(providers.Exchange) { mu.Lock(); wire++; mu.Unlock() }
	}
	s.press("c")
	reply := s.call(tapRequest)
	s.await("the call in flight published", func() bool { mu.Lock(); defer mu.Unlock(); return wire > 0 })
	close(release)
	if r := <-reply; !strings.Contains(r, `"lo"`) {
		t.Fatalf("the agent got %s", r)
	}
	s.await("the steps published", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(published, " ") == "new_event context_ready final_answer delivered"
	})
}
