package offline

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

func TestNewConversationFindsTheRequest(t *testing.T) {
	user := func(s string) item { return item{kind: itemUser, text: s} }
	final := item{kind: itemAssistant, text: "done"}
	calls := item{kind: itemAssistant, calls: []toolCall{{Name: "list_files"}}}
	broken := item{kind: itemAssistant, text: "{oops", malformed: true}
	result := item{kind: itemResult, result: toolResult{Name: "list_files", Content: "a.txt"}}
	tests := []struct {
		name      string
		items     []item
		request   string
		feedbacks int
	}{
		{"first message", []item{user("  list files  ")}, "list files", 0},
		{"after a final answer", []item{user("one"), final, user("two")}, "two", 0},
		{"feedback after a malformed reply, any wording", []item{user("one"), broken, user("try again")}, "one", 1},
		{"feedback wording after an unfinished turn", []item{user("one"), calls, result, user(feedbackText("bad"))}, "one", 1},
		{"feedback with the malformed turn dropped", []item{user("one"), user("Your last reply could not be used: finishReason MALFORMED_FUNCTION_CALL")}, "one", 1},
		{"new request after a halted turn", []item{user("one"), calls, result, user("read hello.py")}, "read hello.py", 0},
		{"new request after a provider failure", []item{user("one"), user("two")}, "two", 0},
		{"feedback-like words after a final answer are a request", []item{user("one"), final, user("your last reply was wrong")}, "your last reply was wrong", 0},
		{"no user text", []item{result}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newConversation(dialectGemini, tc.items)
			if c.request != tc.request {
				t.Errorf("request = %q, want %q", c.request, tc.request)
			}
			n := 0
			for _, s := range c.steps {
				if s.kind == itemFeedback {
					n++
				}
			}
			if n != tc.feedbacks {
				t.Errorf("feedback steps = %d, want %d", n, tc.feedbacks)
			}
		})
	}
}

func TestNewConversationPairsResults(t *testing.T) {
	a := toolCall{ID: "call_a", Name: "read_file", Args: args{{"path", "a.txt"}}}
	b := toolCall{ID: "call_b", Name: "read_file", Args: args{{"path", "b.txt"}}}
	tests := []struct {
		name    string
		results []toolResult
	}{
		{"by id, out of order", []toolResult{{CallID: "call_b", Name: "read_file", Content: "B"}, {CallID: "call_a", Name: "read_file", Content: "A"}}},
		{"by order without ids", []toolResult{{Name: "read_file", Content: "A"}, {Name: "read_file", Content: "B"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := []item{{kind: itemUser, text: "go"}, {kind: itemAssistant, calls: []toolCall{a, b}}}
			for _, r := range tc.results {
				items = append(items, item{kind: itemResult, result: r})
			}
			c := newConversation(dialectLlamaNative, items)
			for file, want := range map[string]string{"a.txt": "A", "b.txt": "B"} {
				r, ok := c.resultFor("read_file", "path", "./"+file)
				if !ok || r.Content != want {
					t.Errorf("result for %s = %q, %v; want %q", file, r.Content, ok, want)
				}
			}
		})
	}
}

func TestParseJSONReply(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		ok       bool
		toolName string
	}{
		{"tool call", `{"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a"}}}`, true, "read_file"},
		{"response", `{"thought": "t", "response": "hi"}`, true, ""},
		{"code fence and prose", "Here you go:\n```json\n{\"response\": \"hi\"}\n```", true, ""},
		{"missing closing brace", brokenJSONReply(english, reply{thought: "t"}), false, ""},
		{"missing closing brace, in Japanese", brokenJSONReply(japanese, reply{thought: "読みます"}), false, ""},
		{"a Japanese tool call", `{"thought": "一覧を見ます。", "tool_call": {"name": "list_files", "input": {"path": "."}}}`, true, "list_files"},
		{"neither key", `{"thought": "hmm"}`, false, ""},
		{"no object", "just words", false, ""},
		{"empty", "", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := parseJSONReply(tc.text)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if tc.toolName != "" && (r.ToolCall == nil || r.ToolCall.Name != tc.toolName) {
				t.Errorf("tool call = %+v, want %s", r.ToolCall, tc.toolName)
			}
		})
	}
}

