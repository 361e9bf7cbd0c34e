package offline_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

// quotedSpanRE matches what a Japanese answer may repeat in English: a
// tool's, the loop's or the person's words between 「」, code between
// backticks, and text between double quotes.
var quotedSpanRE = regexp.MustCompile("「[^」]*」|`[^`]*`|\"[^\"\n]*\"")

// englishRunRE is three English words in a row: a sentence, or part of one.
var englishRunRE = regexp.MustCompile(`\b[A-Za-z][a-z']*\b(?:,? \b[A-Za-z][a-z']*\b){2,}`)

// englishSentence returns the first run of English words in s outside
// quoted material (indented quote blocks, 「」, backticks, double quotes),
// or "" when there is none.
func englishSentence(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "    ") {
			continue
		}
		if m := englishRunRE.FindString(quotedSpanRE.ReplaceAllString(line, "")); m != "" {
			return m
		}
	}
	return ""
}

// TestEnglishSentence: the detector the Japanese tests rely on finds the
// tutor's English and lets quoted material through.
func TestEnglishSentence(t *testing.T) {
	for s, want := range map[string]string{
		"The workspace holds: a.txt.":                   "The workspace holds",
		"ファイル: a.txt、b.txt。":                            "",
		"読めませんでした: 「open x: no such file or directory」": "",
		"    Hello, world! is what it printed":          "",
		"`python3 hello.py` の出力:":                       "",
		"(ループからの通知: 「The person denied this call.」)":    "",
		"done_reason length: Ollama がトークン上限で生成を止めました":   "",
		"ok\nI could not read it":                       "I could not read it",
	} {
		if got := englishSentence(s); got != want {
			t.Errorf("englishSentence(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestEveryLessonHasJapanese: every lesson has a Japanese title and request
// that are Japanese (not English left in place), the accessors pick by
// language, and the Japanese request starts that lesson and no other.
func TestEveryLessonHasJapanese(t *testing.T) {
	seen := map[string]string{}
	for _, l := range lessons.All() {
		t.Run(l.Name, func(t *testing.T) {
			for what, s := range map[string]string{"title": l.TitleJA, "request": l.RequestJA} {
				if !hasJapanese(s) || englishSentence(s) != "" {
					t.Errorf("Japanese %s %q is missing or still English", what, s)
				}
			}
			if l.TitleIn("ja") != l.TitleJA || l.RequestIn("ja") != l.RequestJA || l.TitleIn("JA") != l.TitleJA {
				t.Errorf("TitleIn/RequestIn(ja) = %q, %q", l.TitleIn("ja"), l.RequestIn("ja"))
			}
			for _, code := range []string{"en", "", "fr"} {
				if l.TitleIn(code) != l.Title || l.RequestIn(code) != l.Request {
					t.Errorf("TitleIn/RequestIn(%q) = %q, %q: want the English", code, l.TitleIn(code), l.RequestIn(code))
				}
			}
			for _, req := range []string{l.RequestJA, "  " + l.RequestJA + "\n", strings.TrimSuffix(l.RequestJA, "。")} {
				if got, ok := lessons.ForRequest(req); !ok || got.Name != l.Name {
					t.Errorf("request %q starts %q (%v), want %s", req, got.Name, ok, l.Name)
				}
			}
			if other, dup := seen[l.RequestJA]; dup {
				t.Errorf("same Japanese request as %s", other)
			}
			seen[l.RequestJA] = l.Name
		})
	}
}

// tutorWorld is a scenario the tutor-level tests play: a world and, for
// the mcp-tool lesson, the MCP tools the request declares.
type tutorWorld struct {
	name     string
	setup    func(*world)
	mcpTools []string
}

func tutorWorlds() []tutorWorld {
	return []tutorWorld{
		{name: "default"},
		{name: "person denies", setup: func(w *world) { w.approve = false }},
		{name: "policy denies", setup: func(w *world) { w.policyDenies = true }},
		{name: "answer no", setup: func(w *world) { w.answer = "いいえ" }},
		{name: "free answer", setup: func(w *world) { w.answer = "maybe later" }},
		{name: "no answer", setup: func(w *world) { w.answer = "" }},
		{name: "no python", setup: func(w *world) { w.python = false }},
		{name: "files missing", setup: func(w *world) { w.files = map[string]string{} }},
		{name: "mcp", mcpTools: []string{"notes__echo"}},
		{name: "mcp fails", mcpTools: []string{"notes__lookup"}},
		{name: "another glass box", mcpTools: []string{"other__ask_agent"}},
	}
}

// tutorStep is one reply the tutor gave while playing a conversation.
type tutorStep struct {
	reply offline.Reply
	calls []string // canon form of each call
}

// playTutor plays a request against the tutor directly on dialect d, the
// way the loop would: calls run in w, unusable replies get the loop's
// feedback.
func playTutor(t *testing.T, w *world, d backend.Dialect, request string, mcpTools []string) []tutorStep {
	t.Helper()
	tutor := offline.NewTutor(offline.Config{})
	items := []offline.Turn{{Kind: offline.TurnUser, Text: request}}
	var steps []tutorStep
	for range maxIterations {
		f := offline.NewFolder(d.Quirks)
		for _, it := range items {
			f.Add(it)
		}
		r, err := tutor.Answer(context.Background(), f.Call(0, true, mcpTools), 0)
		var fault offline.Fault
		if errors.As(err, &fault) && fault.Status() == http.StatusTooManyRequests {
			r, err = tutor.Answer(context.Background(), f.Call(0, true, mcpTools), 0) // the loop's retry
		}
		if err != nil {
			t.Fatalf("the tutor answered %v", err)
		}
		step := tutorStep{reply: r}
		switch {
		case r.Misfire || r.Cut || r.RepeatStop:
			items = append(items, offline.Turn{Kind: offline.TurnAssistant, Malformed: true}, offline.Turn{Kind: offline.TurnUser, Text: feedbackText("cut")})
		case len(r.Calls) == 0:
			return append(steps, step)
		default:
			items = append(items, offline.Turn{Kind: offline.TurnAssistant, Calls: r.Calls})
			for _, call := range r.Calls {
				a := map[string]any{}
				for _, kv := range call.Args {
					a[kv.Key] = kv.Value
				}
				out, isErr := w.run(call.Name, a)
				if server, tool, ok := strings.Cut(call.Name, "__"); ok {
					out, isErr = server+" "+tool+": "+argStr(a, "text")+argStr(a, "request"), tool == "lookup"
				}
				step.calls = append(step.calls, canon(call.Name, a))
				items = append(items, offline.Turn{Kind: offline.TurnResult, Result: offline.ToolResult{Name: call.Name, Content: out, IsError: isErr}})
			}
		}
		steps = append(steps, step)
	}
	return steps
}

// argStr is a call's string argument ("" when absent or another type).
func argStr(a map[string]any, key string) string {
	s, _ := a[key].(string)
	return s
}

// callArgs are a call's arguments as a map.
func callArgs(c offline.ToolCall) map[string]any {
	a := map[string]any{}
	for _, kv := range c.Args {
		a[kv.Key] = kv.Value
	}
	return a
}

// faultLessons answer with an HTTP error on every call: the service
// answers them, not the tutor.
var faultLessons = []string{"outage", "unknown-model"}

// TestTutorSpeaksJapanese plays every scripted lesson in every scenario on
// every dialect with its Japanese request: every thought, question and
// answer the tutor gives is Japanese, with no English sentence of its own;
// the tool calls are the English run's, but for the question it asks.
func TestTutorSpeaksJapanese(t *testing.T) {
	for _, l := range lessons.All() {
		if slices.Contains(faultLessons, l.Name) {
			continue
		}
		for _, tw := range tutorWorlds() {
			for _, d := range backend.Dialects() {
				t.Run(l.Name+"/"+tw.name+"/"+d.Name, func(t *testing.T) {
					play := func(request string) []tutorStep {
						w := newWorld()
						if tw.setup != nil {
							tw.setup(w)
						}
						return playTutor(t, w, d, request, tw.mcpTools)
					}
					ja, en := play(l.RequestJA), play(l.Request)
					if len(ja) != len(en) {
						t.Fatalf("%d replies in Japanese, %d in English", len(ja), len(en))
					}
					for i, s := range ja {
						r := s.reply
						for what, text := range map[string]string{"thought": r.Thought, "answer": r.Text} {
							if text == "" && what == "answer" {
								continue
							}
							if !hasJapanese(text) || englishSentence(text) != "" {
								t.Errorf("reply %d: %s is not Japanese (%q):\n%s", i+1, what, englishSentence(text), text)
							}
						}
						for j, call := range r.Calls {
							a := callArgs(call)
							if l.Name == "mcp-bus" && strings.HasSuffix(call.Name, "__ask_agent") {
								if !hasJapanese(argStr(a, "request")) {
									t.Errorf("the request to the other glass box %q is not Japanese", argStr(a, "request"))
								}
								continue
							}
							if call.Name == "ask_user" {
								b, _ := call.Args.MarshalJSON()
								if q := argStr(a, "question"); !hasJapanese(q) || !strings.Contains(string(b), `"options":["はい","いいえ"]`) {
									t.Errorf("the question %s is not Japanese", b)
								}
								continue
							}
							if s.calls[j] != en[i].calls[j] {
								t.Errorf("call %d.%d = %s, English run %s: arguments must not change with the language", i+1, j+1, s.calls[j], en[i].calls[j])
							}
						}
					}
					// The English run is the test's control: the detector sees it.
					if last := en[len(en)-1].reply; last.Text != "" && englishSentence(last.Text) == "" && l.Name != "iteration-limit" {
						t.Errorf("the English answer shows no English to the detector:\n%s", last.Text)
					}
				})
			}
		}
	}
}

// TestJapaneseLessonsOverTheWire plays each lesson's Japanese request with
// the real genai and ollama clients: the same calls as in English (but the
// question), and a Japanese final answer.
func TestJapaneseLessonsOverTheWire(t *testing.T) {
	for _, l := range lessons.All() {
		switch l.Name {
		case "mcp-tool", "rate-limit", "token-limit", "repeat-stop", "outage", "unknown-model":
			// These need what the test players leave out (MCP tools,
			// retries, the loop's feedback on a cut reply); the headless
			// lessons test and TestTutorSpeaksJapanese play them.
			continue
		}
		for _, p := range players() {
			t.Run(l.Name+"/"+p.name, func(t *testing.T) {
				ja, en := p.play(t, newWorld(), l.RequestJA), p.play(t, newWorld(), l.Request)
				notAsk := func(c string) bool { return !strings.HasPrefix(c, "ask_user ") }
				jaCalls, enCalls := slices.DeleteFunc(slices.Clone(ja.calls), func(c string) bool { return !notAsk(c) }), slices.DeleteFunc(slices.Clone(en.calls), func(c string) bool { return !notAsk(c) })
				if !slices.Equal(jaCalls, enCalls) || ja.halted != en.halted || ja.misfires != en.misfires {
					t.Errorf("Japanese run %+v\nEnglish run %+v", ja, en)
				}
				if ja.halted {
					return
				}
				if !hasJapanese(ja.final) || englishSentence(ja.final) != "" {
					t.Errorf("final answer is not Japanese (%q):\n%s", englishSentence(ja.final), ja.final)
				}
			})
		}
	}
}

// TestJapaneseJSONModeKeepsTheShape: in Llama JSON mode a Japanese request
// gets replies of exactly the English replies' shape — the same keys in the
// same order — with Japanese "thought" and "response" strings; the broken
// reply of the malformed lesson starts with Japanese prose, and the
// repeat-stop reply's thought is a JSON string.
func TestJapaneseJSONModeKeepsTheShape(t *testing.T) {
	c := newOllama(backend.SimulatedTransport(offline.Config{}))
	replies := func(t *testing.T, request string) []string {
		msgs := []api.Message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: request}}
		var out []string
		for range 4 {
			stream := false
			msg, err := ollamaChat(context.Background(), c, &api.ChatRequest{Model: "llama3.1:8b", Messages: msgs, Stream: &stream, Format: json.RawMessage(`"json"`)})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, msg.Content)
			var d struct {
				ToolCall *struct{ Name string } `json:"tool_call"`
			}
			if json.Unmarshal([]byte(msg.Content), &d) != nil || d.ToolCall == nil {
				return out
			}
			msgs = append(msgs, msg, api.Message{Role: "user", Content: `{"tool_result": {"name": "` + d.ToolCall.Name + `", "result": "hello.py"}}`})
		}
		return out
	}
	keys := func(t *testing.T, text string) (names []string, strs map[string]string) {
		dec := json.NewDecoder(strings.NewReader(text))
		strs = map[string]string{}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not a JSON object: %s", text)
		}
		for dec.More() {
			k, _ := dec.Token()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("not valid JSON: %v\n%s", err, text)
			}
			names = append(names, k.(string))
			if s, ok := v.(string); ok {
				strs[k.(string)] = s
			}
		}
		return names, strs
	}
	for _, name := range []string{"tour", "parallel", "tool-failure"} {
		t.Run(name, func(t *testing.T) {
			l, _ := lessons.ByName(name)
			ja, en := replies(t, l.RequestJA), replies(t, l.Request)
			if len(ja) != len(en) {
				t.Fatalf("%d replies in Japanese, %d in English", len(ja), len(en))
			}
			for i := range ja {
				jaKeys, strs := keys(t, ja[i])
				enKeys, _ := keys(t, en[i])
				if !slices.Equal(jaKeys, enKeys) {
					t.Errorf("reply %d keys %v, English %v", i+1, jaKeys, enKeys)
				}
				for _, k := range []string{"thought", "response"} {
					if s, ok := strs[k]; ok && (!hasJapanese(s) || englishSentence(s) != "") {
						t.Errorf("reply %d: %q is not Japanese: %q", i+1, k, s)
					}
				}
			}
		})
	}
	t.Run("malformed", func(t *testing.T) {
		l, _ := lessons.ByName("malformed")
		first := replies(t, l.RequestJA)[0]
		prose, _, _ := strings.Cut(first, "\n")
		if !hasJapanese(prose) || englishSentence(prose) != "" || !strings.Contains(first, `"thought": "TODO リストは`) {
			t.Errorf("broken reply = %q", first)
		}
	})
	t.Run("repeat-stop", func(t *testing.T) {
		l, _ := lessons.ByName("repeat-stop")
		var got string
		stream := true
		err := c.Chat(context.Background(), &api.ChatRequest{Model: "llama3.1:8b", Stream: &stream, Format: json.RawMessage(`"json"`),
			Messages: []api.Message{{Role: "user", Content: l.RequestJA}}}, func(r api.ChatResponse) error { got += r.Message.Content; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, `{"thought": "まずファイルを一覧します。",`) {
			t.Errorf("repeat-stop reply = %q", got)
		}
	})
}

