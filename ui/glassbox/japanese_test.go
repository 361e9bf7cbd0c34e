package glassbox

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The other half of ui/lang's catalog test: that test fails when a T or F
// call has no Japanese; this one renders the glass box's screens in
// Japanese and fails on any English left on them, so a sentence written
// without T or F (or built from English pieces) is caught too.
//
// English here is a run of three or more plain words: lowercase letters,
// with at most a capital first, an apostrophe and punctuation at either
// end ("the", "Press", "(feedback,", "it's"). A protocol token is never
// such a word or is broken up by one: state and edge names
// (WAITING_FOR_EVENT, tool_call), rule and tool names (changes-need-approval,
// write_file), file names, model ids (gemini-2.5-flash), key names with
// their marks (space/n, ctrl+c). The allow-list is the few plain words
// that are names, not English.
var (
	englishWord = regexp.MustCompile(`^[(\["'“]*[A-Za-z][a-z]*('[a-z]+)?[)\]"'”.,:;!?…]*$`)
	// notEnglish are plain words that name something: keys (space, enter,
	// esc, tab), dialects (gemini, llama), the event source "ui" and the
	// learners' lesson names.
	notEnglish = map[string]bool{"space": true, "enter": true, "esc": true, "tab": true,
		"gemini": true, "llama": true, "openai": true, "ui": true, "tour": true, "write": true}
)

// englishRuns lists the runs of three or more English words on screen.
func englishRuns(screen string) []string {
	var runs []string
	for _, line := range strings.Split(screen, "\n") {
		// Box-drawing borders and the status bar's separators split words.
		line = strings.Map(func(r rune) rune {
			if r >= 0x2500 && r <= 0x257F || r == '•' || r == '·' || r == '›' || r == '▶' {
				return ' '
			}
			return r
		}, line)
		var run []string
		flush := func() {
			if len(run) >= 3 {
				runs = append(runs, strings.Join(run, " "))
			}
			run = nil
		}
		for _, tok := range strings.Fields(line) {
			word := strings.Trim(tok, `([\"'“)]"'”.,:;!?…`)
			if englishWord.MatchString(tok) && !notEnglish[strings.ToLower(word)] {
				run = append(run, tok)
				continue
			}
			flush()
		}
		flush()
	}
	return runs
}

func TestEnglishRuns(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"No tool calls yet.", 1},
		{"│  ● あなた  Give me a tour", 1},
		{" 状態 WAITING_FOR_EVENT  反復 0/10  gemini gemini-2.5-flash  バックエンド OFFLINE", 0},
		{"space/n 1 遷移 • i 1 反復 • c 続行 • ? ヘルプ", 0},
		{"REQUIRE_USER_CONFIRMATION · ルール changes-need-approval", 0},
		{"enter 送信 • alt+enter 改行 • esc ステップ操作のキーへ", 0},
		{"write_file {\"path\":\"notes/todo.txt\"}", 0},
		{"(the Raw payload pane has them all)", 1},
	} {
		if got := englishRuns(c.line); len(got) != c.want {
			t.Errorf("englishRuns(%q) = %q, want %d run(s)", c.line, got, c.want)
		}
	}
}

// japaneseReplies are a scripted model that speaks Japanese: what the model
// says is the payload, not the glass box's words, and in a Japanese
// workshop it is Japanese.
func japaneseTour() []reply {
	return []reply{
		{thought: "まずファイルを見ます。", calls: []history.ToolCall{call("c1", "list_files", map[string]any{"path": "."})}},
		{calls: []history.ToolCall{call("c2", "read_file", map[string]any{"path": "hello.py"})}},
		{text: "README と hello.py、notes/、古いログがあります。hello.py は挨拶を表示します。"},
	}
}

func japaneseWrite() []reply {
	return []reply{
		{thought: "行を足します。write_file には承認が要ります。",
			calls: []history.ToolCall{call("w1", "write_file", map[string]any{"path": "notes/買い物.txt", "content": "- 牛乳を買う\n"})}},
		{text: "追加しました。"},
	}
}

// english makes japaneseConfig's screens English, for
// TestEnglishScreensAreCaught.
var english bool

