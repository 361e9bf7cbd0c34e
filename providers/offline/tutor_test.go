package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/lessons"
)

func TestNewConversationFindsTheRequest(t *testing.T) {
	user := func(s string) Turn { return Turn{Kind: TurnUser, Text: s} }
	final := Turn{Kind: TurnAssistant, Text: "done"}
	calls := Turn{Kind: TurnAssistant, Calls: []ToolCall{{Name: "list_files"}}}
	broken := Turn{Kind: TurnAssistant, Text: "{oops", Malformed: true}
	result := Turn{Kind: TurnResult, Result: ToolResult{Name: "list_files", Content: "a.txt"}}
	tests := []struct {
		name      string
		items     []Turn
		request   string
		feedbacks int
	}{
		{"first message", []Turn{user("  list files  ")}, "list files", 0},
		{"after a final answer", []Turn{user("one"), final, user("two")}, "two", 0},
		{"feedback after a malformed reply, any wording", []Turn{user("one"), broken, user("try again")}, "one", 1},
		{"feedback wording after an unfinished turn", []Turn{user("one"), calls, result, user(feedbackText("bad"))}, "one", 1},
		{"feedback with the malformed turn dropped", []Turn{user("one"), user("Your last reply could not be used: finishReason MALFORMED_FUNCTION_CALL")}, "one", 1},
		{"new request after a halted turn", []Turn{user("one"), calls, result, user("read hello.py")}, "read hello.py", 0},
		{"new request after a provider failure", []Turn{user("one"), user("two")}, "two", 0},
		{"feedback-like words after a final answer are a request", []Turn{user("one"), final, user("your last reply was wrong")}, "your last reply was wrong", 0},
		{"no user text", []Turn{result}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newConversation(nil, tc.items)
			if c.request != tc.request {
				t.Errorf("request = %q, want %q", c.request, tc.request)
			}
			n := 0
			for _, s := range c.steps {
				if s.Kind == TurnFeedback {
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
	a := ToolCall{ID: "call_a", Name: "read_file", Args: Args{{"path", "a.txt"}}}
	b := ToolCall{ID: "call_b", Name: "read_file", Args: Args{{"path", "b.txt"}}}
	tests := []struct {
		name    string
		results []ToolResult
	}{
		{"by id, out of order", []ToolResult{{CallID: "call_b", Name: "read_file", Content: "B"}, {CallID: "call_a", Name: "read_file", Content: "A"}}},
		{"by order without ids", []ToolResult{{Name: "read_file", Content: "A"}, {Name: "read_file", Content: "B"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := []Turn{{Kind: TurnUser, Text: "go"}, {Kind: TurnAssistant, Calls: []ToolCall{a, b}}}
			for _, r := range tc.results {
				items = append(items, Turn{Kind: TurnResult, Result: r})
			}
			c := newConversation(nil, items)
			for file, want := range map[string]string{"a.txt": "A", "b.txt": "B"} {
				r, ok := c.resultFor("read_file", "path", "./"+file)
				if !ok || r.Content != want {
					t.Errorf("result for %s = %q, %v; want %q", file, r.Content, ok, want)
				}
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
			if got := LooksLikeErrorText(in); got != want {
				t.Errorf("looksLikeErrorText(%q) = %v, want %v", in, got, want)
			}
		}
	})
}

// Asked what it does not know, the tutor says how to reach a real model
// as the front end words it for the person (Config.GoLive: a learner in a
// room asks the instructor), in the request's language, and never names
// glassbox's flags then.
func TestTheTutorSaysHowToGoLiveAsItIsTold(t *testing.T) {
	goLive := map[string]string{"en": "ask the instructor", "ja": "講師に頼んでください"}
	for req, want := range map[string]string{"What's the capital of France?": "To talk to a real model: ask the instructor.", "今日の天気は？": "本物のモデルと話すには: 講師に頼んでください。"} {
		c := Conversation{request: req, lang: languageOf(req), goLive: goLive[languageOf(req).code()]}
		got := decide(c).Text
		if !strings.Contains(got, want) || strings.Contains(got, "--provider") || strings.Contains(got, "go run") {
			t.Errorf("%q: the tutor says\n%s", req, got)
		}
	}
}

// Every lesson of the catalogue has a script here, or a fault it answers
// with instead; and its request is not mistaken for the loop's feedback.
func TestEveryLessonIsPlayed(t *testing.T) {
	for _, l := range lessons.All() {
		if scripts[l.Name] == nil && faults[l.Name] != faultOutage && faults[l.Name] != faultUnknownModel {
			t.Errorf("lesson %q has no script", l.Name)
		}
		if looksLikeFeedback(l.Request) || looksLikeFeedback(l.RequestJA) {
			t.Errorf("lesson %q's request reads like loop feedback", l.Name)
		}
	}
	for name := range scripts {
		if _, ok := lessons.ByName(name); !ok {
			t.Errorf("a script for %q, which the catalogue does not have", name)
		}
	}
}

// feedbackText is how the loop words its note about a reply it could not
// use.
func feedbackText(why string) string {
	return "Your last reply could not be parsed: " + why + ". Reply again with exactly one valid tool call or a final answer."
}

// newConversation folds items into a conversation, as a request's turns are.
func newConversation(q *Quirks, items []Turn) Conversation {
	f := NewFolder(q)
	for _, it := range items {
		f.Add(it)
	}
	return f.conv
}
