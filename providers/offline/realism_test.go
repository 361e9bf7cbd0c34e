package offline_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
)

// ollamaStreamLines posts body to /api/chat and decodes every line.
func ollamaStreamLines(t *testing.T, cfg offline.Config, body string) (rawResponse, []api.ChatResponse) {
	t.Helper()
	r := do(t, backend.SimulatedTransport(cfg), "POST", ollamaChatURL, body)
	var lines []api.ChatResponse
	for _, l := range ndjsonLines(t, r.body) {
		var cr api.ChatResponse
		if err := json.Unmarshal(l, &cr); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		lines = append(lines, cr)
	}
	return r, lines
}

func TestOllamaTokensAreTokenSized(t *testing.T) {
	text := "Here is what list_files returned:\n    README.md\n  hello.py — déjà vu, 12345678 tokens! {\"thought\": \"x\"}}}"
	toks := offline.TokenPieces(text)
	if strings.Join(toks, "") != text {
		t.Fatalf("tokens %q do not add up to the text", toks)
	}
	want := []string{"Here", " is", " what", " list", "_", "files", " returned", ":", "\n", " ", " ", " ", " README", ".", "md", "\n", " ", " hello", ".", "py", " —", " déjà", " vu", ",", " 12345678", " tokens", "!",
		` {"`, "thought", `":`, ` "`, "x", `"}}`, "}"}
	if !slices.Equal(toks, want) {
		t.Errorf("tokens\n got %q\nwant %q", toks, want)
	}
	ja := "hello.py は 6 行で、greet(name) を定義しています。"
	toks = offline.TokenPieces(ja)
	want = []string{"hello", ".", "py", " は", " 6", " 行で", "、", "greet", "(", "name", ")", " を定", "義し", "てい", "ます", "。"}
	if strings.Join(toks, "") != ja || !slices.Equal(toks, want) {
		t.Errorf("Japanese tokens\n got %q\nwant %q", toks, want)
	}
}

// Like a real server: one token per line, the last token in the done line,
// a Date header, eval_duration omitted when no time was spent generating.
func TestOllamaStreamsOneTokenPerLine(t *testing.T) {
	r, lines := ollamaStreamLines(t, offline.Config{}, ollamaBody("What's the capital of France?", nil))
	if r.header.Get("Date") == "" {
		t.Error("no Date header")
	}
	if len(lines) < 10 {
		t.Fatalf("%d lines, want one per token", len(lines))
	}
	var text strings.Builder
	for i, l := range lines {
		text.WriteString(l.Message.Content)
		last := i == len(lines)-1
		if l.Done != last {
			t.Errorf("line %d done = %v", i, l.Done)
		}
		if toks := offline.TokenPieces(l.Message.Content); len(toks) != 1 {
			t.Errorf("line %d carries %q, want exactly one token", i, l.Message.Content)
		}
	}
	final := lines[len(lines)-1]
	if final.DoneReason != "stop" || final.EvalDuration != 0 || final.PromptEvalDuration == 0 || final.EvalCount != len(lines) {
		t.Errorf("done line %+v", final)
	}
	if !strings.Contains(string(r.body), `"done":true`) || strings.Contains(string(r.body), "eval_duration\":0") {
		t.Errorf("body %s", r.body)
	}
	if !strings.HasPrefix(text.String(), "(offline tutor") && !strings.Contains(text.String(), "offline") {
		t.Errorf("text = %q", text.String())
	}
}

// Parallel tool calls come in lines of their own, index 0 then 1.
func TestOllamaSendsEachParallelCallInItsOwnLine(t *testing.T) {
	parallel, _ := lessons.ByName("parallel")
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file"}}}
	_, lines := ollamaStreamLines(t, offline.Config{}, ollamaBody(parallel.Request, map[string]any{"tools": tools}))
	var calls []api.ToolCall
	for _, l := range lines {
		if n := len(l.Message.ToolCalls); n > 1 {
			t.Errorf("a line carries %d calls", n)
		}
		calls = append(calls, l.Message.ToolCalls...)
	}
	if len(calls) != 2 || calls[0].Function.Index != 0 || calls[1].Function.Index != 1 {
		t.Errorf("calls = %+v, want index 0 and 1", calls)
	}
	if !lines[len(lines)-1].Done || lines[len(lines)-1].Message.Content != "" {
		t.Errorf("the done line after tool calls is %+v, want empty", lines[len(lines)-1])
	}
}

