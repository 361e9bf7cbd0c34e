package glassbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// benchModel is a w×h glass box holding n history messages and a 1 MiB
// response payload on the selected step.
func benchModel(b *testing.B, w, h, n int) *Model {
	b.Helper()
	wd := newWorld(b)
	cfg := wd.config()
	cfg.NoColor = false // the colour theme, as a served learner gets it
	return benchFill(b, New(cfg), w, h, n, nil)
}

// benchCompareModel is compare mode at w×h: two runs, each with n history
// messages and a 1 MiB response payload.
func benchCompareModel(b *testing.B, w, h, n int) *Model {
	b.Helper()
	a, c := newWorld(b), newWorld(b)
	cfg := a.config()
	cfg.Runs = []RunConfig{
		{Name: "gemini", Engine: a.eng, Person: a.person, Backend: "offline"},
		{Name: "llama", Engine: c.eng, Person: c.person, Backend: "offline"},
	}
	cfg.NoColor = false
	return benchFill(b, New(cfg), w, h, n, nil)
}

// benchFill gives each run of m n history messages and a model call step
// whose exchange has a 1 MiB response; its request is req, or (nil) the
// response's bytes again.
func benchFill(b *testing.B, m *Model, w, h, n int, req func(msgs []history.Message) []byte) *Model {
	b.Helper()
	m.animate = false
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = next.(*Model)
	body := bytes.Repeat([]byte(`{"candidates":[{"content":{"parts":[{"text":"hello world"}]}}]}`+"\n"), (1<<20)/64)
	for _, r := range m.runs {
		var msgs []history.Message
		for i := 0; i < n; i++ {
			var msg history.Message
			switch i % 4 {
			case 0:
				msg = history.Message{Role: history.RoleUser, Text: fmt.Sprintf("request %d: please look at the files and explain them 日本語も", i)}
			case 1:
				msg = history.Message{Role: history.RoleAssistant, Thought: "Thinking about it.",
					ToolCalls: []history.ToolCall{{ID: "c", Name: "read_file", Args: []byte(`{"path":"hello.py"}`)}}}
			case 2:
				msg = history.Message{Role: history.RoleTool, Result: &history.ToolResult{Name: "read_file", Content: strings.Repeat("line of file content\n", 20)}}
			default:
				msg = history.Message{Role: history.RoleAssistant, Text: strings.Repeat("The answer is long enough to wrap over several lines. ", 6)}
			}
			r.live.addMessage(r.history, msg)
			msgs = append(msgs, msg)
		}
		ex := providers.Exchange{Method: "POST", URL: "https://example.invalid/v1beta/models/x:generateContent",
			RequestBody: body, ResponseBody: body, Status: 200}
		if req != nil {
			ex.RequestBody = req(msgs)
		}
		r.live.record(r.history, loop.Transition{Seq: 1, From: loop.AwaitingLLMResponse, To: loop.CheckingPolicy,
			Edge: loop.EdgeToolCall, Iteration: 1, LLM: &loop.LLMRecord{}, Exchanges: []providers.Exchange{ex}})
		r.payload.response = true
	}
	m.syncSizes()
	return m
}

// benchSizes are the terminals a frame is measured at: the workshop's
// (120×34, what a served learner gets) and a large one.
var benchSizes = []struct{ w, h int }{{120, 34}, {160, 48}}

// benchColour makes the styles emit 256-colour escapes for the benchmark,
// as they do for a served learner (the tests' default is plain text, which
// skips every colour).
func benchColour(b *testing.B) {
	b.Helper()
	lipgloss.SetColorProfile(termenv.ANSI256)
	b.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
}

// BenchmarkView is a frame of one run: n messages, a 1 MiB payload in the
// Raw payload pane, in 256 colours. A frame must cost the same with 10 or
// 10,000 messages.
//
//	go test ./ui/glassbox -run '^$' -bench 'View$' -benchmem
func BenchmarkView(b *testing.B) {
	for _, sz := range benchSizes {
		for _, n := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("%dx%d/messages=%d", sz.w, sz.h, n), func(b *testing.B) {
				benchColour(b)
				benchFrames(b, benchModel(b, sz.w, sz.h, n))
			})
		}
	}
}

