package gemini

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/internal/wiretest"
)

// splitEvents cuts an SSE body after each blank line ("\r\n\r\n"), keeping
// the separators, so the pieces join back to the exact file.
func splitEvents(body []byte) [][]byte {
	var events [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, []byte("\r\n\r\n"))
		if i < 0 {
			events = append(events, body)
			break
		}
		events = append(events, body[:i+4])
		body = body[i+4:]
	}
	return events
}

// TestCaptureChunksAStreamedResponse serves the recorded SSE streams one
// event at a time to the real genai client (GenerateContentStream) and
// checks what the capture recorded: every byte, one chunk per event, shown
// live through OnChunk as they came.
func TestCaptureChunksAStreamedResponse(t *testing.T) {
	files := []string{
		"sse_text_STOP__firebase_googleai.sse",
		"sse_functionCall_thoughtSignature__firebase_googleai.sse",
		"sse_promptFeedback_blockReason_SAFETY__firebase_googleai.sse",
	}
	for _, file := range files {
		t.Run(strings.SplitN(file, "__", 2)[0], func(t *testing.T) {
			clearEnv(t)
			body := readTestdata(t, file)
			events := splitEvents(body)

			// received carries the size of each chunk the client got, so the
			// server sends the next event only after the client has seen the
			// previous one: each event then arrives in its own reads.
			received := make(chan int, 1000)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || r.URL.Query().Get("alt") != "sse" {
					t.Errorf("request went to %s, want the SSE stream endpoint", r.URL)
				}
				w.Header().Set("Content-Type", "text/event-stream")
				sent, got := 0, 0
				for _, ev := range events {
					w.Write(ev)
					w.(http.Flusher).Flush()
					sent += len(ev)
					for got < sent {
						select {
						case n := <-received:
							got += n
						case <-time.After(5 * time.Second):
							t.Errorf("the client did not receive byte %d within 5s", sent)
							return
						}
					}
				}
			}))
			defer srv.Close()

			client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
				APIKey:      testKey,
				Backend:     genai.BackendGeminiAPI,
				HTTPClient:  &http.Client{Transport: providers.NewTransport(wiretest.SignalReads{Sig: received}, testKey)},
				HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
			})
			if err != nil {
				t.Fatal(err)
			}
			var live []providers.Chunk
			rec := &providers.Recorder{OnChunk: func(c providers.Chunk) { live = append(live, c) }}
			ctx := providers.WithRecorder(context.Background(), rec)
			yielded := 0
			for _, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("hi"), nil) {
				if err != nil {
					t.Fatalf("stream error: %v", err)
				}
				yielded++
			}
			if yielded != len(events) {
				t.Errorf("the SDK yielded %d responses, want one per event: %d", yielded, len(events))
			}

			exs := rec.Exchanges()
			if len(exs) != 1 {
				t.Fatalf("recorded %d exchanges, want 1", len(exs))
			}
			ex := exs[0]
			if !strings.HasSuffix(ex.URL, ":streamGenerateContent?alt=sse") || ex.Status != 200 {
				t.Errorf("recorded %s with status %d", ex.URL, ex.Status)
			}
			if !bytes.Equal(ex.ResponseBody, body) {
				t.Errorf("recorded body differs from the served file")
			}
			if len(ex.Chunks) != len(events) {
				t.Fatalf("%d chunks for %d events, want one chunk per event", len(ex.Chunks), len(events))
			}
			for i, c := range ex.Chunks {
				if !bytes.Equal(c.Data, events[i]) {
					t.Errorf("chunk %d = %q, want event %d %q", i, c.Data, i, events[i])
				}
				if i > 0 && c.Offset < ex.Chunks[i-1].Offset {
					t.Errorf("chunk %d arrived at %v, before chunk %d at %v", i, c.Offset, i-1, ex.Chunks[i-1].Offset)
				}
			}
			if !reflect.DeepEqual(live, ex.Chunks) {
				t.Errorf("OnChunk showed %d chunks, the exchange holds %d: they should be the same", len(live), len(ex.Chunks))
			}
			if first := ex.Chunks[0].Offset; ex.TTFB <= 0 || first < ex.TTFB || ex.Total < ex.Chunks[len(ex.Chunks)-1].Offset {
				t.Errorf("TTFB %v, first chunk %v, last chunk %v, total %v: want TTFB <= chunks <= total",
					ex.TTFB, first, ex.Chunks[len(ex.Chunks)-1].Offset, ex.Total)
			}
		})
	}
}
