package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noSleep makes retry waits instant while still honouring cancellation.
func noSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// isolate keeps the developer's environment out of a test: no keys, no
// Ollama host, no base URL overrides, no .env in the working directory.
func isolate(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OLLAMA_HOST", "OLLAMA_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"} {
		t.Setenv(k, "")
	}
	t.Chdir(t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())         // the sample workspace copies go here and are cleaned up
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // sessions are saved here
}

type traceLine struct {
	Run       string `json:"run"`
	Seq       int    `json:"seq"`
	From      string `json:"from"`
	To        string `json:"to"`
	Edge      string `json:"edge"`
	Iteration int    `json:"iteration"`
	Event     *struct {
		Data string `json:"data"`
	} `json:"event"`
	LLM *struct {
		Provider   string `json:"provider"`
		Backend    string `json:"backend"`
		StopReason string `json:"stop_reason"`
		Retries    []struct {
			Attempt int `json:"attempt"`
			Status  int `json:"status"`
		} `json:"retries"`
		Divergences []string `json:"divergences"`
		HTTPStatus  int      `json:"http_status"`
	} `json:"llm"`
	Decision *struct {
		Verdict string `json:"verdict"`
		Rule    string `json:"rule"`
	} `json:"decision"`
	Output *struct {
		Text   string `json:"text"`
		Halted bool   `json:"halted"`
	} `json:"output"`
	Error *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	MCP []struct {
		Server string          `json:"server"`
		Dir    string          `json:"dir"`
		Method string          `json:"method"`
		Body   json.RawMessage `json:"body"`
		Error  string          `json:"error"`
	} `json:"mcp"`
	Summary *struct {
		Outcome     string `json:"outcome"`
		Backend     string `json:"backend"`
		Transitions int    `json:"transitions"`
		ModelCalls  int    `json:"model_calls"`
	} `json:"summary"`
}

// runJSON runs `glassbox run --json ARGS` in-process and parses the trace.
func runJSON(t *testing.T, stdin string, args ...string) (int, []traceLine, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runHeadless(context.Background(), append([]string{"--json"}, args...), noSleep, strings.NewReader(stdin), &out, &errb)
	var lines []traceLine
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line is not JSON: %v\n%s", err, sc.Text())
		}
		lines = append(lines, l)
	}
	return code, lines, errb.String()
}

func edges(lines []traceLine) []string {
	var e []string
	for _, l := range lines {
		e = append(e, l.Edge)
	}
	return e
}

