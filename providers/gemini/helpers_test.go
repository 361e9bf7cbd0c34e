package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

const testKey = "AIzaSyGLASSBOX-test-key-0123456789"

// reply is one canned answer of the fake Gemini server.
type reply struct {
	status int
	file   string // under testdata/; or body
	body   string
	header http.Header
}

// seenRequest is what the fake server received.
type seenRequest struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// fakeGemini replays testdata files in order, the way the real API would
// answer, and keeps every request it saw.
type fakeGemini struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	seen    []seenRequest
}

func newFakeGemini(t *testing.T, replies ...reply) *fakeGemini {
	t.Helper()
	f := &fakeGemini{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	n := len(f.seen)
	f.mu.Unlock()
	if n > len(f.replies) {
		f.t.Errorf("the fake Gemini got request #%d but has only %d replies", n, len(f.replies))
		http.Error(w, "no reply", http.StatusInternalServerError)
		return
	}
	rp := f.replies[n-1]
	payload := []byte(rp.body)
	if rp.file != "" {
		payload = readTestdata(f.t, rp.file)
	}
	for k, v := range rp.header {
		w.Header()[k] = v
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	if status == http.StatusOK && r.URL.Query().Get("alt") == "sse" && !bytes.HasPrefix(payload, []byte("data:")) {
		// A unary reply asked for as a stream: one event holding the
		// whole reply, as the service sends a short one.
		var compact bytes.Buffer
		if err := json.Compact(&compact, payload); err != nil {
			f.t.Errorf("reply %s is not JSON: %v", rp.file, err)
		}
		payload = append(append([]byte("data: "), compact.Bytes()...), "\r\n\r\n"...)
		w.Header().Set("Content-Type", "text/event-stream")
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	}
	w.WriteHeader(status)
	w.Write(payload)
}

func (f *fakeGemini) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("reading testdata: %v", err)
	}
	return b
}

// clearEnv keeps the developer's own keys and base URL out of the tests.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"} {
		t.Setenv(v, "")
	}
}

// newTestProvider talks to f with testKey.
func newTestProvider(t *testing.T, f *fakeGemini, cfg Config) *Provider {
	t.Helper()
	clearEnv(t)
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	if cfg.BaseURL == "" && f != nil {
		cfg.BaseURL = f.srv.URL
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decodeJSON decodes b into a generic value for comparisons that ignore
// spacing and key order.
func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// at walks a decoded JSON value along keys (string) and indexes (int).
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %v is not an object", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: %v has no element %d", path, v, k)
			}
			v = a[k]
		}
	}
	return v
}

func jsonEqual(t *testing.T, got any, want string) bool {
	t.Helper()
	return reflect.DeepEqual(got, decodeJSON(t, []byte(want)))
}
