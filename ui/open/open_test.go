package open

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/tracefile"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func init() {
	// Golden files and string assertions see plain text.
	lipgloss.SetColorProfile(termenv.Ascii)
}

// geminiCLI is Gemini CLI's telemetry outfile made by the real agent
// (loop/tracefile/testdata/README.md says how).
var geminiCLI = filepath.Join("..", "..", "loop", "tracefile", "testdata", "geminicli", "telemetry.json")

// harness drives the glass box of an opened file as the Bubble Tea runtime
// would: each message's command is run and its message fed back.
type harness struct {
	t       testing.TB
	m       tea.Model
	quitted bool
}

func openTUI(t testing.TB, path string, l lang.Lang, w, h int) *harness {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := tracefile.Open(f, tracefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := Command{File: filepath.Base(path), Lang: l, NoColor: true}
	hs := &harness{t: t, m: glassbox.NewServed(context.Background(), c.Config(r))}
	hs.send(hs.m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0; n++ {
		if n > 1000 {
			h.t.Fatal("the glass box never settled")
		}
		msg := queue[0]
		queue = queue[1:]
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.Cmd:
			queue = append(queue, h.run(msg))
			continue
		case tea.BatchMsg:
			for _, c := range msg {
				queue = append(queue, h.run(c))
			}
			continue
		case tea.QuitMsg:
			h.quitted = true
			continue
		}
		next, cmd := h.m.Update(msg)
		h.m = next
		if cmd != nil {
			queue = append(queue, h.run(cmd))
		}
	}
}

func (h *harness) run(c tea.Cmd) tea.Msg {
	if c == nil {
		return nil
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- c() }()
	select {
	case msg := <-out:
		return msg
	case <-time.After(2 * time.Second):
		return nil // a timer (the size measurement's pacing): nothing to settle
	}
}

func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		if k == "space" {
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		}
		h.send(msg)
	}
}

func (h *harness) view() string { return ansi.Strip(h.m.View()) }

// quit says whether the glass box asked to quit (a tea.QuitMsg was sent).
func (h *harness) quit() (tea.Model, bool) { return h.m, h.quitted }

// The glass box of a Gemini CLI trace at 120×34, in English and Japanese:
// after the agent's tool call is seen and run (inferred), and at the end.
func TestGeminiCLIGolden(t *testing.T) {
	for _, l := range []lang.Lang{lang.EN, lang.JA} {
		t.Run(l.String(), func(t *testing.T) {
			h := openTUI(t, geminiCLI, l, 120, 34)
			h.press("space", "space", "space", "space", "space")
			golden.RequireEqual(t, []byte(h.view()))
			t.Run("end", func(t *testing.T) {
				h.press("c", "space")
				golden.RequireEqual(t, []byte(h.view()))
			})
		})
	}
}

// Stepping through a file: space takes one step, i the rest of the model
// call, c the rest of the turn; [ goes back in time and space comes back
// first; what would change a live run is refused as read-only; the end is
// said, and nothing more is stepped.
func TestSteppingThroughAFile(t *testing.T) {
	h := openTUI(t, geminiCLI, lang.EN, 160, 48)
	v := h.view()
	for _, want := range []string{"telemetry.json · Gemini CLI telemetry", "FILE: a trace another agent left", "This trace records messages, not", "OPEN telemetry.json"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the opened file does not show %q:\n%s", want, v)
		}
	}
	h.press("space")
	if v := h.view(); !strings.Contains(v, "list the files here") || strings.Contains(v, "list_directory") {
		t.Fatalf("one step shows the request and nothing after it:\n%s", v)
	}
	h.press("i") // to the model's reply
	if v := h.view(); !strings.Contains(v, "list_directory") {
		t.Fatalf("i shows the model's tool call:\n%s", v)
	}
	h.press("space", "space")
	if v := h.view(); !strings.Contains(v, "tool_success, inferred: The agent ran the tool") {
		t.Fatalf("the inferred run is not said:\n%s", v)
	}
	h.press("[", "[")
	h.press("space")
	if v := h.view(); !strings.Contains(v, "back at the latest step shown") {
		t.Fatalf("space from the past comes back first:\n%s", v)
	}
	h.press("f")
	if v := h.view(); !strings.Contains(v, "read-only: this is a trace file") {
		t.Fatalf("forking is refused as read-only:\n%s", v)
	}
	h.press("c")
	if v := h.view(); !strings.Contains(v, "The folder holds hello.py and README.md.") {
		t.Fatalf("c runs to the end of the turn:\n%s", v)
	}
	h.press("space")
	if v := h.view(); !strings.Contains(v, "the end of the trace") {
		t.Fatalf("the end is not said:\n%s", v)
	}
	h.press("space")
	if v := h.view(); !strings.Contains(v, "nothing more to step") {
		t.Fatalf("a step past the end is not refused:\n%s", v)
	}
	h.press("q") // a file loses nothing: no question
	if _, ok := h.quit(); !ok {
		t.Fatalf("q did not quit:\n%s", h.view())
	}
}

