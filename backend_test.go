package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/offline"
)

const testKey = "AIzaSy-test-SECRET-key-4242"

// liveServer plays a live Gemini, Ollama or OpenAI-compatible service over
// real HTTP on loopback: the offline handler behind httptest, recording the
// API keys it received (x-goog-api-key, or a bearer token).
func liveServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var keys []string
	h := backend.Simulation(offline.Config{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		key := r.Header.Get("x-goog-api-key")
		if key == "" {
			key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		keys = append(keys, key)
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(keys) }
}

func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	return addr
}

func TestBackendChoice(t *testing.T) {
	srv, _ := liveServer(t)
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		banner string // in the human trace's first line
	}{
		{"gemini without a key runs offline", nil, nil, exitOK, "offline: no GEMINI_API_KEY or GOOGLE_API_KEY is set"},
		{"gemini with a key is live", map[string]string{"GEMINI_API_KEY": testKey, "GOOGLE_GEMINI_BASE_URL": srv.URL}, nil, exitOK, "live: GEMINI_API_KEY is set"},
		{"GOOGLE_API_KEY counts too", map[string]string{"GOOGLE_API_KEY": testKey, "GOOGLE_GEMINI_BASE_URL": srv.URL}, nil, exitOK, "live: GOOGLE_API_KEY is set"},
		{"--offline wins over a key", map[string]string{"GEMINI_API_KEY": testKey}, []string{"--offline"}, exitOK, "offline: --offline"},
		{"llama with OLLAMA_HOST is live", map[string]string{"OLLAMA_HOST": srv.URL}, []string{"--provider", "llama"}, exitOK, "live: OLLAMA_HOST is set"},
		{"the seed's OLLAMA_BASE_URL", map[string]string{"OLLAMA_BASE_URL": srv.URL}, []string{"--provider", "llama", "--tool-mode", "native"}, exitOK, "live: OLLAMA_BASE_URL is set"},
		{"openai without a base URL or key runs offline", nil, []string{"--provider", "openai"}, exitOK, "offline: no OPENAI_BASE_URL or OPENAI_API_KEY is set"},
		{"openai with OPENAI_BASE_URL is live", map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": testKey}, []string{"--provider", "openai"}, exitOK, "live: OPENAI_BASE_URL is set (" + srv.URL + "/v1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errb strings.Builder
			code := runHeadless(t.Context(), slices.Concat(tc.args, []string{"list the files"}), noSleep, strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out.String(), errb.String())
			}
			first, _, _ := strings.Cut(out.String(), "\n")
			if !strings.Contains(first, tc.banner) {
				t.Fatalf("banner %q lacks %q", first, tc.banner)
			}
			if strings.Contains(out.String()+errb.String(), testKey) {
				t.Fatal("the API key appeared in the output")
			}
		})
	}
}

// A live backend that fails is reported, never replaced by the simulation.
func TestLiveFailureNeverFallsBack(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"--live gemini without a key", nil, []string{"--live"}, "no Gemini API key: set GEMINI_API_KEY"},
		{"ollama not running", map[string]string{"OLLAMA_HOST": ""}, []string{"--live", "--provider", "llama"}, "Ollama is not running at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			if tc.name == "ollama not running" {
				t.Setenv("OLLAMA_HOST", closedAddress(t))
			}
			var out, errb strings.Builder
			code := runHeadless(t.Context(), slices.Concat(tc.args, []string{"list the files"}), noSleep, strings.NewReader(""), &out, &errb)
			if code != exitProvider {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitProvider, out.String(), errb.String())
			}
			all := out.String() + errb.String()
			if !strings.Contains(all, tc.want) {
				t.Fatalf("output lacks %q:\n%s", tc.want, all)
			}
			if strings.Contains(all, "offline tutor") {
				t.Fatal("a failed live backend fell back to the offline simulation")
			}
		})
	}
}

