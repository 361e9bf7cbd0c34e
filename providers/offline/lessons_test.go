package offline_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

// call builds the transcript form of an expected tool call.
func call(name string, kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return canon(name, m)
}

// player is one way of talking to the simulation: a dialect, streamed or not.
type player struct {
	name   string
	family string // "gemini", "json" or "native"
	play   func(t *testing.T, w *world, request string) transcript
}

func players() []player {
	tr := func() http.RoundTripper { return backend.SimulatedTransport(offline.Config{}) }
	return []player{
		{"gemini", "gemini", func(t *testing.T, w *world, r string) transcript { return playGemini(t, tr(), w, r, false, true) }},
		{"gemini-stream-drop-empty-turn", "gemini", func(t *testing.T, w *world, r string) transcript { return playGemini(t, tr(), w, r, true, false) }},
		{"llama-json", "json", func(t *testing.T, w *world, r string) transcript { return playOllama(t, tr(), w, r, false, false) }},
		{"llama-json-stream", "json", func(t *testing.T, w *world, r string) transcript { return playOllama(t, tr(), w, r, false, true) }},
		{"llama-native", "native", func(t *testing.T, w *world, r string) transcript { return playOllama(t, tr(), w, r, true, false) }},
		{"llama-native-stream", "native", func(t *testing.T, w *world, r string) transcript { return playOllama(t, tr(), w, r, true, true) }},
	}
}

