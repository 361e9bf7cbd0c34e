package agentrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDotEnv(t *testing.T) {
	vals, err := parseDotEnv(strings.NewReader("# comment\n\nexport A=1\nB = \"two words\"\nC='x'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if vals["A"] != "1" || vals["B"] != "two words" || vals["C"] != "x" {
		t.Fatalf("vals = %v", vals)
	}
	if _, err := parseDotEnv(strings.NewReader("A=1\nnot a pair\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want a line number", err)
	}
}

// A .env in a folder someone else prepared may set glassbox's own variables
// only: PYTHONPATH there must not change what every command runs.
func TestReadDotEnvKeepsOnlyGlassboxVariables(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	body := "GEMINI_API_KEY=k-123456\nPYTHONPATH=/evil\nGOOGLE_GEMINI_BASE_URL=http://proxy.example\nLD_PRELOAD=/x.so\nOLLAMA_HOST=localhost:9\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	vals, ignored, err := ReadDotEnv(path)
	if err != nil {
		t.Fatal(err)
	}
	if vals["GEMINI_API_KEY"] != "k-123456" || vals["GOOGLE_GEMINI_BASE_URL"] != "http://proxy.example" || vals["OLLAMA_HOST"] != "localhost:9" {
		t.Fatalf("vals = %v", vals)
	}
	if _, ok := vals["PYTHONPATH"]; ok {
		t.Fatal("PYTHONPATH was kept")
	}
	if strings.Join(ignored, ",") != "LD_PRELOAD,PYTHONPATH" {
		t.Fatalf("ignored = %v", ignored)
	}
	if vals, ignored, err := ReadDotEnv(filepath.Join(t.TempDir(), "none")); vals != nil || ignored != nil || err != nil {
		t.Fatalf("a missing .env: %v %v %v", vals, ignored, err)
	}
}

func TestReadDotEnvRefusesHugeAndOddFiles(t *testing.T) {
	if _, _, err := ReadDotEnv(t.TempDir()); err == nil {
		t.Fatal("a folder as .env was accepted")
	}
	big := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(big, []byte(strings.Repeat("A=1\n", 40000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadDotEnv(big); err == nil || !strings.Contains(err.Error(), "KiB") {
		t.Fatalf("err = %v, want the size cap named", err)
	}
}

// The environment wins over .env; .env fills what the environment leaves unset.
func TestApplyEnvLayers(t *testing.T) {
	env := map[string]string{"GEMINI_API_KEY": "from-env-1234"}
	dot := map[string]string{"GEMINI_API_KEY": "from-dotenv-1234", "GOOGLE_API_KEY": "google-from-dotenv", "OLLAMA_HOST": "localhost:9"}
	c := Defaults(true)
	c.ApplyEnv(Layered(func(k string) string { return env[k] }, func(k string) string { return dot[k] }))
	// GOOGLE_API_KEY wins over GEMINI_API_KEY, as in the SDK.
	if name, key := c.Env.First("GOOGLE_API_KEY", "GEMINI_API_KEY"); key != "google-from-dotenv" || name != "GOOGLE_API_KEY" {
		t.Fatalf("key %q from %s", key, name)
	}
	if got := strings.Join(c.Env.Secrets(), ","); got != "google-from-dotenv,from-env-1234" {
		t.Fatalf("secrets = %s", got)
	}
	if host := c.Env.Get("OLLAMA_HOST"); host != "localhost:9" {
		t.Fatalf("OLLAMA_HOST = %s", host)
	}
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(*Config)
		want string // "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"llama native", func(c *Config) { c.Provider, c.ToolMode = "llama", "native" }, ""},
		{"tool mode with gemini", func(c *Config) { c.ToolMode = "native" }, "does not apply to --provider gemini"},
		{"bad provider", func(c *Config) { c.Provider = "claude" }, `--provider "claude"`},
		{"bad tool mode", func(c *Config) { c.Provider, c.ToolMode = "llama", "xml" }, `--tool-mode "xml"`},
		{"offline and live", func(c *Config) { c.Offline, c.Live = true, true }, "contradict"},
		{"replay and record", func(c *Config) { c.Replay, c.Record = file, file+"2" }, "cannot be used together"},
		{"missing workspace", func(c *Config) { c.Workspace = filepath.Join(dir, "nope") }, "mkdir -p"},
		{"workspace is a file", func(c *Config) { c.Workspace = file }, "not a folder"},
		{"record into a missing folder", func(c *Config) { c.Record = filepath.Join(dir, "no", "x.cassette") }, "does not exist"},
		{"trace is a folder", func(c *Config) { c.Trace = dir }, "is a folder"},
		{"unknown lesson", func(c *Config) { c.Lesson = "nope" }, `no lesson named "nope"`},
		{"zero iterations", func(c *Config) { c.MaxIterations = 0 }, "at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults(true)
			tc.edit(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The OpenAI-compatible dialect's variables come from .env like the
// others; an address only .env sets is announced, and the key is a secret.
func TestDotEnvKnowsTheOpenAIVariables(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte("OPENAI_BASE_URL=http://elsewhere.example/v1\nOPENAI_API_KEY=sk-dotenv-123456\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vals, ignored, err := ReadDotEnv(path)
	if err != nil || len(ignored) != 0 || vals["OPENAI_BASE_URL"] != "http://elsewhere.example/v1" {
		t.Fatalf("vals %v, ignored %v, err %v", vals, ignored, err)
	}
	var said []string
	for _, w := range DotEnvAddresses(vals, func(string) string { return "" }) {
		said = append(said, w.Error())
	}
	warnings := strings.Join(said, "\n")
	if !strings.Contains(warnings, "OPENAI_BASE_URL=http://elsewhere.example/v1 is set here: live OpenAI-compatible calls, with OPENAI_API_KEY, go to http://elsewhere.example/v1") {
		t.Fatalf("warnings: %s", warnings)
	}
	c := Defaults(true)
	c.ApplyEnv(func(k string) string { return vals[k] })
	if got := c.Env.Secrets(); len(got) != 1 || got[0] != "sk-dotenv-123456" {
		t.Fatalf("secrets %v", got)
	}
}
