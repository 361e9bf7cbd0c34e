package backend

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

func TestFor(t *testing.T) {
	tests := []struct {
		provider, mode string
		want           string // dialect name, or an error's words
	}{
		{"gemini", "", "gemini"},
		{"llama", "", "llama"},
		{"llama", "json", "llama"},
		{"llama", "native", "llama:native"},
		{"gemini", "native", "does not apply to --provider gemini"},
		{"llama", "xml", `--tool-mode "xml": want json or native`},
		{"claude", "", `--provider "claude": want gemini, llama (or ollama)`},
		// ollama is what people type: an alias of llama, both tool modes.
		{"ollama", "", "llama"},
		{"ollama", "native", "llama:native"},
	}
	for _, tc := range tests {
		d, err := For(tc.provider, tc.mode)
		got := d.Name
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("For(%q, %q) = %q, want %q", tc.provider, tc.mode, got, tc.want)
		}
	}
	if d, ok := Lookup("ollama:native"); !ok || d.Name != "llama:native" {
		t.Errorf("Lookup(ollama:native) = %q, %v", d.Name, ok)
	}
	for _, d := range Dialects() {
		if got, ok := Lookup(d.Name); !ok || got.Name != d.Name {
			t.Errorf("Lookup(%q) failed", d.Name)
		}
	}
}

func offlineEnv() Env {
	return EnvFrom(func(string) string { return "" })
}