func TestLessonsOnEveryDialect(t *testing.T) {
	readHello := call("read_file", "path", "hello.py")
	readReadme := call("read_file", "path", "README.md")
	readNotes := call("read_file", "path", "notes/todo.txt")
	list := call("list_files", "path", ".")
	write := call("write_file", "path", "farewell.py", "content", farewellSource)
	runHello := call("execute_command", "command", "python3 hello.py")
	ask := call("ask_user", "question", "Delete old_log.txt?", "options", []any{"yes", "no"})
	rm := call("execute_command", "command", "rm old_log.txt")

	tests := []struct {
		name   string
		lesson string
		setup  func(*world)
		// calls are the expected tool calls per family ("" = every family).
		calls map[string][]string
		// turns, when set, are the expected calls grouped per model reply.
		turns    map[string][][]string
		misfires map[string]int
		final    map[string][]string // substrings of the final answer
		halted   bool
		check    func(*testing.T, *world)
	}{
		{name: "tour", lesson: "tour",
			calls: map[string][]string{"": {list, readHello}},
			final: map[string][]string{"": {"defines greet(name)", "def greet(name):", "return f\"Hello, {name}!\"",
				"README.md, hello.py, notes/todo.txt, old_log.txt", "__main__"}}},
		{name: "write-file approved", lesson: "write-file",
			calls: map[string][]string{"": {write}},
			final: map[string][]string{"": {"You approved the write", "def farewell(name):"}},
			check: func(t *testing.T, w *world) {
				if w.files["farewell.py"] != farewellSource {
					t.Errorf("farewell.py = %q", w.files["farewell.py"])
				}
			}},
		{name: "write-file denied", lesson: "write-file", setup: func(w *world) { w.approve = false },
			calls: map[string][]string{"": {write}},
			final: map[string][]string{"": {"You declined the write", "did not create farewell.py"}},
			check: func(t *testing.T, w *world) {
				if _, ok := w.files["farewell.py"]; ok {
					t.Error("farewell.py was written although the person denied it")
				}
			}},
		{name: "write-file denied by a rule", lesson: "write-file", setup: func(w *world) { w.policyDenies = true },
			calls: map[string][]string{"": {write}},
			final: map[string][]string{"": {"The security policy denied the write", "A rule of the security policy refused it"}}},
		{name: "run-command", lesson: "run-command",
			calls: map[string][]string{"": {runHello}},
			final: map[string][]string{"": {"    Hello, world!", "greet(\"world\")"}}},
		{name: "run-command without python3", lesson: "run-command", setup: func(w *world) { w.python = false },
			calls: map[string][]string{"": {runHello}},
			final: map[string][]string{"": {"python3 does not seem to be installed", "executable file not found"}}},
		{name: "run-command denied", lesson: "run-command", setup: func(w *world) { w.approve = false },
			calls: map[string][]string{"": {runHello}},
			final: map[string][]string{"": {"You declined the command, so nothing ran"}}},
		{name: "ask-delete yes", lesson: "ask-delete",
			calls: map[string][]string{"": {ask, rm}},
			final: map[string][]string{"": {"Deleted old_log.txt"}},
			check: func(t *testing.T, w *world) {
				if _, ok := w.files["old_log.txt"]; ok {
					t.Error("old_log.txt still exists")
				}
			}},
		{name: "ask-delete yes but rm denied", lesson: "ask-delete", setup: func(w *world) { w.approve = false },
			calls: map[string][]string{"": {ask, rm}},
			final: map[string][]string{"": {"declined the rm command", "still there"}},
			check: func(t *testing.T, w *world) {
				if _, ok := w.files["old_log.txt"]; !ok {
					t.Error("old_log.txt was deleted although the person denied the command")
				}
			}},
		{name: "ask-delete no", lesson: "ask-delete", setup: func(w *world) { w.answer = "no" },
			calls: map[string][]string{"": {ask}},
			final: map[string][]string{"": {"You said no, so I kept old_log.txt"}}},
		{name: "ask-delete free-text answer", lesson: "ask-delete", setup: func(w *world) { w.answer = "maybe later" },
			calls: map[string][]string{"": {ask}},
			final: map[string][]string{"": {`You answered "maybe later"`, "kept old_log.txt"}}},
		{name: "ask-delete no answer", lesson: "ask-delete", setup: func(w *world) { w.answer = "" },
			calls: map[string][]string{"": {ask}},
			final: map[string][]string{"": {"could not get your answer (", "no answer available)", "left old_log.txt alone"}}},
		{name: "path-escape", lesson: "path-escape",
			calls: map[string][]string{"": {call("read_file", "path", "../../etc/passwd"), call("read_file", "path", "/etc/hostname")}},
			final: map[string][]string{"": {"could not read ../../etc/passwd: the security layer denied it", "could not read /etc/hostname", "path-outside-workspace"}}},
		{name: "malformed", lesson: "malformed",
			calls:    map[string][]string{"": {readNotes}, "native": {call(misfireToolName, "path", "notes/todo.txt"), readNotes}},
			misfires: map[string]int{"gemini": 1, "json": 1, "native": 0},
			final: map[string][]string{
				"":       {"- add a farewell(name) function to hello.py", "- write a test for greet"},
				"gemini": {"MALFORMED_FUNCTION_CALL"},
				"json":   {"not valid JSON"},
				"native": {"open_file, a tool that does not exist"},
			}},
		{name: "tool-failure", lesson: "tool-failure",
			calls: map[string][]string{"": {call("read_file", "path", "config.yaml"), list}},
			final: map[string][]string{"": {"There is no config.yaml", "no such file or directory", "hello.py"}}},
		{name: "parallel", lesson: "parallel",
			calls: map[string][]string{"": {readHello, readReadme}},
			turns: map[string][][]string{"": {{readHello, readReadme}}, "json": {{readHello}, {readReadme}}},
			final: map[string][]string{
				"":       {"defines greet(name)", `"# Sample project"`},
				"json":   {"one after the other"},
				"gemini": {"ONE response"}, "native": {"ONE response"},
			}},
		{name: "iteration-limit", lesson: "iteration-limit", halted: true,
			calls: map[string][]string{"": slices.Repeat([]string{list}, maxIterations)}},
	}
	for _, tc := range tests {
		for _, p := range players() {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				l, ok := lessons.ByName(tc.lesson)
				if !ok {
					t.Fatalf("no lesson %q", tc.lesson)
				}
				w := newWorld()
				if tc.setup != nil {
					tc.setup(w)
				}
				tx := p.play(t, w, l.Request)
				if got, want := tx.calls, forFamily(tc.calls, p.family); !slices.Equal(got, want) {
					t.Errorf("calls:\n got %q\nwant %q", got, want)
				}
				if want, ok := lookup(tc.turns, p.family); ok && !slices.EqualFunc(tx.turns, want, slices.Equal) {
					t.Errorf("turns:\n got %q\nwant %q", tx.turns, want)
				}
				if tx.misfires != tc.misfires[p.family] {
					t.Errorf("misfires = %d, want %d", tx.misfires, tc.misfires[p.family])
				}
				if tx.halted != tc.halted {
					t.Errorf("halted = %v, want %v (final %q)", tx.halted, tc.halted, tx.final)
				}
				for _, want := range append(slices.Clone(tc.final[""]), tc.final[p.family]...) {
					if !strings.Contains(tx.final, want) {
						t.Errorf("final answer lacks %q:\n%s", want, tx.final)
					}
				}
				if tc.check != nil {
					tc.check(t, w)
				}
			})
		}
	}
}

