package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// invoke is runIn, with `run`'s retry waits skipped (they are the
// engine's; a test does not sit them out).
func invoke(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if len(args) == 0 || args[0] != "run" {
		return runIn(t, stdin, args...)
	}
	var out, errb bytes.Buffer
	code := runHeadless(context.Background(), args[1:], noSleep, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// `glassbox run --lang ja` prints the human trace's sentences in Japanese;
// the tags, states, edges and tools stay as they are.
func TestRunSpeaksTheChosenLanguage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		locale string
		want   []string
		absent []string
		saved  string
	}{
		{"--lang ja", []string{"--lang", "ja"}, "",
			[]string{"コンテキストを組み立てました", "ワークスペース: ", "[THINK]", "--context_ready--> AWAITING_LLM_RESPONSE", "list_files"},
			[]string{"context assembled", "workspace: "}, "セッションを保存しました: "},
		{"LANG=ja_JP.UTF-8", nil, "ja_JP.UTF-8",
			[]string{"コンテキストを組み立てました", "[ANSWER]"},
			[]string{"context assembled"}, "セッションを保存しました: "},
		{"--lang en over a Japanese locale", []string{"--lang", "en"}, "ja_JP.UTF-8",
			[]string{"context assembled", "workspace: "},
			[]string{"コンテキスト"}, "session saved: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("LC_ALL", "")
			t.Setenv("LC_MESSAGES", "")
			t.Setenv("LANG", tc.locale)
			code, out, errb := invoke(t, "", append(append([]string{"run", "--offline"}, tc.args...), "--lesson", "tour")...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errb)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the trace lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("the trace holds %q:\n%s", a, out)
				}
			}
			if !strings.Contains(errb, tc.saved) {
				t.Errorf("stderr lacks %q:\n%s", tc.saved, errb)
			}
		})
	}
}

// volatile are the parts of a JSONL trace that differ from one run to the
// next whatever the language: the clock and the durations.
var volatile = regexp.MustCompile(`"(time)":"[^"]*"|"([a-z_]*_ms)":[0-9]+`)

// --json is the protocol a learner is learning: the same bytes in every
// language (only the clock and the durations differ between two runs).
func TestJSONTraceIsTheSameInEveryLanguage(t *testing.T) {
	trace := func(lang string) string {
		isolate(t)
		code, out, errb := invoke(t, "y\n", "run", "--offline", "--json", "--lang", lang, "--lesson", "write-file", "write a file notes.txt that says hello")
		if code != exitOK || out == "" {
			t.Fatalf("--lang %s: exit %d\n%s%s", lang, code, out, errb)
		}
		return volatile.ReplaceAllString(out, `"$1$2":0`)
	}
	en, ja := trace("en"), trace("ja")
	if en != ja {
		t.Fatalf("the JSONL trace differs by language:\nen:\n%s\nja:\n%s", en, ja)
	}
	if !strings.Contains(en, `"edge":"user_approval"`) {
		t.Fatalf("the run did not go through the approval:\n%s", en)
	}
}

// A Japanese answer approves a confirmation (はい once, 常に always).
func TestJapaneseAnswersApprove(t *testing.T) {
	isolate(t)
	code, lines, stderr := runJSON(t, "はい\n", "--offline", "--lang", "ja", "--lesson", "write-file")
	if code != exitOK || !strings.Contains(strings.Join(edges(lines), " "), "user_approval") {
		t.Fatalf("exit %d, edges %v\n%s", code, edges(lines), stderr)
	}
	if !strings.Contains(stderr, "許可しますか? [y] 今回だけ(はい)") {
		t.Errorf("the prompt is not in Japanese:\n%s", stderr)
	}
}