// TestRecordReplay records a "live" session (real HTTP, a real key), checks
// the key never reached the cassette, replays it with no key and no server,
// and flags a request that differs from the recording.
func TestRecordReplay(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			isolate(t)
			srv, keys := liveServer(t)
			switch d.name {
			case "gemini":
				t.Setenv("GEMINI_API_KEY", testKey)
				t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
			case "openai":
				t.Setenv("OPENAI_API_KEY", testKey)
				t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
			default:
				t.Setenv("OLLAMA_HOST", srv.URL)
			}
			cassette := filepath.Join(t.TempDir(), "class.cassette")
			args := slices.Concat(d.args, []string{"--live", "--record", cassette, "--lesson", "tour"})
			code, recorded, stderr := runJSON(t, "", args...)
			if code != exitOK {
				t.Fatalf("record: exit %d\n%s", code, stderr)
			}
			if (d.name == "gemini" || d.name == "openai") && !slices.Contains(keys(), testKey) {
				t.Fatalf("the server never saw the key: %v", keys())
			}
			raw, err := os.ReadFile(cassette)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), testKey) || strings.Contains(string(raw), testKey[:12]) {
				t.Fatal("the API key reached the cassette")
			}
			if n := strings.Count(string(raw), "\n"); n != 4 { // header + three model calls
				t.Fatalf("cassette has %d lines, want 4", n)
			}

			// Replay: no key, no server, same transitions.
			srv.Close()
			isolate(t)
			code, replayed, stderr := runJSON(t, "", slices.Concat(d.args, []string{"--replay", cassette, "--lesson", "tour"})...)
			if code != exitOK {
				t.Fatalf("replay: exit %d\n%s", code, stderr)
			}
			if !slices.Equal(edges(replayed), edges(recorded)) {
				t.Fatalf("replay edges %v\nrecorded %v", edges(replayed), edges(recorded))
			}
			for _, l := range replayed {
				if l.LLM != nil && (l.LLM.Backend != "replay" || len(l.LLM.Divergences) > 0) {
					t.Fatalf("replayed llm record: %+v", l.LLM)
				}
			}

			// A different request is served, but flagged.
			_, diverged, _ := runJSON(t, "", slices.Concat(d.args, []string{"--replay", cassette, "show me the files please"})...)
			if len(diverged) < 3 || diverged[2].LLM == nil || len(diverged[2].LLM.Divergences) == 0 {
				t.Fatalf("a different prompt was not flagged as a divergence: %+v", diverged)
			}
		})
	}
}

func TestReplayRefusesTheOtherProvider(t *testing.T) {
	isolate(t)
	cassette := filepath.Join(t.TempDir(), "g.cassette")
	if code, _, stderr := runJSON(t, "", "--offline", "--record", cassette, "--lesson", "tour"); code != exitOK {
		t.Fatalf("record: %s", stderr)
	}
	code, _, stderr := runJSON(t, "", "--provider", "llama", "--replay", cassette, "hi")
	if code != exitUsage || !strings.Contains(stderr, "recorded with --provider gemini") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}

func TestCorruptCassetteIsAClearError(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "bad.cassette")
	if err := os.WriteFile(path, []byte("{\"not\":\"a cassette\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runJSON(t, "", "--replay", path, "hi")
	if code == exitOK || !strings.Contains(stderr, "cassette") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A service that echoes the key back in an error (or an Ollama error line)
// must not carry it onto the screen or into the trace: everything the
// engine records is masked, not only the captured exchanges.
func TestKeyEchoedInAnErrorIsMasked(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-goog-api-key")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"Request with key %s has an invalid argument.","status":"INVALID_ARGUMENT"}}`, key)
	}))
	defer srv.Close()
	t.Setenv("GEMINI_API_KEY", testKey)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	var out, errb strings.Builder
	code := runHeadless(t.Context(), []string{"--trace", trace, "list the files"}, noSleep, strings.NewReader(""), &out, &errb)
	if code != exitProvider {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	all := out.String() + errb.String() + string(raw)
	if strings.Contains(all, testKey) {
		t.Fatalf("the key leaked:\n%s", all)
	}
	if !strings.Contains(all, "has an invalid argument") || !strings.Contains(all, "[REDACTED]") {
		t.Fatalf("the API's message should be shown, with the key masked:\n%s", all)
	}
}

// OPENAI_API_KEY is masked like the others: a server that echoes the key
// back cannot carry it onto the screen, into the trace, the session file or
// the cassette.
func TestOpenAIKeyNeverLeaves(t *testing.T) {
	isolate(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, key)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	trace, cassette := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "c.cassette")
	var out, errb strings.Builder
	code := runHeadless(t.Context(), []string{"--provider", "openai", "--trace", trace, "--record", cassette, "--json", "list the files"}, noSleep, strings.NewReader(""), &out, &errb)
	if code != exitProvider {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	all := out.String() + errb.String()
	for _, root := range []string{dir, state} {
		filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, _ := os.ReadFile(path)
				all += string(b)
			}
			return nil
		})
	}
	if strings.Contains(all, testKey) {
		t.Fatalf("the key leaked:\n%s", all)
	}
	if !strings.Contains(all, "Incorrect API key provided: [REDACTED]") {
		t.Fatalf("the server's message should be shown, with the key masked:\n%s", all)
	}
}