func TestVersionAndUsage(t *testing.T) {
	isolate(t)
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"version", []string{"version"}, exitOK, "glassbox "},
		{"help", []string{"help"}, exitOK, "glassbox run [flags] PROMPT"},
		{"bad provider", []string{"run", "--provider", "claude", "hi"}, exitUsage, `--provider "claude": want gemini, llama (or ollama)`},
		// ollama is what people type for Llama (issue 20).
		{"ollama is llama", []string{"run", "--offline", "--provider", "ollama", "list the files"}, exitOK, "llama llama3.1:8b (json mode)"},
		{"ollama with native tools", []string{"run", "--offline", "--provider", "ollama", "--tool-mode", "native", "list the files"}, exitOK, "llama llama3.1:8b (native mode)"},
		{"bad tool mode", []string{"run", "--tool-mode", "xml", "hi"}, exitUsage, `--tool-mode "xml"`},
		{"offline and live", []string{"run", "--offline", "--live", "hi"}, exitUsage, "contradict"},
		{"unknown flag", []string{"run", "--frobnicate", "hi"}, exitUsage, "frobnicate"},
		{"zero iterations", []string{"run", "--max-iterations", "0", "hi"}, exitUsage, "at least 1"},
		{"unknown lesson", []string{"run", "--lesson", "nope"}, exitUsage, `no lesson named "nope"`},
		{"unknown language", []string{"run", "--lang", "fr", "hi"}, exitUsage, `--lang: unknown language "fr": use en or ja`},
		{"missing policy file", []string{"run", "--policy", "/nonexistent/p.toml", "hi"}, exitUsage, "policy file"},
		{"lessons takes no args", []string{"lessons", "x"}, exitUsage, "no arguments"},
		{"a flag after the prompt", []string{"run", "--offline", "list the files", "--json"}, exitUsage, "flags go before it"},
		{"missing workspace", []string{"run", "--workspace", "/nonexistent/ws", "hi"}, exitUsage, "mkdir -p /nonexistent/ws"},
		{"tool mode with gemini", []string{"run", "--tool-mode", "native", "hi"}, exitUsage, "does not apply to --provider gemini"},
		{"trace into a missing folder", []string{"run", "--trace", "/nonexistent/t.jsonl", "hi"}, exitUsage, "does not exist"},
		{"unknown lesson with a prompt", []string{"run", "--lesson", "bogus", "hi"}, exitUsage, `no lesson named "bogus"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			if got := out.String() + errb.String(); !strings.Contains(got, tc.out) {
				t.Fatalf("output lacks %q:\n%s", tc.out, got)
			}
		})
	}
}

func TestPolicyNamingAnUnknownToolIsRefused(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(path, []byte("[[rule]]\nname = 'no-shell'\nverdict = 'DENY'\ntools = ['execute-command']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--offline", "--policy", path, "hi"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), `names the tool "execute-command"`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// The sample project's copy is the session's own workspace: kept with the
// session so that it can be resumed; --workspace is used in place.
func TestSessionKeepsItsWorkspace(t *testing.T) {
	isolate(t)
	var out, errb bytes.Buffer
	if code := realMain(context.Background(), []string{"run", "--offline", "list the files"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	line := strings.SplitN(out.String(), "\n", 3)[1]
	dir, _, ok := strings.Cut(strings.TrimPrefix(line, "workspace: "), " (kept with the session)")
	if !ok {
		t.Fatalf("workspace line %q does not say the workspace is kept with the session", line)
	}
	saved := regexp.MustCompile(`session saved: (\S+)\nresume it with: glassbox run --resume (\S+)\n`).FindStringSubmatch(errb.String())
	if saved == nil {
		t.Fatalf("stderr does not say where the session is:\n%s", errb.String())
	}
	if !strings.HasPrefix(dir, strings.TrimSuffix(saved[1], ".jsonl")+".files"+string(os.PathSeparator)) {
		t.Fatalf("the workspace %s is not beside the session %s", dir, saved[1])
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.py")); err != nil {
		t.Fatalf("the session's workspace is gone: %v", err)
	}
	kept := t.TempDir()
	out.Reset()
	if code := realMain(context.Background(), []string{"run", "--offline", "--workspace", kept, "list the files"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if line := strings.SplitN(out.String(), "\n", 3)[1]; line != "workspace: "+kept {
		t.Fatalf("--workspace line %q", line)
	}
}

func TestTUINeedsATerminal(t *testing.T) {
	isolate(t)
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"--offline"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), "needs a terminal") || !strings.Contains(errb.String(), "glassbox run") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// A failing start never destroys what a person kept: everything is checked
// before the cassette is created.
func TestRecordKeepsAnExistingCassetteWhenStartFails(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cassette := filepath.Join(dir, "kept.cassette")
	if code, _, stderr := runJSON(t, "", "--offline", "--record", cassette, "--lesson", "tour"); code != exitOK {
		t.Fatalf("record: %s", stderr)
	}
	before, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	badPolicy := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badPolicy, []byte("not toml ["), 0o644); err != nil {
		t.Fatal(err)
	}
	// A trace that passes the checks but cannot be opened: a link to a
	// folder that does not exist (the cassette would already be open).
	dangling := filepath.Join(dir, "dangling.jsonl")
	if err := os.Symlink(filepath.Join(dir, "missing", "t.jsonl"), dangling); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"bad policy":        {"--policy", badPolicy},
		"bad workspace":     {"--workspace", filepath.Join(dir, "missing")},
		"bad trace":         {"--trace", filepath.Join(dir, "missing", "t.jsonl")},
		"unopenable trace":  {"--trace", dangling},
		"usage after start": {"--max-iterations", "0"},
	} {
		code, _, stderr := runJSON(t, "", append([]string{"--offline", "--record", cassette}, append(args, "hi")...)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d (%s)", name, code, exitUsage, stderr)
		}
		after, err := os.ReadFile(cassette)
		if err != nil || string(after) != string(before) {
			t.Fatalf("%s: the cassette changed from %d to %d bytes (%v)", name, len(before), len(after), err)
		}
	}
	// Interrupted before the first model call: nothing was recorded, so the
	// kept cassette stays.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	runHeadless(ctx, []string{"--json", "--offline", "--record", cassette, "hi"}, noSleep, strings.NewReader(""), &out, &errb)
	if after, err := os.ReadFile(cassette); err != nil || string(after) != string(before) {
		t.Fatalf("interrupted: the cassette changed from %d to %d bytes (%v)", len(before), len(after), err)
	}
	// A run that records replaces it whole, and leaves no temporary file.
	if code, _, stderr := runJSON(t, "", "--offline", "--record", cassette, "--lesson", "path-escape"); code != exitOK {
		t.Fatalf("record again: %s", stderr)
	}
	if after, _ := os.ReadFile(cassette); string(after) == string(before) {
		t.Fatal("a new recording did not replace the cassette")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// Issue 12 item 8: a .env that points the key elsewhere is said out loud
// before anything is sent, and its other variables never reach a command.
func TestDotEnvAddressIsShownLoudly(t *testing.T) {
	isolate(t)
	if err := os.WriteFile(".env", []byte("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal\nPYTHONPATH=/evil\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runJSON(t, "", "--offline", "hi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal is set here", "with the Gemini key, go to http://127.0.0.1:9/steal instead of Google", "ignored PYTHONPATH"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if os.Getenv("PYTHONPATH") == "/evil" {
		t.Fatal("PYTHONPATH from .env reached the environment commands inherit")
	}
	// The environment's own value is the person's choice: no warning.
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9/mine")
	if _, _, stderr := runJSON(t, "", "--offline", "hi"); strings.Contains(stderr, "is set here") {
		t.Fatalf("warned about the environment's own value: %s", stderr)
	}
}

// A count agrees with its noun everywhere a run reports one: with
// --max-iterations 1 the halt says "1 model call", never "1 model calls".
func TestCountsAgreeWithTheirNumber(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"run", "--offline", "--lesson", "iteration-limit", "--max-iterations", "1"},
		{"run", "--offline", "--compare", "--lesson", "iteration-limit", "--max-iterations", "1"},
	} {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitHalted {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
		all := out.String() + errb.String()
		for _, want := range []string{"(1 model call for one request)", "stopped after 1 model call without"} {
			if !strings.Contains(all, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, all)
			}
		}
		if strings.Contains(all, "1 model calls") {
			t.Errorf("%v: %q in\n%s", args, "1 model calls", all)
		}
	}
	// The offline tutor counts a file's lines the same way.
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "one.txt"), []byte("just this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := realMain(context.Background(), []string{"run", "--offline", "--workspace", ws, "read one.txt"}, strings.NewReader(""), &out, &errb); code != exitOK || !strings.Contains(out.String(), "one.txt (1 line):") {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
}