// japaneseConfig is the glass box of w in Japanese, as `glassbox --lang ja`
// opens it with no key set (the backend's reason read in Japanese); the
// lessons are Japanese data.
func japaneseConfig(w *testWorld) Config {
	cfg := w.config()
	cfg.Lang = lang.JA
	if english {
		cfg.Lang = lang.EN
	}
	cfg.Banner = "gemini gemini-2.5-flash · offline: no GEMINI_API_KEY or GOOGLE_API_KEY is set"
	cfg.BackendWhy = dialect.Sayf("no %s or %s is set", "GEMINI_API_KEY", "GOOGLE_API_KEY")
	cfg.BackendReason = cfg.BackendWhy.String()
	cfg.Sandbox = "on — Landlock ABI 7"
	cfg.Lessons = []Lesson{
		{Name: "tour", Title: "ツアー: 一覧して、読んで、説明する", Request: "このプロジェクトのファイルを一覧して、hello.py が何をするか教えてください。"},
		{Name: "write", Title: "ファイルを書くには承認が要る", Request: "notes/todo.txt に「牛乳を買う」を追加してください。"},
	}
	return cfg
}

// japaneseScenes are the screens a Japanese workshop sees, each driven from
// a fresh world to its moment. The returned string is the frame; what the
// frame may show in English that is not the glass box's (the engine's
// error message, under its Japanese heading) is removed by the scene.
func japaneseScenes() []struct {
	name  string
	frame func(t *testing.T, w, h int) string
} {
	type scene = struct {
		name  string
		frame func(t *testing.T, w, h int) string
	}
	single := func(replies []reply, drive func(h *harness)) func(t *testing.T, w, h int) string {
		return func(t *testing.T, width, height int) string {
			world := newWorld(t, replies...)
			h := newHarness(t, japaneseConfig(world), width, height)
			h.normalize = zeroDurations
			drive(h)
			return h.view()
		}
	}
	return []scene{
		{"first_screen", single(japaneseTour(), func(h *harness) {})},
		{"tour_midway", single(japaneseTour(), func(h *harness) {
			h.press("enter", "space", "space", "space", "esc") // new_event, context_ready, tool_call
			h.m.stepper.pane = panePayload
		})},
		{"tour_done", single(japaneseTour(), func(h *harness) { h.press("enter", "c") })},
		{"approval", single(japaneseWrite(), func(h *harness) {
			h.typeText("notes/買い物.txt に書いて")
			h.press("enter", "c")
		})},
		{"tool_calls_after_approval", func(t *testing.T, width, height int) string {
			world := newWorld(t, japaneseWrite()...)
			h := newHarness(t, japaneseConfig(world), width, height)
			h.normalize = zeroDurations
			h.typeText("notes/買い物.txt に書いて")
			h.press("enter", "c", "a", "esc")
			h.press("[", "[", "[") // back to the step that ran the call
			h.m.stepper.pane = paneTools
			// The tool's result is what the model is sent: the tool's own words.
			var results []string
			for _, s := range h.m.runs[0].live.steps {
				if s.t.Result != nil {
					results = append(results, s.t.Result.Content)
				}
			}
			return withoutText(h.view(), results...)
		}},
		{"help", single(japaneseTour(), func(h *harness) { h.press("esc", "?") })},
		{"lessons", single(japaneseTour(), func(h *harness) { h.press("esc", "l") })},
		{"fork_question", single(japaneseWrite(), func(h *harness) {
			h.typeText("notes/買い物.txt に書いて")
			h.press("enter", "c", "y", "c", "esc", "[", "[", "[", "[", "[", "[", "[", "f")
		})},
		{"predict", single(japaneseTour(), func(h *harness) { h.press("enter", "P", "space", "space") })},
		{"halted", func(t *testing.T, width, height int) string {
			world := newWorld(t) // a model with no replies: the call fails
			h := newHarness(t, japaneseConfig(world), width, height)
			h.normalize = zeroDurations
			h.press("enter", "c")
			r := h.m.runs[0]
			if r.live.state != loop.WaitingForEvent || len(r.live.steps) == 0 || r.live.steps[len(r.live.steps)-1].t.Edge != loop.EdgeReported {
				t.Fatalf("the run did not halt: %v", h.edges())
			}
			// The engine's words follow the Japanese heading, as the
			// trace records them: the provider's error is its own.
			return withoutText(h.view(), r.live.steps[len(r.live.steps)-1].t.Output.Text)
		}},
		{"provider_retry_notice", func(t *testing.T, width, height int) string {
			return retryScreen(t, width, height)
		}},
		{"compare", func(t *testing.T, width, height int) string {
			a, b := newWorld(t, japaneseTour()...), newWorld(t, japaneseTour()[1:]...)
			cfg := japaneseConfig(a)
			cfg.Runs = []RunConfig{
				{Name: "gemini", Label: "Gemini · native function calling", Engine: a.eng, Person: a.person, Backend: "offline", BackendReason: "--offline", Workspace: "/tmp/glassbox-workspace-a"},
				{Name: "llama", Label: "Llama · JSON-mode prompting", Engine: b.eng, Person: b.person, Backend: "offline", BackendReason: "--offline", Workspace: "/tmp/glassbox-workspace-b"},
			}
			h := newHarness(t, cfg, width, height)
			h.normalize = zeroDurations
			h.press("enter", "space", "space", "space", "tab")
			return h.view()
		}},
	}
}