// BenchmarkViewAnatomy is a frame of one run with the Anatomy pane open on
// a model call whose request holds the n messages (a real Gemini request,
// read part by part when the call is recorded): in the grid, and zoomed
// (every part in a table, the growth chart). Issue 31: at 10,000 messages
// a frame stays within 10 % of BenchmarkView's before the pane existed.
//
//	go test ./ui/glassbox -run '^$' -bench 'ViewAnatomy$' -benchmem
func BenchmarkViewAnatomy(b *testing.B) {
	for _, sz := range benchSizes {
		for _, n := range []int{10, 10_000} {
			for _, zoom := range []bool{false, true} {
				b.Run(fmt.Sprintf("%dx%d/messages=%d/zoomed=%v", sz.w, sz.h, n, zoom), func(b *testing.B) {
					benchColour(b)
					wd := newWorld(b)
					cfg := wd.config()
					cfg.NoColor = false
					m := benchFill(b, New(cfg), sz.w, sz.h, n, geminiRequest)
					p := m.runs[0].panes[paneAnatomy].(*anatomyPane)
					if zoom {
						m.focusPane(paneAnatomy)
						m.stepper.zoomed = true
						m.syncSizes()
					}
					_ = m.View()
					if !p.shown.read || len(p.shown.call.Parts) < n {
						b.Fatalf("the pane read %d parts of a request of %d messages (%q)", len(p.shown.call.Parts), n, p.shown.unread)
					}
					benchFrames(b, m)
				})
			}
		}
	}
}

// geminiRequest is msgs as a Gemini request body: contents, a system
// instruction and a tool, as the Gemini provider writes them.
func geminiRequest(msgs []history.Message) []byte {
	type part map[string]any
	contents := make([]map[string]any, 0, len(msgs))
	for _, m := range msgs {
		var ps []part
		role := "user"
		switch {
		case m.Result != nil:
			ps = append(ps, part{"functionResponse": map[string]any{"name": m.Result.Name, "response": map[string]any{"output": m.Result.Content}}})
		case m.Role == history.RoleAssistant:
			role = "model"
			if m.Text != "" {
				ps = append(ps, part{"text": m.Text})
			}
			for _, c := range m.ToolCalls {
				ps = append(ps, part{"functionCall": map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}})
			}
		default:
			ps = append(ps, part{"text": m.Text})
		}
		contents = append(contents, map[string]any{"role": role, "parts": ps})
	}
	body, err := json.Marshal(map[string]any{
		"contents":          contents,
		"systemInstruction": map[string]any{"parts": []part{{"text": "You are a coding agent."}}},
		"tools":             []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file", "parameters": map[string]any{"type": "OBJECT"}}}}},
	})
	if err != nil {
		panic(err)
	}
	return body
}

// BenchmarkViewCompare is a compare-mode frame: n messages per run, a 1 MiB
// payload in each run's Raw payload pane.
func BenchmarkViewCompare(b *testing.B) {
	for _, sz := range benchSizes {
		for _, n := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("%dx%d/messages=%d", sz.w, sz.h, n), func(b *testing.B) {
				benchColour(b)
				benchFrames(b, benchCompareModel(b, sz.w, sz.h, n))
			})
		}
	}
}

// BenchmarkKeyFrame is what a served learner's keypress costs the server
// before the renderer: Update for the key and View for the frame it
// causes. The key is ? (the help overlay, opened then closed), the key
// issue 22's BenchmarkKeypressToFrame presses.
func BenchmarkKeyFrame(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(b *testing.B) {
			benchColour(b)
			m := benchModel(b, sz.w, sz.h, 10)
			m.inputFocused = false // the stepper has the keys, as after a lesson's Enter
			help := keyMsg("?")
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				next, _ := m.Update(help)
				m = next.(*Model)
				_ = m.View()
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchFrames measures View on m after a first frame has filled the caches.
func benchFrames(b *testing.B, m *Model) {
	b.Helper()
	_ = m.View() // the first frame fills the caches
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkViewScrolled is the worst case of a frame: History scrolled by
// one line each frame, so the window moves.
func BenchmarkViewScrolled(b *testing.B) {
	benchColour(b)
	m := benchModel(b, 160, 48, 10_000)
	_ = m.View()
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if i%200 < 100 {
			m.runs[0].history.scrollUp(1, m.runs[0].history.len())
		} else {
			m.runs[0].history.scrollDown(1, m.runs[0].history.len())
		}
		_ = m.View()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