// TestJapaneseGeminiThought: a Japanese request's thought part is Japanese.
func TestJapaneseGeminiThought(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	cfg := geminiConfig()
	cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	resp, err := newGenai(t, backend.SimulatedTransport(offline.Config{})).Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text(tour.RequestJA), cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 2 || !parts[0].Thought || !hasJapanese(parts[0].Text) || englishSentence(parts[0].Text) != "" {
		b, _ := json.Marshal(parts)
		t.Errorf("want a Japanese thought then the call; got %s", b)
	}
}

// TestJapaneseFreeFormRequests: common Japanese phrasings reach the
// intent matcher's scripts and get Japanese answers on every dialect.
func TestJapaneseFreeFormRequests(t *testing.T) {
	readHello := call("read_file", "path", "hello.py")
	list := call("list_files", "path", ".")
	tests := []struct {
		request string
		setup   func(*world)
		calls   []string
		final   []string
	}{
		{request: "ファイルを一覧して", calls: []string{list}, final: []string{"ワークスペースのファイル一覧です", "    hello.py"}},
		{request: "どんなファイルがありますか？", calls: []string{list}, final: []string{"ワークスペースのファイル一覧です"}},
		{request: "README を読んで", calls: []string{list, call("read_file", "path", "README.md")},
			final: []string{"README.md (3 行):", "# Sample project", "README.md を読む"}},
		{request: "Makefile の中身を見せて", calls: []string{list}, final: []string{"Makefile という名前のファイルは見つかりませんでした", "README.md、hello.py"}},
		{request: "hello.py を開いて", calls: []string{readHello}, final: []string{"hello.py (6 行):"}},
		{request: "hello.py の中身は？", calls: []string{readHello}, final: []string{"def greet(name):"}},
		{request: "hello.py には何が書いてありますか？", calls: []string{readHello}, final: []string{"hello.py (6 行):"}},
		{request: "ls して", calls: []string{list}, final: []string{"ワークスペースのファイル一覧です"}},
		{request: "missing.txt を読んで", calls: []string{call("read_file", "path", "missing.txt")},
			final: []string{"missing.txt を読めませんでした: 「", "open missing.txt: no such file or directory」"}},
		{request: "hello.py を動かして", calls: []string{call("execute_command", "command", "python3 hello.py")}, final: []string{"`python3 hello.py` の出力:"}},
		{request: "old_log.txt を消して", calls: []string{call("execute_command", "command", "rm old_log.txt")}, final: []string{"old_log.txt を削除しました。"}},
		{request: "notes/ideas.txt に書き込んで", setup: func(w *world) { w.policyDenies = true },
			calls: []string{call("write_file", "path", "notes/ideas.txt", "content", "Written by the glassbox offline tutor.\n")},
			final: []string{"セキュリティポリシーが拒否したので notes/ideas.txt は書きませんでした。"}},
		{request: "ファイルを削除して", final: []string{"どのファイルを削除しますか？"}},
	}
	for _, tc := range tests {
		for _, p := range players() {
			t.Run(tc.request+"/"+p.name, func(t *testing.T) {
				w := newWorld()
				if tc.setup != nil {
					tc.setup(w)
				}
				tx := p.play(t, w, tc.request)
				if !slices.Equal(tx.calls, tc.calls) {
					t.Errorf("calls:\n got %q\nwant %q", tx.calls, tc.calls)
				}
				for _, s := range tc.final {
					if !strings.Contains(tx.final, s) {
						t.Errorf("final answer lacks %q:\n%s", s, tx.final)
					}
				}
				if englishSentence(tx.final) != "" {
					t.Errorf("final answer has English %q:\n%s", englishSentence(tx.final), tx.final)
				}
			})
		}
	}
}

// TestNoToolsDeclaredInJapanese: without tools the tutor says, in
// Japanese, what it would have called.
func TestNoToolsDeclaredInJapanese(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	msg, err := ollamaChat(context.Background(), newOllama(backend.SimulatedTransport(offline.Config{})), &api.ChatRequest{Model: "llama3.1:8b",
		Messages: []api.Message{{Role: "user", Content: tour.RequestJA}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Content, `ツールがあれば、ここで list_files{"path":"."} を呼び出すところです。`) || englishSentence(msg.Content) != "" {
		t.Errorf("reply = %q", msg.Content)
	}
}

// hasJapanese reports whether s contains kana or kanji.
func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}