// The command line's mistakes and hints in both languages: a usage error,
// a missing key, a 429 from Gemini, a corrupted session, the help.
func TestCLIMessagesInBothLanguages(t *testing.T) {
	corrupt := func(t *testing.T) []string {
		path := filepath.Join(t.TempDir(), "broken.jsonl")
		if err := os.WriteFile(path, []byte("this is not a session\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"run", "--resume", path}
	}
	rateLimited := func(t *testing.T) []string {
		body, err := os.ReadFile("/work/shared/wire-examples/gemini/error_429_RESOURCE_EXHAUSTED_quota_retryinfo__gemini_cli_test_DECODED.json")
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(body)
		}))
		t.Cleanup(srv.Close)
		t.Setenv("GEMINI_API_KEY", "AIzaSy-test-key-for-the-429-000000")
		t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
		return []string{"run", "--live", "hi"}
	}
	for _, tc := range []struct {
		name   string
		args   func(*testing.T) []string
		code   int
		en, ja string
	}{
		{"usage error", func(*testing.T) []string { return []string{"run", "--max-iterations", "0", "hi"} }, exitUsage,
			"glassbox run: --max-iterations 0: want at least 1", "glassbox run: --max-iterations 0: 1 以上を指定してください"},
		{"missing key", func(*testing.T) []string { return []string{"run", "--live", "hi"} }, exitProvider,
			"no Gemini API key: set GEMINI_API_KEY", "Gemini の API キーがありません: GEMINI_API_KEY(または GOOGLE_API_KEY)を設定してください"},
		{"429 hint", rateLimited, exitProvider,
			"glassbox run: the provider failed: Gemini's rate limit or quota is used up (429 RESOURCE_EXHAUSTED)",
			"glassbox run: プロバイダーが失敗しました: Gemini のレート制限か割り当てを使い切りました(429 RESOURCE_EXHAUSTED)"},
		{"corrupted session", corrupt, exitUsage,
			"the session file is corrupt", "セッションファイルが壊れています"},
		{"unknown lesson", func(*testing.T) []string { return []string{"run", "--lesson", "nope"} }, exitUsage,
			`no lesson named "nope" (see 'glassbox lessons')`, `"nope" という名前のレッスンはありません('glassbox lessons' を参照)`},
		{"help", func(*testing.T) []string { return []string{"help"} }, exitOK,
			"glassbox run [flags] PROMPT   headless: run the loop on PROMPT and print the trace", "glassbox run [flags] PROMPT   ヘッドレス: PROMPT でループを動かし、トレースを表示します"},
		{"flag descriptions", func(*testing.T) []string { return []string{"run", "-h"} }, exitOK,
			"force the offline simulation", "オフラインのシミュレーションを使います"},
		{"no sessions yet", func(*testing.T) []string { return []string{"sessions"} }, exitOK,
			"glassbox sessions: no sessions yet in", "にはまだセッションがありません"},
		{"a flag after the prompt", func(*testing.T) []string { return []string{"run", "--offline", "hi", "--json"} }, exitUsage,
			`"--json" comes after the prompt; flags go before it`, `"--json" がプロンプトの後にあります`},
	} {
		for _, l := range []string{"en", "ja"} {
			t.Run(tc.name+" "+l, func(t *testing.T) {
				isolate(t)
				t.Setenv("LC_ALL", "")
				t.Setenv("LC_MESSAGES", "")
				t.Setenv("LANG", map[string]string{"en": "C.UTF-8", "ja": "ja_JP.UTF-8"}[l])
				code, out, errb := invoke(t, "", tc.args(t)...)
				want := map[string]string{"en": tc.en, "ja": tc.ja}[l]
				if testing.Verbose() {
					t.Logf("%s%s", out, errb)
				}
				if code != tc.code || !strings.Contains(out+errb, want) {
					t.Fatalf("exit %d (want %d); output lacks %q:\n%s%s", code, tc.code, want, out, errb)
				}
				if l == "ja" && tc.en != tc.ja && strings.Contains(out+errb, tc.en) {
					t.Errorf("the English %q is in the Japanese output:\n%s%s", tc.en, out, errb)
				}
			})
		}
	}
}

// --lang on the command line wins over the locale for the help too.
func TestLangFlagChoosesTheHelpLanguage(t *testing.T) {
	isolate(t)
	t.Setenv("LC_ALL", "")
	t.Setenv("LANG", "C.UTF-8")
	if _, out, _ := invoke(t, "", "help", "--lang", "ja"); !strings.Contains(out, "使い方:") {
		t.Errorf("help --lang ja:\n%s", out)
	}
	if _, _, errb := invoke(t, "", "run", "--lang=ja", "-h"); !strings.Contains(errb, "表示する言語: en か ja") {
		t.Errorf("run --lang=ja -h:\n%s", errb)
	}
	if code, _, errb := invoke(t, "", "lessons", "--lang", "ja", "extra"); code != exitUsage || !strings.Contains(errb, "引数は取りません") {
		t.Errorf("lessons --lang ja extra: exit %d\n%s", code, errb)
	}
}