func TestMatchIntent(t *testing.T) {
	tests := []struct {
		text     string
		kind     intentKind
		files    []string
		command  string
		japanese bool
	}{
		{"list the files", intentList, nil, "", false},
		{"ls", intentList, nil, "", false},
		{"ファイル一覧を見せて", intentList, nil, "", true},
		{"show me the files", intentList, nil, "", false},
		{"read hello.py", intentRead, []string{"hello.py"}, "", false},
		{"cat notes/todo.txt.", intentRead, []string{"notes/todo.txt"}, "", false},
		{"hello.pyを読んで", intentRead, []string{"hello.py"}, "", true},
		{"README.mdを見せて", intentRead, []string{"README.md"}, "", true},
		{"what is in README.md?", intentRead, []string{"README.md"}, "", false},
		{"create notes/ideas.txt", intentWrite, []string{"notes/ideas.txt"}, "", false},
		{"farewell.pyを作成して", intentWrite, []string{"farewell.py"}, "", true},
		{"run hello.py", intentRun, []string{"hello.py"}, "python3 hello.py", false},
		{"please execute `ls -la`", intentRun, nil, "ls -la", false},
		{"hello.pyを実行して", intentRun, []string{"hello.py"}, "python3 hello.py", true},
		{"delete old_log.txt", intentDelete, []string{"old_log.txt"}, "", false},
		{"old_log.txtを削除して", intentDelete, []string{"old_log.txt"}, "", true},
		{"what's the weather, e.g. in Tokyo? version 1.5", intentNone, nil, "", false},
		{"今日の天気は？", intentNone, nil, "", true},
		{"", intentNone, nil, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			in := matchIntent(tc.text)
			if in.kind != tc.kind || !slices.Equal(in.files, tc.files) || in.command != tc.command || (in.lang == japanese) != tc.japanese {
				t.Errorf("matchIntent = %+v, want kind %d files %q command %q japanese %v", in, tc.kind, tc.files, tc.command, tc.japanese)
			}
		})
	}
}

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
				"GEMINI_API_KEY=... go run . --provider gemini", "ollama pull llama3.1:8b", "--provider llama"}},
		{request: "今日の天気は？", final: []string{"オフライン・シミュレーション", "GEMINI_API_KEY=... go run . --provider gemini"}},
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
		msg, err := ollamaChat(ctx, newOllama(NewTransport(Config{})), &api.ChatRequest{Model: "llama3.1:8b",
			Messages: []api.Message{{Role: "user", Content: tour.Request}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(msg.ToolCalls) > 0 || !strings.Contains(msg.Content, "declared no tools") || !strings.Contains(msg.Content, `list_files{"path":"."}`) {
			t.Errorf("reply = %+v", msg)
		}
	})
	t.Run("gemini without declarations", func(t *testing.T) {
		resp, err := newGenai(t, NewTransport(Config{})).Models.GenerateContent(ctx, "gemini-2.5-flash",
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

// TestReadingToolResults: the scripts read results however the tools and
// providers phrase them.
func TestReadingToolResults(t *testing.T) {
	t.Run("personAnswer", func(t *testing.T) {
		for in, want := range map[string]string{
			"yes": "yes", " no \n": "no", `{"answer": "yes"}`: "yes", "The person answered: yes": "yes",
			"「はい」": "はい", "maybe later": "maybe later",
		} {
			if got := personAnswer(in); got != want {
				t.Errorf("personAnswer(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("yes and no", func(t *testing.T) {
		for _, a := range []string{"yes", "Yes.", "y", "1", "はい", "yes please"} {
			if !isYes(a) || isNo(a) {
				t.Errorf("%q should read as yes", a)
			}
		}
		for _, a := range []string{"no", "No!", "n", "2", "いいえ", "no, keep it"} {
			if isYes(a) || !isNo(a) {
				t.Errorf("%q should read as no", a)
			}
		}
		if isYes("maybe") || isNo("maybe") {
			t.Error(`"maybe" is neither yes nor no`)
		}
	})
	t.Run("summarizeListing", func(t *testing.T) {
		for in, want := range map[string]string{
			"a.txt\nb/\n":                        "a.txt, b/",
			`["a.txt", "b/"]`:                    "a.txt, b/",
			`[{"path": "a.txt"}, {"name": "b"}]`: "a.txt, b",
			"":                                   "nothing (the folder is empty)",
			strings.Repeat("f\n", 20)[:len("f\n")*13]: strings.Repeat("f, ", 12) + "…",
		} {
			if got := summarizeListing(english, in); got != want {
				t.Errorf("summarizeListing(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("explainPython with numbered lines", func(t *testing.T) {
		got := explainPython(english, "hello.py", "1\tdef greet(name):\n2\t    return name\n")
		if !strings.Contains(got, "defines greet(name)") || strings.Contains(got, "1\t") {
			t.Errorf("explainPython = %q", got)
		}
	})
	t.Run("native tool errors", func(t *testing.T) {
		for in, want := range map[string]bool{
			"Error: open x: no such file": true, "denied by rule path-outside-workspace": true,
			"The person denied this call.": true, `{"error": "boom"}`: true, `{"is_error": true, "content": "x"}`: true,
			"Hello, world!": false, "# Title\n\nAccess was denied in 1999.": false, "a.txt\nb.txt": false,
		} {
			if got := looksLikeErrorText(in); got != want {
				t.Errorf("looksLikeErrorText(%q) = %v, want %v", in, got, want)
			}
		}
	})
}