// withoutText blanks what the screen shows of texts that are not the glass
// box's words (the engine's error message, a tool's result): each line of
// them as a pane wraps it at any width, or cut short with "…".
func withoutText(screen string, texts ...string) string {
	blank := func(s string) { screen = strings.ReplaceAll(screen, s, strings.Repeat(" ", ansi.StringWidth(s))) }
	for _, text := range texts {
		for _, para := range strings.Split(text, "\n") {
			for w := 10; w <= 160; w++ {
				for _, ln := range wrapLines(para, w) {
					if len(ln) > 8 {
						blank(ln)
					}
				}
			}
			for n := len(para); n > 8; n-- {
				if strings.Contains(screen, para[:n]+"…") {
					blank(para[:n] + "…")
					break
				}
			}
		}
	}
	return screen
}

// retryScreen is the frame while the engine waits before retrying a
// provider call that failed with HTTP 503.
func retryScreen(t *testing.T, width, height int) string {
	release := make(chan struct{})
	var once sync.Once
	wait := func(ctx context.Context, d time.Duration) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ws, _ := sampleWorkspace(t)
	person := NewPerson()
	prov := &failingOnce{scriptedProvider: scriptedProvider{replies: []reply{{text: "答えです。"}}}}
	eng, err := loop.New(loop.Config{
		Provider: prov, Backend: "offline", Tools: tools.Default(ws, person, 0), Workspace: ws, Person: person,
		Retry: loop.RetryPolicy{MaxRetries: 1}, Sleep: wait,
		Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := japaneseConfig(&testWorld{eng: eng, person: person, prov: &prov.scriptedProvider})
	h := newHarness(t, cfg, width, height)
	h.normalize = zeroDurations
	h.press("enter", "space", "space")
	var screen string
	h.normalize = func(msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case retryMsg:
			once.Do(func() { close(release) })
		case stepDoneMsg:
			if screen == "" {
				screen = h.view() // the frame of the wait, before the step's end replaces it
			}
		}
		return zeroDurations(msg)
	}
	h.press("space")
	if !strings.Contains(screen, "HTTP 503") {
		t.Fatalf("no retry notice on screen:\n%s", screen)
	}
	return screen
}

// failingOnce fails its first call with HTTP 503, then answers from its
// script.
type failingOnce struct {
	scriptedProvider
	failed bool
}

func (p *failingOnce) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	if !p.failed {
		p.failed = true
		return nil, &providers.Error{Kind: providers.KindUnavailable, Status: 503, Message: "503 Service Unavailable"}
	}
	return p.scriptedProvider.Call(ctx, req)
}

// The same screens in English are all caught: the check above is not one
// that cannot fail (before the catalog, every Japanese screen was this).
func TestEnglishScreensAreCaught(t *testing.T) {
	for _, sc := range japaneseScenes() {
		t.Run(sc.name, func(t *testing.T) {
			english = true
			defer func() { english = false }()
			if v := sc.frame(t, 120, 34); len(englishRuns(v)) == 0 {
				t.Errorf("no English found on the English screen:\n%s", v)
			}
		})
	}
}

// TestJapaneseScreensHaveNoEnglish renders every screen of japaneseScenes
// in Japanese at the two workshop sizes and fails on English left there.
func TestJapaneseScreensHaveNoEnglish(t *testing.T) {
	for _, size := range [][2]int{{120, 34}, {160, 48}} {
		for _, sc := range japaneseScenes() {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				v := sc.frame(t, size[0], size[1])
				checkScreen(t, v, size[0], size[1])
				for _, run := range englishRuns(v) {
					t.Errorf("English on the Japanese screen: %q", run)
				}
				if t.Failed() {
					t.Logf("the screen:\n%s", v)
				}
			})
		}
	}
}