// A key going anywhere but Google's endpoint is said in the reason, so a
// .env or proxy cannot send it elsewhere unseen.
func TestLiveReasonSaysWhereTheKeyGoes(t *testing.T) {
	d, _ := Lookup("gemini")
	vars := map[string]string{"GEMINI_API_KEY": "k-1234567", "GOOGLE_GEMINI_BASE_URL": "http://proxy.example:8080"}
	env := EnvFrom(func(k string) string { return vars[k] })
	b, err := Choose(context.Background(), Options{Dialect: d, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != KindLive || !strings.Contains(b.Reason, "the key goes to http://proxy.example:8080") {
		t.Fatalf("%s: %s", b.Kind, b.Reason)
	}
	delete(vars, "GOOGLE_GEMINI_BASE_URL")
	env = EnvFrom(func(k string) string { return vars[k] })
	if b, _ = Choose(context.Background(), Options{Dialect: d, Env: env}); strings.Contains(b.Reason, "goes to") {
		t.Fatalf("the default endpoint needs no warning: %s", b.Reason)
	}
}

func TestOfflineForEveryDialect(t *testing.T) {
	for _, d := range Dialects() {
		b, err := Choose(context.Background(), Options{Dialect: d, Offline: true, Env: offlineEnv()})
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if b.Kind != KindOffline || b.Provider.Name() != d.Provider || !strings.Contains(b.Describe(), "offline: --offline") {
			t.Fatalf("%s: %s", d.Name, b.Describe())
		}
		if d.ToolMode != "" && !strings.Contains(b.Describe(), d.ToolMode+" mode") {
			t.Fatalf("%s: the banner does not name the tool mode: %s", d.Name, b.Describe())
		}
	}
}

func writeCassette(t *testing.T, provider, mode string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.cassette")
	w, err := providers.NewCassetteWriter(path, providers.CassetteHeader{Provider: provider, Model: "m", ToolMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReplayChecksTheCassettesProvider(t *testing.T) {
	gem, _ := Lookup("gemini")
	llama, _ := Lookup("llama")
	if _, err := Choose(context.Background(), Options{Dialect: gem, Replay: writeCassette(t, "nonsense", ""), Env: offlineEnv()}); err == nil ||
		!strings.Contains(err.Error(), `names the provider "nonsense"`) || strings.Contains(err.Error(), "--provider nonsense") {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := Choose(context.Background(), Options{Dialect: llama, Replay: writeCassette(t, "gemini", ""), Env: offlineEnv()}); err == nil ||
		!strings.Contains(err.Error(), "run with --provider gemini") {
		t.Fatalf("other provider: %v", err)
	}
	// The cassette knows the tool mode: replaying a native recording uses native.
	b, err := Choose(context.Background(), Options{Dialect: llama, Replay: writeCassette(t, "llama", "native"), Env: offlineEnv()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Dialect.Name != "llama:native" || b.Kind != KindReplay || b.Provider.Model() != "m" {
		t.Fatalf("replay: %s %s %s", b.Dialect.Name, b.Kind, b.Provider.Model())
	}
}

// Recording goes through the capture's exchange hook: every exchange of a
// call reaches the cassette, on both providers.
func TestRecordWritesEveryExchange(t *testing.T) {
	for _, d := range Dialects() {
		t.Run(d.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.cassette")
			b, err := Choose(context.Background(), Options{Dialect: d, Offline: true, Record: path, Env: offlineEnv()})
			if err != nil {
				t.Fatal(err)
			}
			req := providers.Request{System: "s", Messages: []history.Message{{Role: history.RoleUser, Text: "list the files"}}}
			if _, err := b.Provider.Call(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			c, err := providers.LoadCassette(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Exchanges) != 1 || c.Header.Provider != d.Provider || c.Header.ToolMode != d.ToolMode {
				t.Fatalf("cassette: %d exchanges, header %+v", len(c.Exchanges), c.Header)
			}
			raw, _ := os.ReadFile(path)
			if strings.Contains(string(raw), dialect.PlaceholderKey) {
				t.Fatal("the placeholder key reached the cassette")
			}
		})
	}
}

// The OpenAI-compatible dialect is live when OPENAI_BASE_URL or
// OPENAI_API_KEY is set; with the key alone the banner says the calls go to
// OpenAI's own service.
func TestOpenAIAutoRule(t *testing.T) {
	d, ok := Lookup("openai")
	if !ok {
		t.Fatal("no openai dialect")
	}
	for _, tc := range []struct {
		vars map[string]string
		kind string
		says string
	}{
		{nil, KindOffline, "no OPENAI_BASE_URL or OPENAI_API_KEY is set"},
		{map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, KindLive, "OPENAI_BASE_URL is set (http://127.0.0.1:9/v1)"},
		{map[string]string{"OPENAI_API_KEY": "sk-x-123456"}, KindLive, "OPENAI_API_KEY is set: the calls go to https://api.openai.com/v1, OpenAI's own service"},
	} {
		env := EnvFrom(func(k string) string { return tc.vars[k] })
		b, err := Choose(context.Background(), Options{Dialect: d, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if b.Kind != tc.kind || !strings.Contains(b.Reason, tc.says) {
			t.Errorf("%v: %s: %s", tc.vars, b.Kind, b.Reason)
		}
	}
}

// A dialect brings its own words in both languages — its label, its short
// name, what its way to go live turns on, and the words of its lesson
// quirks — so adding one touches no catalogue; each is written in
// Japanese, and each dialect has an emulator and quirks.
func TestEveryDialectSaysItsWordsInJapanese(t *testing.T) {
	japanese := func(s string) bool {
		for _, r := range s {
			if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
				return true
			}
		}
		return false
	}
	for _, d := range Dialects() {
		if d.Emulator == nil || d.Quirks == nil {
			t.Errorf("%s: no emulator or quirks: it cannot run offline", d.Name)
			continue
		}
		words := map[string]dialect.Words{
			"label": {EN: d.Label, JA: d.LabelJA}, "short name": {EN: d.Short, JA: d.ShortJA},
			"go-live target": d.GoLive.For, "name in the tutor's sentences": d.Quirks.Name,
			"malformed reply": d.Quirks.Malformed, "cut reply": d.Quirks.Cut, "repeat stop": d.Quirks.RepeatStop,
		}
		for what, w := range words {
			switch {
			case w.EN == "" && w.JA == "":
				// a quirk the dialect does not have
			case w.EN == "" || w.JA == "":
				t.Errorf("%s: the %s is %q in English and %q in Japanese", d.Name, what, w.EN, w.JA)
			case japanese(w.EN) || w.JA != w.EN && !japanese(w.JA):
				t.Errorf("%s: the %s %q / %q is not English and Japanese", d.Name, what, w.EN, w.JA)
			}
		}
		if d.LabelIn("ja") != d.LabelJA || d.LabelIn("en") != d.Label || d.ShortIn("ja") != d.ShortJA {
			t.Errorf("%s: LabelIn/ShortIn pick the wrong language", d.Name)
		}
	}
}

// The fixed registry's codecs are its dialects' (before, Wire kept every
// registered dialect's codec after UseFixedForTests).
func TestUseFixedForTestsFixesTheCodecsToo(t *testing.T) {
	saved, savedCodecs := dialects, codecs
	t.Cleanup(func() { dialects, codecs = saved, savedCodecs })
	dialects = append(slices.Clone(dialects), Dialect{Name: "scratch", Wire: &wire.Codec{Family: "scratch"}})
	codecs = wireCodecs(dialects)
	UseFixedForTests()
	var got []string
	for _, c := range Wire() {
		got = append(got, c.Family)
	}
	if !slices.Equal(got, []string{"gemini", "ollama", "openai"}) {
		t.Fatalf("Wire() after UseFixedForTests: %v", got)
	}
}
