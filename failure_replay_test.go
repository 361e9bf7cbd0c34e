package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// A recorded failure replays to the same trace: the same transitions, the
// same retries, the same words. A stream cut in the middle (retried, then
// given up) and a refused connection (not retried) are recorded live, then
// replayed with no server.
func TestRecordedFailuresReplayToTheSameTrace(t *testing.T) {
	var served atomic.Int32
	cutting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write([]byte(`{"model":"llama3.1:8b","created_at":"2026-11-24T15:04:05Z","message":{"role":"assistant","content":"{\""},"done":false}` + "\n"))
		w.(http.Flusher).Flush()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close() // no end of the chunked body: an unexpected EOF
		}
	}))
	defer cutting.Close()

	for _, tc := range []struct {
		name    string
		host    string
		retries int
		says    string
	}{
		{"cut mid-stream", cutting.URL, 3, "the connection to Ollama was cut in the middle of its reply, before done:true (the response body was cut off: unexpected EOF)"},
		{"connection refused", closedAddress(t), 0, "Ollama is not running at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("OLLAMA_HOST", tc.host)
			cassette := filepath.Join(t.TempDir(), "failure.cassette")
			code, live, stderr := runJSON(t, "", "--live", "--provider", "llama", "--record", cassette, "hi")
			if code != exitProvider {
				t.Fatalf("record: exit %d\n%s", code, stderr)
			}
			t.Setenv("OLLAMA_HOST", "")
			code, replayed, stderr := runJSON(t, "", "--provider", "llama", "--replay", cassette, "hi")
			if code != exitProvider {
				t.Fatalf("replay: exit %d\n%s", code, stderr)
			}
			if !slices.Equal(edges(replayed), edges(live)) {
				t.Fatalf("replay edges %v\nlive %v", edges(replayed), edges(live))
			}
			l, r := live[2], replayed[2]
			if len(l.LLM.Retries) != tc.retries || len(r.LLM.Retries) != tc.retries {
				t.Errorf("retries live %d, replayed %d; want %d", len(l.LLM.Retries), len(r.LLM.Retries), tc.retries)
			}
			if !strings.Contains(l.Error.Message, tc.says) || !strings.Contains(r.Error.Message, tc.says) {
				t.Errorf("errors\n live %q\n replayed %q\nwant both to say %q", l.Error.Message, r.Error.Message, tc.says)
			}
			if tc.retries > 0 && l.Error.Message != r.Error.Message {
				t.Errorf("replayed error %q, want the live one %q", r.Error.Message, l.Error.Message)
			}
			if len(r.LLM.Divergences) > 0 {
				t.Errorf("replay diverged: %q", r.LLM.Divergences)
			}
		})
	}
	if n := served.Load(); n != 4 {
		t.Errorf("the cutting server saw %d requests, want 4 (one call, three retries)", n)
	}
}
