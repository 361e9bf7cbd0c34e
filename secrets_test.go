package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers"
)

// recordLive runs glassbox live with --record and --trace against a Gemini
// that answers text (and an X-Echo header when echo is set).
func recordLive(t *testing.T, echo, text string) (cassette, trace string, code int, stderr string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if echo != "" {
			w.Header().Set("X-Echo", echo)
		}
		writeGeminiReply(w, r, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":"%s"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":3,"totalTokenCount":6}}`, text))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("GEMINI_API_KEY", testKey)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	dir := t.TempDir()
	cassette, trace = filepath.Join(dir, "c.cassette"), filepath.Join(dir, "t.jsonl")
	code, _, stderr = runJSON(t, "", "--live", "--record", cassette, "--trace", trace, "hi")
	return cassette, trace, code, stderr
}

// Issue 12 item 6: a server that echoes the key base64-encoded (or in hex)
// leaves neither the trace nor the cassette with it.
func TestEncodedKeyEchoIsMaskedInTraceAndCassette(t *testing.T) {
	isolate(t)
	b64 := base64.StdEncoding.EncodeToString([]byte("key=" + testKey))
	hx := hex.EncodeToString([]byte(testKey))
	cassette, trace, code, stderr := recordLive(t, b64, fmt.Sprintf("your key: %s / %s", b64, hx))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, path := range []string{cassette, trace} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "[REDACTED]") {
			t.Fatalf("%s masked nothing", path)
		}
		for _, leak := range []string{testKey, hx} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s holds the key spelled %q", path, leak[:10])
			}
		}
		for off := range 3 {
			enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), []byte(testKey)...))
			if seg := enc[4 : len(enc)-4]; strings.Contains(string(b), seg) {
				t.Errorf("%s holds the key base64-encoded (offset %d)", path, off)
			}
		}
	}
}

// Issue 12 item 9: a 50 MB provider response is cut off at the cap with an
// error that names it, and neither trace nor cassette grows past it.
func TestHugeResponseIsCapped(t *testing.T) {
	isolate(t)
	filler := strings.Repeat("x", 50<<20)
	cassette, trace, code, stderr := recordLive(t, "", filler)
	if code != exitProvider || !strings.Contains(stderr, "larger than the 8 MiB glassbox reads from a provider") {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	for _, path := range []string{cassette, trace} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// The cassette holds the body once and its chunks once.
		if st.Size() > 2*providers.MaxResponseBytes+1<<20 {
			t.Errorf("%s is %d bytes", path, st.Size())
		}
	}
}

// Issue 12 item 11: a cassette naming a provider glassbox does not know gets
// a clear sentence, not "run with --provider nonsense".
func TestCassetteWithUnknownProvider(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "odd.cassette")
	if err := os.WriteFile(path, []byte(`{"glassbox_cassette":1,"provider":"nonsense","model":"m","tool_mode":"","recorded_at":"2026-11-21T06:59:14Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runJSON(t, "", "--replay", path, "hi")
	if code == exitOK || !strings.Contains(stderr, `names the provider "nonsense", which glassbox does not know`) || strings.Contains(stderr, "--provider nonsense") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
