package offline_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

// TestFreeFormRequests drives the intent scripts through every dialect.
func TestFreeFormRequests(t *testing.T) {
	readHello := call("read_file", "path", "hello.py")
	tests := []struct {
		request string
		setup   func(*world)
		calls   map[string][]string
		final   []string
	}{
		{request: "ファイル一覧を見せて", calls: map[string][]string{"": {call("list_files", "path", ".")}},
			final: []string{"ワークスペースのファイル一覧です", "    hello.py", "ファイル一覧」と解釈しました"}},
		{request: "list the files", calls: map[string][]string{"": {call("list_files", "path", ".")}},
			final: []string{"Here is what list_files returned", "    notes/todo.txt"}},
		{request: "hello.pyを読んで", calls: map[string][]string{"": {readHello}},
			final: []string{"hello.py (6 行):", "def greet(name):"}},
		{request: "read hello.py and README.md",
			calls: map[string][]string{"": {readHello, call("read_file", "path", "README.md")}},
			final: []string{"hello.py (6 lines):", "README.md (3 lines):", "# Sample project"}},
		{request: "show me the README", calls: map[string][]string{"": {call("list_files", "path", "."), call("read_file", "path", "README.md")}},
			final: []string{"README.md (3 lines):", "# Sample project"}},
		{request: "read the Makefile", calls: map[string][]string{"": {call("list_files", "path", ".")}},
			final: []string{"No file here is called Makefile. The files: README.md, hello.py"}},
		{request: "read missing.txt", calls: map[string][]string{"": {call("read_file", "path", "missing.txt")}},
			final: []string{"I could not read missing.txt: ", "open missing.txt: no such file or directory"}},
		{request: "please delete old_log.txt", calls: map[string][]string{"": {call("execute_command", "command", "rm old_log.txt")}},
			final: []string{"Deleted old_log.txt."}},
		{request: "old_log.txtを削除して", setup: func(w *world) { w.approve = false },
			calls: map[string][]string{"": {call("execute_command", "command", "rm old_log.txt")}},
			final: []string{"拒否されたので old_log.txt は残してあります。"}},
		{request: "create notes/ideas.txt",
			calls: map[string][]string{"": {call("write_file", "path", "notes/ideas.txt", "content", "Written by the glassbox offline tutor.\n")}},
			final: []string{"I wrote notes/ideas.txt"}},
		{request: "hello.pyを実行して", calls: map[string][]string{"": {call("execute_command", "command", "python3 hello.py")}},
			final: []string{"`python3 hello.py` の出力:", "Hello, world!"}},
		{request: "run `ls -la`", calls: map[string][]string{"": {call("execute_command", "command", "ls -la")}},
			final: []string{"`ls -la` failed:", "unsupported command"}},
		{request: "delete something for me", final: []string{"Which file should I delete?"}},
		{request: "What's the capital of France?",
			final: []string{"offline simulation", "no real model is running", "tour, write-file, run-command", "outage",
				"set GEMINI_API_KEY and start glassbox with --provider gemini", "ollama pull llama3.1:8b", "--provider llama"}},
		{request: "今日の天気は？", final: []string{"オフライン・シミュレーション", "GEMINI_API_KEY を設定して glassbox を --provider gemini で起動"}},
	}
	for _, tc := range tests {
		for _, p := range players() {
			t.Run(tc.request+"/"+p.name, func(t *testing.T) {
				w := newWorld()
				if tc.setup != nil {
					tc.setup(w)
				}
				tx := p.play(t, w, tc.request)
				if got, want := tx.calls, forFamily(tc.calls, p.family); !slices.Equal(got, want) {
					t.Errorf("calls:\n got %q\nwant %q", got, want)
				}
				for _, want := range tc.final {
					if !strings.Contains(tx.final, want) {
						t.Errorf("final answer lacks %q:\n%s", want, tx.final)
					}
				}
			})
		}
	}
}

// TestNoToolsDeclared: without tools the tutor answers in text and says
// what it would have called.
func TestNoToolsDeclared(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	ctx := context.Background()
	t.Run("ollama plain chat", func(t *testing.T) {
		msg, err := ollamaChat(ctx, newOllama(backend.SimulatedTransport(offline.Config{})), &api.ChatRequest{Model: "llama3.1:8b",
			Messages: []api.Message{{Role: "user", Content: tour.Request}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(msg.ToolCalls) > 0 || !strings.Contains(msg.Content, "declared no tools") || !strings.Contains(msg.Content, `list_files{"path":"."}`) {
			t.Errorf("reply = %+v", msg)
		}
	})
	t.Run("gemini without declarations", func(t *testing.T) {
		resp, err := newGenai(t, backend.SimulatedTransport(offline.Config{})).Models.GenerateContent(ctx, "gemini-2.5-flash",
			genai.Text(tour.Request), nil)
		if err != nil {
			t.Fatal(err)
		}
		parts := resp.Candidates[0].Content.Parts
		if len(parts) != 1 || parts[0].FunctionCall != nil || !strings.Contains(parts[0].Text, "declared no tools") {
			b, _ := json.Marshal(parts)
			t.Errorf("parts = %s", b)
		}
	})
}