func lookup[V any](m map[string]V, family string) (V, bool) {
	if v, ok := m[family]; ok {
		return v, true
	}
	v, ok := m[""]
	return v, ok
}

func forFamily(m map[string][]string, family string) []string {
	v, _ := lookup(m, family)
	return v
}

// TestRateLimitLesson: the first attempt gets 429 with the retry delay the
// loop honours; the retry of the same request succeeds.
func TestRateLimitLesson(t *testing.T) {
	l, _ := lessons.ByName("rate-limit")
	ctx := context.Background()
	t.Run("gemini", func(t *testing.T) {
		c := newGenai(t, backend.SimulatedTransport(offline.Config{}))
		contents := []*genai.Content{genai.NewContentFromText(l.Request, genai.RoleUser)}
		_, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, geminiConfig())
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 429 || apiErr.Status != "RESOURCE_EXHAUSTED" {
			t.Fatalf("first attempt: err = %v, want a 429 RESOURCE_EXHAUSTED APIError", err)
		}
		if got := retryDelay(apiErr.Details); got != "1s" {
			t.Errorf("RetryInfo.retryDelay = %q, want 1s", got)
		}
		resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, geminiConfig())
		if err != nil {
			t.Fatalf("retry: %v", err)
		}
		if text := resp.Candidates[0].Content.Parts[0].Text; !strings.Contains(text, "Hello!") {
			t.Errorf("retry answer = %q", text)
		}
	})
	for _, native := range []bool{false, true} {
		t.Run(fmt.Sprintf("llama native=%v", native), func(t *testing.T) {
			c := newOllama(backend.SimulatedTransport(offline.Config{}))
			req := &api.ChatRequest{Model: "llama3.1:8b", Messages: []api.Message{{Role: "user", Content: l.Request}}}
			if native {
				req.Tools = ollamaTools()
			} else {
				req.Format = []byte(`"json"`)
			}
			_, err := ollamaChat(ctx, c, req)
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 429 || se.ErrorMessage != "rate limit exceeded" {
				t.Fatalf("first attempt: err = %#v, want 429 rate limit exceeded", err)
			}
			msg, err := ollamaChat(ctx, c, req)
			if err != nil {
				t.Fatalf("retry: %v", err)
			}
			if !strings.Contains(msg.Content, "Hello!") {
				t.Errorf("retry answer = %q", msg.Content)
			}
		})
	}
}

func retryDelay(details []map[string]any) string {
	for _, d := range details {
		if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo" {
			s, _ := d["retryDelay"].(string)
			return s
		}
	}
	return ""
}

// TestOutageLesson: every attempt is a 503, so the loop's retries run out.
func TestOutageLesson(t *testing.T) {
	l, _ := lessons.ByName("outage")
	ctx := context.Background()
	g := newGenai(t, backend.SimulatedTransport(offline.Config{}))
	o := newOllama(backend.SimulatedTransport(offline.Config{}))
	for attempt := range 3 {
		_, err := g.Models.GenerateContent(ctx, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromText(l.Request, genai.RoleUser)}, geminiConfig())
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 503 || apiErr.Status != "UNAVAILABLE" {
			t.Errorf("gemini attempt %d: err = %v, want 503 UNAVAILABLE", attempt, err)
		}
		_, err = ollamaChat(ctx, o, &api.ChatRequest{Model: "llama3.1:8b", Tools: ollamaTools(),
			Messages: []api.Message{{Role: "user", Content: l.Request}}})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 || se.ErrorMessage != "model is overloaded" {
			t.Errorf("ollama attempt %d: err = %v, want 503 model is overloaded", attempt, err)
		}
	}
}

// What the scripts write and call, as the tests expect them: the write-file
// lesson's farewell.py and the tool that does not exist, which the
// malformed lesson calls where a dialect has no unusable reply of its own.
const (
	farewellSource  = "def farewell(name):\n    return f\"Goodbye, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(farewell(\"world\"))\n"
	misfireToolName = "open_file"
)
