package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 20: an Ollama whose model is stopped by the repeat limit on every
// reply. The first reply is fed back; the second, the same failure, halts
// the run (exit 3) with the cause named, after 2 model calls, not 10.
func TestRepeatedRepeatStopHalts(t *testing.T) {
	isolate(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "application/x-ndjson")
		for range 32 { // the same token, then a clean end with no done line
			fmt.Fprintln(w, `{"model":"llama3.1:8b","created_at":"2026-11-24T15:04:05Z","message":{"role":"assistant","content":" is"},"done":false}`)
		}
	}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", srv.URL)
	code, lines, stderr := runJSON(t, "", "--provider", "llama", "--tool-mode", "native", "--live", "list the files")
	if code != exitHalted {
		t.Fatalf("exit %d, want %d (halted); edges %v; stderr:\n%s", code, exitHalted, edges(lines), stderr)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	want := "2 replies in a row were stopped by Ollama's repeat limit"
	if !strings.Contains(stderr, "glassbox run: halted: "+want) {
		t.Errorf("stderr = %q, want the halt named", stderr)
	}
	last := lines[len(lines)-1]
	if last.Output == nil || !last.Output.Halted || !strings.Contains(last.Output.Text, want) ||
		!strings.Contains(last.Output.Text, "the last reply's stop reason: incomplete") {
		t.Errorf("last record %+v, want the HALTED message with the cause and the last stop reason", last.Output)
	}
	if got := strings.Join(edges(lines), " "); !strings.HasPrefix(got, "new_event context_ready malformed_response observed context_ready llm_failure reported") {
		t.Errorf("edges %s", got)
	}
}

// A stalled call is a transport failure on screen and in the trace, and is
// retried like the others: here a Gemini that never answers, --stall 50ms.
func TestStalledCallIsRetriedAndNamed(t *testing.T) {
	isolate(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // silent after the headers
	}))
	defer srv.Close()
	t.Setenv("GEMINI_API_KEY", "AIzaSy-test-key-for-the-stall-0000")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	code, lines, stderr := runJSON(t, "", "--live", "--stall", "50ms", "hi")
	if code != exitProvider {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitProvider, stderr)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d attempts, want 4 (3 retries)", n)
	}
	var failed *traceLine
	for i := range lines {
		if lines[i].Edge == "llm_failure" {
			failed = &lines[i]
		}
	}
	if failed == nil || len(failed.LLM.Retries) != 3 || !strings.Contains(failed.Error.Message, "the call stalled: no byte arrived for 50ms (the --stall limit)") {
		t.Fatalf("llm_failure record %+v, want 3 retries and the stall named", failed)
	}
	if !strings.Contains(stderr, "the call stalled") {
		t.Errorf("stderr = %q, want the stall named", stderr)
	}
}

// The flags' values are checked before anything starts.
func TestCallLimitFlagsAreChecked(t *testing.T) {
	isolate(t)
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--stall", "0s", "hi"}, "--stall 0s: want a duration above zero"},
		{[]string{"run", "--call-timeout", "-1m", "hi"}, "--call-timeout -1m0s: want a duration above zero"},
		{[]string{"run", "--num-predict", "0", "hi"}, "--num-predict 0: want a number of tokens"},
		{[]string{"run", "--stream=maybe", "hi"}, "want true or false"},
	} {
		var out, errb strings.Builder
		if code := realMain(t.Context(), tt.args, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tt.says) {
			t.Errorf("%v: exit %d, stderr %q; want usage naming %q", tt.args, code, errb.String(), tt.says)
		}
	}
}

// The call flags work in both modes: the TUI's configuration and run's.
func TestCallFlagsInBothModes(t *testing.T) {
	isolate(t)
	for _, headless := range []bool{false, true} {
		c, _, err := loadConfig("glassbox", []string{"--stream=false", "--stall", "5s", "--call-timeout", "2m", "--num-predict", "512"}, headless, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Call.Unary || c.Call.Limits.Stall != 5e9 || c.Call.Limits.Call != 120e9 || c.Call.NumPredict != 512 {
			t.Errorf("headless %v: Call = %+v", headless, c.Call)
		}
		d, _, err := loadConfig("glassbox", nil, headless, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if d.Call.Unary || d.Call.Limits.Stall != 60e9 || d.Call.Limits.Call != 600e9 || d.Call.NumPredict != 4096 {
			t.Errorf("headless %v: defaults = %+v, want streaming, 60s, 10m, 4096", headless, d.Call)
		}
	}
}