// hostile is a Gemini CLI outfile whose prompt and reply carry terminal
// escapes, bidirectional controls and a long line.
func hostile(t *testing.T) string {
	t.Helper()
	esc := "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[31mred"
	bidi := "\u202eevil\u202c \u2066x\u2069"
	long := strings.Repeat("A", 200000)
	req := `[{"role":"user","parts":[{"text":` + quote(esc+bidi) + `}]}]`
	resp := `[{"candidates":[{"content":{"parts":[{"text":` + quote(bidi+esc+long) + `}],"role":"model"},"finishReason":"STOP"}]}]`
	file := "{\n  \"hrTime\": [1795889915, 1],\n  \"attributes\": {\"event.name\": \"gemini_cli.api_request\", \"prompt_id\": \"p\", \"model\": " + quote("gemini\x1b[7m"+bidi) + ", \"request_text\": " + quote(req) + "}\n}\n" +
		"{\n  \"hrTime\": [1795889916, 1],\n  \"attributes\": {\"event.name\": \"gemini_cli.api_response\", \"prompt_id\": \"p\", \"status_code\": 200, \"response_text\": " + quote(resp) + "}\n}\n"
	path := filepath.Join(t.TempDir(), "hostile\x1b[31m\u202e.json")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Hostile text in a file reaches neither the screen nor --json raw: no
// escape byte, no bidirectional control, in any pane or the status bar.
func TestHostileTextIsEscaped(t *testing.T) {
	path := hostile(t)
	h := openTUI(t, path, lang.EN, 120, 34)
	h.press("space")
	if v := h.view(); !strings.Contains(v, `\x1b]52;c;`) || !strings.Contains(v, `\u202eevil`) {
		t.Fatalf("the hostile text is not shown, escaped:\n%s", v)
	}
	h.press("c")
	for _, key := range []string{"", "tab", "tab", "tab"} {
		if key != "" {
			h.send(tea.KeyMsg{Type: tea.KeyTab})
		}
		v := h.m.View() // the profile is plain text: any escape came from the file
		if strings.ContainsRune(v, 0x1b) || strings.ContainsRune(v, 0x07) || strings.ContainsFunc(v, tools.IsBidiControl) {
			t.Fatalf("the frame holds raw control characters:\n%q", v)
		}
	}
	var out, errb bytes.Buffer
	if err := Main(context.Background(), []string{path, "--json"}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(out.Bytes(), 0x1b) || bytes.ContainsFunc(out.Bytes(), tools.IsBidiControl) || !bytes.Contains(out.Bytes(), []byte(`\u202eevil`)) {
		t.Fatalf("--json writes raw control characters, or drops them:\n%.400s", out.String())
	}
}

// --json prints the file's steps as trace records, and what the file
// lacks on stderr.
func TestJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Main(context.Background(), []string{"--json", geminiCLI}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 9 || !strings.Contains(lines[2], `"edge":"tool_call"`) || !strings.Contains(lines[3], `"inferred":"The agent decides`) {
		t.Fatalf("%d records:\n%s", len(lines), out.String())
	}
	if errb.String() != "glassbox open: This trace records messages, not HTTP: it has no request or response bodies, headers or timings of the wire.\n" {
		t.Fatalf("stderr %q", errb.String())
	}
}

// A file that cannot be opened, or is of another kind, is a usage mistake
// that says so; so is no file, or two.
func TestBadArguments(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(t.TempDir(), "missing.har")}, "cannot open"},
		{[]string{notes, "--json"}, "glassbox reads HAR 1.2, OTLP JSON and Gemini CLI telemetry files; this file is not a JSON object"},
		{[]string{"--json"}, "which file?"},
		{[]string{notes, "other"}, `unexpected argument "other"`},
		{[]string{geminiCLI}, "the glass box needs a terminal"},
	} {
		var out, errb bytes.Buffer
		err := Main(context.Background(), tc.args, nil, &out, &errb)
		if !errors.Is(err, agentrun.ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a usage mistake saying %q", tc.args, err, tc.want)
		}
	}
}

// --json says on stderr what the file lacks and how many entries made no
// step, once it is read.
func TestJSONNamesSkippedEntries(t *testing.T) {
	file := `{"log": {"version": "1.2", "entries": [
{"request": {"method": "GET", "url": "http://127.0.0.1:8080/index.html"}, "response": {"status": 200, "content": {"text": "<html></html>"}}},
{"request": {"method": "POST", "url": "http://127.0.0.1:8080/v1/chat/completions", "postData": {"text": "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}},
 "response": {"status": 200, "content": {"text": "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}]}"}}}]}}`
	path := filepath.Join(t.TempDir(), "page.har")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := Main(context.Background(), []string{path, "--json", "--lang", "ja"}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 4 || !strings.Contains(out.String(), `"text":"hello"`) {
		t.Fatalf("%d records:\n%s", n, out.String())
	}
	if errb.String() != "glassbox open: ファイルのうち 1 件はモデル呼び出しではありません（ページ、スクリプト、その他のリクエスト）。ステップにはなりません\n" {
		t.Fatalf("stderr %q", errb.String())
	}
}
