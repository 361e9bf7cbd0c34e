package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// dialects are the four ways glassbox talks to a model.
var dialects = []struct {
	name string
	args []string
}{
	{"gemini", []string{"--provider", "gemini"}},
	{"llama-json", []string{"--provider", "llama", "--tool-mode", "json"}},
	{"llama-native", []string{"--provider", "llama", "--tool-mode", "native"}},
	{"openai", []string{"--provider", "openai"}},
}

func flat(parts ...string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, strings.Fields(p)...)
	}
	return out
}

// lessonWant is one dialect's expected run of a lesson.
type lessonWant struct {
	edges  string
	answer string // a piece of the delivered (or reported) text
}

// lessonCase is a lesson with its input and what each dialect does.
type lessonCase struct {
	lesson string
	stdin  string
	extra  []string
	code   int
	all    lessonWant            // for every dialect unless overridden
	by     map[string]lessonWant // per dialect
}

func (tc lessonCase) want(dialect string) lessonWant {
	if o, ok := tc.by[dialect]; ok {
		return o
	}
	return tc.all
}

// lessonCases are the bundled lessons' exact transitions on every dialect.
func lessonCases() []lessonCase {
	return []lessonCase{
		{lesson: "tour", all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "def greet(name)"}},
		{lesson: "write-file", stdin: "y\n", all: lessonWant{"new_event context_ready tool_call confirm_required user_approval tool_success observed context_ready final_answer delivered", "You approved the write"}},
		{lesson: "write-file", stdin: "n\n", all: lessonWant{"new_event context_ready tool_call confirm_required user_denial observed context_ready final_answer delivered", "You declined the write"}},
		{lesson: "run-command", stdin: "y\n", all: lessonWant{"new_event context_ready tool_call confirm_required user_approval tool_success observed context_ready final_answer delivered", "Hello, world!"}},
		{lesson: "streams", all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready final_answer delivered", "token by token"}},
		{lesson: "ask-delete", stdin: "1\ny\n", all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready tool_call confirm_required user_approval tool_success observed context_ready final_answer delivered", "Deleted old_log.txt"}},
		{lesson: "ask-delete", stdin: "2\n", all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready final_answer delivered", "You said no"}},
		{lesson: "path-escape",
			all: lessonWant{"new_event context_ready tool_call deny next_tool_call deny observed context_ready final_answer delivered", "path-outside-workspace"},
			by:  map[string]lessonWant{"llama-json": {"new_event context_ready tool_call deny observed context_ready tool_call deny observed context_ready final_answer delivered", "path-outside-workspace"}}},
		{lesson: "malformed",
			all: lessonWant{"new_event context_ready malformed_response observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "write a test for greet"},
			by:  map[string]lessonWant{"llama-native": {"new_event context_ready tool_call deny observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "write a test for greet"}}},
		{lesson: "tool-failure", all: lessonWant{"new_event context_ready tool_call allow tool_failure observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "config.yaml"}},
		{lesson: "parallel",
			all: lessonWant{"new_event context_ready tool_call allow tool_success next_tool_call allow tool_success observed context_ready final_answer delivered", "ONE response"},
			by:  map[string]lessonWant{"llama-json": {"new_event context_ready tool_call allow tool_success observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "one tool call per reply"}}},
		{lesson: "iteration-limit", extra: []string{"--max-iterations", "2"}, code: exitHalted,
			all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready tool_call allow tool_success observed max_iterations reported", "iteration limit"}},
		{lesson: "rate-limit", all: lessonWant{"new_event context_ready final_answer delivered", ""}},
		{lesson: "outage", code: exitProvider, all: lessonWant{"new_event context_ready llm_failure reported", "gave up after 3 retries"}},
		{lesson: "token-limit", all: lessonWant{"new_event context_ready malformed_response observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "cut off (done_reason length"},
			by: map[string]lessonWant{
				"gemini": {"new_event context_ready malformed_response observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "cut off (finishReason MAX_TOKENS"},
				"openai": {"new_event context_ready malformed_response observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "cut off (finish_reason length"},
			}},
		{lesson: "repeat-stop", all: lessonWant{"new_event context_ready malformed_response observed context_ready tool_call allow tool_success observed context_ready final_answer delivered", "without retrying"},
			by: map[string]lessonWant{"gemini": {"new_event context_ready final_answer delivered", "Gemini has no such stop"}}},
		{lesson: "mcp-tool", stdin: "y\n",
			all: lessonWant{"new_event context_ready tool_call confirm_required user_approval tool_success observed context_ready final_answer delivered", "The MCP server demo answered demo__echo with:"}},
		{lesson: "mcp-tool", stdin: "y\n", extra: []string{"--mcp", "notes=" + notesServer()},
			all: lessonWant{"new_event context_ready tool_call confirm_required user_approval tool_success observed context_ready final_answer delivered", "echo: hello from the glass box"}},
		{lesson: "mcp-bus", all: lessonWant{"new_event context_ready tool_call allow tool_success observed context_ready final_answer delivered", "For the caller on the MCP bus: the workspace holds"}},
		{lesson: "unknown-model", code: exitProvider, all: lessonWant{"new_event context_ready llm_failure reported", "ollama pull llama3.1:8b"},
			by: map[string]lessonWant{"gemini": {"new_event context_ready llm_failure reported", "gemini-2.5-flash"}}},
	}
}

// TestLessonsHeadless runs every bundled lesson through `glassbox run`
// offline on every dialect and checks the exact transitions: the lesson
// scripts, the real SDK clients, the providers and the engine together.
// Each run is played again with --lang ja (checkJapaneseRun).
func TestLessonsHeadless(t *testing.T) {
	isolate(t)
	tests := lessonCases()
	covered := map[string]bool{}
	seenLessons := map[string]bool{}
	for _, tc := range tests {
		seenLessons[tc.lesson] = true
		for _, d := range dialects {
			w := tc.want(d.name)
			name := tc.lesson + "/" + d.name
			if tc.stdin != "" {
				name += "/" + strings.TrimSpace(strings.ReplaceAll(tc.stdin, "\n", ","))
			}
			t.Run(name, func(t *testing.T) {
				args := slices.Concat([]string{"--offline", "--lesson", tc.lesson}, d.args, tc.extra)
				code, lines, stderr := runJSON(t, tc.stdin, args...)
				if code != tc.code {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
				}
				if got, want := edges(lines), flat(w.edges); !slices.Equal(got, want) {
					t.Fatalf("edges\n got %v\nwant %v", got, want)
				}
				last := lines[len(lines)-1]
				if last.Output == nil || !strings.Contains(last.Output.Text, w.answer) {
					t.Fatalf("last output %+v lacks %q", last.Output, w.answer)
				}
				for _, l := range lines {
					covered[l.From+" "+l.Edge+" "+l.To] = true
					if l.LLM != nil && (l.LLM.Backend != "offline" || l.LLM.Provider != strings.Split(d.name, "-")[0]) {
						t.Errorf("llm record says provider %q backend %q", l.LLM.Provider, l.LLM.Backend)
					}
				}
				t.Run("ja", func(t *testing.T) { checkJapaneseRun(t, tc, d.args, w, last) })
				switch tc.lesson {
				case "mcp-tool":
					if !strings.Contains(last.Output.Text, "echo: hello from the glass box") {
						t.Errorf("the answer does not quote the server's: %q", last.Output.Text)
					}
				case "mcp-bus":
					// The request came from the bus and the answer went back there.
					if m := frameMethods(lines[0]); !slices.Contains(m, "recv tools/call") {
						t.Errorf("new_event frames = %v, want the bus's tools/call", m)
					}
					if m := frameMethods(last); !slices.Equal(m, []string{"send tools/call"}) {
						t.Errorf("delivered frames = %v, want the answer going back", m)
					}
				case "rate-limit":
					if r := lines[2].LLM.Retries; len(r) != 1 || r[0].Status != 429 {
						t.Errorf("retries = %+v, want one after a 429", r)
					}
				case "outage":
					if r := lines[2].LLM.Retries; len(r) != 3 || r[0].Status != 503 {
						t.Errorf("retries = %+v, want three after 503s", r)
					}
				case "unknown-model":
					if l := lines[2].LLM; len(l.Retries) != 0 || l.HTTPStatus != 404 {
						t.Errorf("llm = %+v, want one 404 and no retry", l)
					}
					// The JSONL stays on stdout; the one-line reason goes to stderr.
					// (The lines after it say where the session was saved.)
					reason, _, _ := strings.Cut(stderr, "\n")
					if !strings.HasPrefix(reason, "glassbox run: the provider failed: ") || !strings.Contains(reason, "not found") {
						t.Errorf("stderr = %q, want the one-line reason first", stderr)
					}
				case "token-limit":
					if l := lines[2].LLM; l.StopReason != "max_tokens" || len(l.Retries) != 0 {
						t.Errorf("llm = %+v, want stop_reason max_tokens and no retry", l)
					}
				case "repeat-stop":
					if l := lines[2].LLM; d.name != "gemini" && (l.StopReason != "incomplete" || len(l.Retries) != 0 || lines[2].Error == nil ||
						!strings.Contains(lines[2].Error.Message, "token-repeat limit")) {
						t.Errorf("transition %+v, llm %+v: want stop_reason incomplete, no retry, the stop explained", lines[2], l)
					}
				}
			})
		}
	}
	for _, l := range lessons.All() {
		if !seenLessons[l.Name] {
			t.Errorf("lesson %s is not exercised by this test", l.Name)
		}
	}
	for _, a := range loop.Table {
		if !covered[string(a.From)+" "+string(a.Edge)+" "+string(a.To)] {
			t.Errorf("no lesson takes %s --%s--> %s", a.From, a.Edge, a.To)
		}
	}
}

// --yes approves, but the trace still shows what a person would have seen.
func TestYesStillShowsTheConfirmation(t *testing.T) {
	isolate(t)
	code, lines, stderr := runJSON(t, "", "--offline", "--yes", "--lesson", "write-file")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := edges(lines)
	if !slices.Contains(got, "confirm_required") || !slices.Contains(got, "user_approval") {
		t.Fatalf("edges %v lack confirm_required → user_approval", got)
	}
	code, lines, _ = runJSON(t, "", "--offline", "--yes", "--lesson", "path-escape")
	if code != exitOK || slices.Contains(edges(lines), "user_approval") || !slices.Contains(edges(lines), "deny") {
		t.Fatalf("--yes must not approve a DENY: %v", edges(lines))
	}
}

// checkJapaneseRun plays a lesson case again with --lang ja: --lesson
// sends the lesson's Japanese request, the transitions and the exit code
// are the English run's, and a delivered answer is Japanese — every line
// of the tutor's own text holds Japanese, and none of the sentences of the
// English answer (en) is left in it. What the tutor quotes (a tool's or
// the loop's words between 「」, indented blocks) may stay as it is.
func checkJapaneseRun(t *testing.T, tc lessonCase, dialectArgs []string, w lessonWant, en traceLine) {
	lesson, _ := lessons.ByName(tc.lesson)
	args := slices.Concat([]string{"--offline", "--lang", "ja", "--lesson", tc.lesson}, dialectArgs, tc.extra)
	code, lines, stderr := runJSON(t, tc.stdin, args...)
	if code != tc.code {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
	}
	if got, want := edges(lines), flat(w.edges); !slices.Equal(got, want) {
		t.Fatalf("edges\n got %v\nwant %v", got, want)
	}
	if ev := lines[0].Event; ev == nil || ev.Data != lesson.RequestJA {
		t.Errorf("event %+v, want the Japanese request %q", ev, lesson.RequestJA)
	}
	last := lines[len(lines)-1]
	if code != exitOK || last.Output == nil || en.Output == nil {
		return // the loop's report of a halt, not the tutor's answer
	}
	ja := last.Output.Text
	var own strings.Builder // the Japanese answer without what it quotes
	for _, line := range strings.Split(ja, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "    ") {
			continue
		}
		line = quotedJA.ReplaceAllString(line, "")
		if !hasKanaOrKanji(line) {
			t.Errorf("a line of the answer has no Japanese: %q\n%s", line, ja)
		}
		own.WriteString(line + "\n")
	}
	for _, line := range strings.Split(en.Output.Text, "\n") {
		if strings.HasPrefix(line, "    ") {
			continue
		}
		for _, sentence := range englishSentenceEnd.Split(line, -1) {
			if sentence = strings.TrimSpace(sentence); len(sentence) >= 12 && strings.Contains(sentence, " ") && strings.Contains(own.String(), sentence) {
				t.Errorf("the Japanese answer keeps the English %q:\n%s", sentence, ja)
			}
		}
	}
}

var (
	// quotedJA is what a Japanese answer quotes: 「…」.
	quotedJA = regexp.MustCompile(`「[^」]*」`)
	// englishSentenceEnd splits English prose into sentences and clauses.
	englishSentenceEnd = regexp.MustCompile(`[.;:!?)(]\s+|[.)]$`)
)

// hasKanaOrKanji reports whether s holds hiragana, katakana or kanji.
func hasKanaOrKanji(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) }) >= 0
}

// TestLessonsInTheChosenLanguage: --lang ja, or a Japanese locale with no
// --lang, gives the lessons in Japanese — `glassbox lessons` lists the
// Japanese titles, `glassbox run --lesson` sends the Japanese request, and
// the glass box offers the Japanese titles and requests, sends the
// Japanese request on Enter and gets Japanese thoughts and answers back.
func TestLessonsInTheChosenLanguage(t *testing.T) {
	isolate(t)
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		t.Setenv(k, "")
	}
	list := func(t *testing.T, args ...string) []string {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), append([]string{"lessons"}, args...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("glassbox lessons %v: exit %d: %s", args, code, errb.String())
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}
	titles := func(ja bool) []string {
		var want []string
		for _, l := range lessons.All() {
			want = append(want, l.Name+"\t"+map[bool]string{false: l.Title, true: l.TitleJA}[ja])
		}
		return want
	}
	t.Run("lessons --lang", func(t *testing.T) {
		if got := list(t, "--lang", "ja"); !slices.Equal(got, titles(true)) {
			t.Errorf("glassbox lessons --lang ja:\n%s", strings.Join(got, "\n"))
		}
		if got := list(t, "--lang", "en"); !slices.Equal(got, titles(false)) {
			t.Errorf("glassbox lessons --lang en:\n%s", strings.Join(got, "\n"))
		}
		if got := list(t); !slices.Equal(got, titles(false)) {
			t.Errorf("glassbox lessons with no locale:\n%s", strings.Join(got, "\n"))
		}
		var errb bytes.Buffer
		if code := realMain(context.Background(), []string{"lessons", "--lang", "fr"}, strings.NewReader(""), io.Discard, &errb); code != exitUsage || !strings.Contains(errb.String(), "use en or ja") {
			t.Errorf("--lang fr: exit %d, %q", code, errb.String())
		}
	})
	t.Run("the locale", func(t *testing.T) {
		t.Setenv("LANG", "ja_JP.UTF-8")
		if got := list(t); !slices.Equal(got, titles(true)) {
			t.Errorf("glassbox lessons under LANG=ja_JP.UTF-8:\n%s", strings.Join(got, "\n"))
		}
		if got := list(t, "--lang", "en"); !slices.Equal(got, titles(false)) {
			t.Errorf("--lang en must win over the locale:\n%s", strings.Join(got, "\n"))
		}
		tour, _ := lessons.ByName("tour")
		code, lines, stderr := runJSON(t, "", "--offline", "--lesson", "tour")
		if code != exitOK || lines[0].Event == nil || lines[0].Event.Data != tour.RequestJA || !hasKanaOrKanji(lines[len(lines)-1].Output.Text) {
			t.Fatalf("exit %d, first %+v, last %+v; stderr %s", code, lines[0].Event, lines[len(lines)-1].Output, stderr)
		}
	})
	t.Run("compare mode", func(t *testing.T) {
		parallel, _ := lessons.ByName("parallel")
		code, lines, stderr := runJSON(t, "", "--offline", "--lang", "ja", "--compare=gemini,llama", "--lesson", "parallel")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		answers := map[string]string{}
		for _, l := range lines {
			if l.Event != nil && l.Event.Data != parallel.RequestJA {
				t.Errorf("run %s got %q", l.Run, l.Event.Data)
			}
			if l.Output != nil {
				answers[l.Run] = l.Output.Text
			}
		}
		if len(answers) != 2 || !strings.Contains(answers["gemini"], "1 回の返答の中の 2 つのツール呼び出し") ||
			!strings.Contains(answers["llama"], "ファイルを 1 つずつ読みました") {
			t.Errorf("answers: %q", answers)
		}
	})
	t.Run("the glass box", func(t *testing.T) {
		p, runs, cfg := openGlassBox(t, "--offline", "--sim-latency", "0", "--lang", "ja", "--lesson", "write-file")
		all := lessons.All()
		if len(cfg.Lessons) != len(all) {
			t.Fatalf("%d lessons offered, want %d", len(cfg.Lessons), len(all))
		}
		for i, l := range all {
			if got := cfg.Lessons[i]; got.Title != l.TitleJA || got.Request != l.RequestJA {
				t.Errorf("lesson %s offered as %q / %q", l.Name, got.Title, got.Request)
			}
		}
		p.send(tea.KeyMsg{Type: tea.KeyEnter}) // the lesson's request
		p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}})
		p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}}) // approve the write
		h := runs[0].Engine.History()
		write, _ := lessons.ByName("write-file")
		if len(h) < 4 || h[0].Text != write.RequestJA {
			t.Fatalf("the conversation: %+v", h)
		}
		answered := false
		for _, m := range h[1:] {
			if m.Role != history.RoleAssistant {
				continue
			}
			if m.Thought != "" && !hasKanaOrKanji(m.Thought) {
				t.Errorf("thought %q is not Japanese", m.Thought)
			}
			if m.Text != "" {
				answered = hasKanaOrKanji(m.Text) && strings.Contains(m.Text, "farewell.py を作りました")
			}
		}
		if !answered {
			t.Errorf("no Japanese answer in %+v", h)
		}
	})
}

// TestInstructorGuidesListTheLessons: the instructor guides' lesson tables
// are the lessons as the code has them — the English guide with the
// English title and request, the Japanese guide with the Japanese title and
// both requests.
func TestInstructorGuidesListTheLessons(t *testing.T) {
	en, err := os.ReadFile("docs/instructor-guide.md")
	if err != nil {
		t.Fatal(err)
	}
	ja, err := os.ReadFile("docs/ja/instructor-guide.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons.All() {
		if row := "| `" + l.Name + "` | " + l.Title + " | " + l.Request + " |"; !strings.Contains(string(en), row) {
			t.Errorf("docs/instructor-guide.md lacks the row %s", row)
		}
		if row := "| `" + l.Name + "` | " + l.TitleJA + " | " + l.RequestJA + " | " + l.Request + " |"; !strings.Contains(string(ja), row) {
			t.Errorf("docs/ja/instructor-guide.md lacks the row %s", row)
		}
	}
}