func TestOllamaUnknownModelIs404(t *testing.T) {
	tr := backend.SimulatedTransport(offline.Config{})
	body := strings.Replace(ollamaBody("hi", nil), "llama3.1:8b", "qwen3:4b", 1)
	r := do(t, tr, "POST", ollamaChatURL, body)
	if r.status != http.StatusNotFound || string(r.body) != `{"error":"model 'qwen3:4b' not found"}` {
		t.Errorf("chat: %d %s", r.status, r.body)
	}
	r = do(t, tr, "POST", "http://offline.invalid/api/show", `{"model":"qwen3:4b"}`)
	if r.status != http.StatusNotFound || string(r.body) != `{"error":"model 'qwen3:4b' not found"}` {
		t.Errorf("show: %d %s", r.status, r.body)
	}
}

// The new lessons on the wire: a cut at the token limit, the repeat stop.
func TestOllamaLessonStreams(t *testing.T) {
	limit, _ := lessons.ByName("token-limit")
	repeat, _ := lessons.ByName("repeat-stop")
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file"}}}

	_, lines := ollamaStreamLines(t, offline.Config{}, ollamaBody(limit.Request, map[string]any{"tools": tools}))
	if len(lines) != 1 || !lines[0].Done || lines[0].DoneReason != "length" || lines[0].Message.Content != `{"name": "read_file", "parameters":` {
		t.Errorf("native token-limit lines = %+v, want the cut call in the done line", lines)
	}
	_, lines = ollamaStreamLines(t, offline.Config{}, ollamaBody(limit.Request, map[string]any{"format": "json"}))
	if f := lines[len(lines)-1]; !f.Done || f.DoneReason != "length" {
		t.Errorf("json token-limit done line = %+v", f)
	}

	r, lines := ollamaStreamLines(t, offline.Config{}, ollamaBody(repeat.Request, map[string]any{"format": "json"}))
	n := len(lines)
	if n < ollamaRepeatLimit+1 || lines[n-1].Done || r.status != http.StatusOK {
		t.Fatalf("json repeat-stop: %d lines, last %+v; want no done line", n, lines[n-1])
	}
	for _, l := range lines[n-ollamaRepeatLimit:] {
		if l.Message.Content != "\n" {
			t.Errorf("repeated token %q, want a newline", l.Message.Content)
		}
	}
	r, lines = ollamaStreamLines(t, offline.Config{}, ollamaBody(repeat.Request, map[string]any{"tools": tools}))
	if len(lines) != 0 || r.status != http.StatusOK {
		t.Errorf("native repeat-stop: %d %s, want an empty 200 stream", r.status, r.body)
	}
}

// --sim-latency is spread over the tokens: half before the first line, the
// rest between lines, so they arrive at a steady rate.
func TestOllamaLatencyIsSpreadOverTokens(t *testing.T) {
	const latency = 200 * time.Millisecond
	start := time.Now()
	_, lines := ollamaStreamLines(t, offline.Config{Latency: latency}, ollamaBody("What's the capital of France?", nil))
	if took := time.Since(start); took < latency*9/10 {
		t.Errorf("the stream took %v, want about %v", took, latency)
	}
	final := lines[len(lines)-1]
	if final.EvalDuration < latency*4/10 || final.PromptEvalDuration < latency*4/10 {
		t.Errorf("prompt_eval %v, eval %v; want about half of %v each", final.PromptEvalDuration, final.EvalDuration, latency)
	}
}

// ollamaRepeatLimit is how many equal tokens in a row Ollama sends before
// its runner stops the generation (providers/ollama's repeatLimit).
const ollamaRepeatLimit = 31