// `glassbox export --lang ja` hands out a Japanese page.
func TestExportLang(t *testing.T) {
	isolate(t)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	if code, out, errb := invoke(t, "", "run", "--offline", "--session", session, "--lesson", "tour"); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errb)
	}
	code, out, errb := invoke(t, "", "export", session, "--format", "html", "--lang", "ja")
	if code != exitOK || !strings.Contains(out, `<html lang="ja">`) || !strings.Contains(out, "<dt>最初のリクエスト</dt>") {
		t.Fatalf("export --lang ja: exit %d\n%s%s", code, out, errb)
	}
	if code, _, errb := invoke(t, "", "export", session, "--lang", "fr"); code != exitUsage || !strings.Contains(errb, `unknown language "fr"`) {
		t.Fatalf("export --lang fr: exit %d\n%s", code, errb)
	}
}

// `glassbox sessions --stats ID --lang ja` (the flag after the ID) lists
// one session's health in Japanese, its values in one column however wide
// the labels are.
func TestSessionStatsInJapanese(t *testing.T) {
	isolate(t)
	if code, out, errb := invoke(t, "", "run", "--offline", "--lesson", "tour"); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errb)
	}
	_, list, _ := invoke(t, "", "sessions")
	id, _, _ := strings.Cut(list, "\t")
	code, out, errb := invoke(t, "", "sessions", "--stats", id, "--lang", "ja")
	if code != exitOK || !strings.Contains(out, "ディスク上のサイズ") || !strings.Contains(out, "差し戻した失敗 0 件") {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	col := -1
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		gap := strings.Index(line, "  ")
		if gap < 0 {
			t.Errorf("%q: no two spaces between label and value:\n%s", line, out)
			continue
		}
		label := line[:gap]
		at := ansi.StringWidth(line) - ansi.StringWidth(strings.TrimLeft(line[len(label):], " "))
		if col >= 0 && at != col {
			t.Errorf("%q starts its value at cell %d, the others at %d:\n%s", label, at, col, out)
		}
		col = at
	}
}

// What is wrong with a policy file or a cassette is said in Japanese under
// --lang ja: the file's name, a parser's own words and the flags stay as
// they are.
func TestPolicyAndCassetteErrorsInJapanese(t *testing.T) {
	isolate(t)
	files := map[string]string{
		"verdict.toml": "[[rule]]\nname = \"a\"\nverdict = \"MAYBE\"\n",
		"tools.toml":   "[[rule]]\nname = \"a\"\nverdict = \"ALLOW\"\ntools = [\"nope\"]\n",
		"header.jsonl": "{\"bad\":1}\n",
		"empty.jsonl":  "",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args     []string
		ja, gone string
	}{
		{[]string{"--policy", "verdict.toml"}, `ポリシーファイル verdict.toml: ルール 1 ("a"): verdict "MAYBE": ALLOW、DENY、REQUIRE_USER_CONFIRMATION のいずれかを指定してください`, "want ALLOW"},
		{[]string{"--policy", "tools.toml"}, `ルール "a" がツール "nope" を指定しています。ツールは次のとおりです:`, "names the tool"},
		{[]string{"--policy", "missing.toml"}, "ポリシーファイル: missing.toml: そのようなファイルやフォルダーはありません", "no such file"},
		{[]string{"--replay", "header.jsonl"}, "header.jsonl は glassbox のカセットではありません", "is not a glassbox cassette"},
		{[]string{"--replay", "empty.jsonl"}, "empty.jsonl は空なので glassbox のカセットではありません", "is empty"},
		{[]string{"--replay", "missing.jsonl"}, "missing.jsonl: そのようなファイルやフォルダーはありません", "no such file"},
	} {
		code, _, errs := invoke(t, "", append([]string{"run", "--lang", "ja", "--lesson", "tour"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.ja) || strings.Contains(errs, tc.gone) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, code, errs, tc.ja)
		}
	}
}

// `run --lang ja` says the sandbox line in Japanese.
func TestRunSaysTheSandboxInJapanese(t *testing.T) {
	isolate(t)
	_, out, errs := invoke(t, "", "run", "--lang", "ja", "--lesson", "tour", "--yes")
	for _, line := range strings.Split(out+errs, "\n") {
		if rest, ok := strings.CutPrefix(line, "サンドボックス: "); ok {
			if !strings.HasPrefix(rest, "有効") && !strings.HasPrefix(rest, "無効") || strings.Contains(rest, "commands read") || strings.Contains(rest, "limits:") || strings.Contains(rest, "does not start") {
				t.Fatalf("the sandbox line is not in Japanese: %q", line)
			}
			return
		}
	}
	t.Fatalf("no sandbox line:\n%s\n%s", out, errs)
}
