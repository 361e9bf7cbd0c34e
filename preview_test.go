package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/headless"
)

// The request shown before it is sent (AWAITING_LLM_RESPONSE, "i" stops
// there) is byte for byte the request the next step puts on the wire, for
// every dialect, and previewing it records nothing.
func TestPreviewIsTheRequestThatGoesOut(t *testing.T) {
	for _, dialect := range []struct{ provider, mode string }{{"gemini", ""}, {"llama", "json"}, {"llama", "native"}} {
		t.Run(dialect.provider+":"+dialect.mode, func(t *testing.T) {
			isolate(t)
			c := agentrun.Defaults(true)
			c.Provider, c.ToolMode, c.Offline, c.SimLatency = dialect.provider, dialect.mode, true, 0
			c.Record = filepath.Join(t.TempDir(), "class.cassette")
			r, err := agentrun.Open(t.Context(), c, headless.NewPerson(strings.NewReader(""), io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			eng := r.Engine
			if _, err := eng.PreviewRequest(t.Context()); err == nil {
				t.Fatal("a preview in WAITING_FOR_EVENT should say no request is assembled")
			}
			eng.Submit(loop.Event{Source: "cli", Type: "user_input", Data: "List the files in this project and tell me what hello.py does."})
			for eng.State() != loop.AwaitingLLMResponse {
				if _, err := eng.Step(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			pre, err := eng.PreviewRequest(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if eng.State() != loop.AwaitingLLMResponse {
				t.Fatalf("the preview moved the loop to %s", eng.State())
			}
			tr, err := eng.Step(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Exchanges) != 1 {
				t.Fatalf("%d exchanges", len(tr.Exchanges))
			}
			sent := tr.Exchanges[0]
			if pre.Method != sent.Method || pre.URL != sent.URL || !bytes.Equal(pre.RequestBody, sent.RequestBody) || len(pre.RequestBody) == 0 {
				t.Fatalf("preview %s %s (%d B) differs from what was sent: %s %s (%d B)", pre.Method, pre.URL, len(pre.RequestBody), sent.Method, sent.URL, len(sent.RequestBody))
			}
			if pre.Status != 0 || len(pre.Chunks) != 0 {
				t.Fatalf("the preview has a response: status %d, %d chunks", pre.Status, len(pre.Chunks))
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(c.Record)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			entries := 0
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					entries++
				}
			}
			if entries != 2 { // the header line, then the one exchange sent
				t.Fatalf("the cassette has %d lines, want 2 (header + the exchange sent): the preview was recorded or sent", entries)
			}
		})
	}
}
