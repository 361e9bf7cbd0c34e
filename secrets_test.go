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
)

// Issue 12 item 6: a server that echoes the key base64-encoded (or in hex)
// leaves neither the trace nor the cassette with it.
func TestEncodedKeyEchoIsMaskedInTraceAndCassette(t *testing.T) {
	isolate(t)
	b64 := base64.StdEncoding.EncodeToString([]byte("key=" + testKey))
	hx := hex.EncodeToString([]byte(testKey))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", b64)
		fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"your key: %s / %s"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":3,"totalTokenCount":6}}`, b64, hx)
	}))
	defer srv.Close()
	t.Setenv("GEMINI_API_KEY", testKey)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	dir := t.TempDir()
	cassette, trace := filepath.Join(dir, "c.cassette"), filepath.Join(dir, "t.jsonl")
	code, _, stderr := runJSON(t, "", "--live", "--record", cassette, "--trace", trace, "hi")
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
