package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/internal/wiretest"
)

// sseStep is one write of the scripted streaming server.
type sseStep struct {
	data []byte
	// read waits until the client has read everything written so far, so
	// the next write arrives in a read of its own.
	read bool
	// cut drops the connection without ending the chunked body (the client
	// sees an unexpected EOF); hold keeps the connection open and silent
	// until the client gives up.
	cut, hold bool
}

// scriptedStream serves every request with the steps, as
// :streamGenerateContent?alt=sse does.
func scriptedStream(t *testing.T, steps ...sseStep) (*httptest.Server, chan int) {
	t.Helper()
	reads := make(chan int, 1024)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || r.URL.Query().Get("alt") != "sse" {
			t.Errorf("request went to %s, want the SSE stream", r.URL)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		written, read := 0, 0
		for _, s := range steps {
			switch {
			case s.cut:
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			case s.hold:
				<-r.Context().Done()
				return
			}
			w.Write(s.data)
			w.(http.Flusher).Flush()
			written += len(s.data)
			for s.read && read < written {
				select {
				case n := <-reads:
					read += n
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Second):
					t.Errorf("the client did not read byte %d within 5s", written)
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reads
}

// streamingProvider talks to srv through a transport that reports reads.
func streamingProvider(t *testing.T, srv *httptest.Server, reads chan int, cfg Config) *Provider {
	t.Helper()
	cfg.BaseURL = srv.URL
	cfg.Transport = wiretest.SignalReads{Sig: reads}
	return newTestProvider(t, nil, cfg)
}

// eventSteps cuts a recorded SSE body into its events (see splitEvents)
// and makes each one step.
func eventSteps(body []byte) []sseStep {
	var steps []sseStep
	for _, ev := range splitEvents(body) {
		steps = append(steps, sseStep{data: ev, read: true})
	}
	return steps
}

func sseEvent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte("data: "), b...), "\r\n\r\n"...)
}

func textEvent(t *testing.T, text, finish string) []byte {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}}
	if finish != "" {
		cand["finishReason"] = finish
	}
	return sseEvent(t, map[string]any{"candidates": []any{cand}, "usageMetadata": map[string]any{"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10}})
}

func withLimits(l providers.Limits) Config { return Config{Call: providers.CallOptions{Limits: l}} }

// The recorded text stream: the text arrives in three events and is one
// answer; finishReason and the full usage come from the last event; the
// capture holds one chunk per event.
func TestStreamedTextReply(t *testing.T) {
	body := readTestdata(t, "sse_text_STOP__firebase_googleai.sse")
	srv, reads := scriptedStream(t, eventSteps(body)...)
	p := streamingProvider(t, srv, reads, Config{})
	resp, err := p.Call(context.Background(), userSays("What is the capital of Wyoming?"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text != "The capital of Wyoming is **Cheyenne**.\n" || resp.StopReason != providers.StopEndTurn || resp.FinishReason != "STOP" {
		t.Errorf("reply %q, stop %s, finish %s; want the three pieces joined, end_turn, STOP", resp.Message.Text, resp.StopReason, resp.FinishReason)
	}
	if resp.Usage != (providers.Usage{InputTokens: 7, OutputTokens: 10}) {
		t.Errorf("usage = %+v, want the last event's 7 in / 10 out", resp.Usage)
	}
	var content genai.Content
	if err := json.Unmarshal(resp.Message.Native.Data, &content); err != nil || len(content.Parts) != 1 {
		t.Errorf("Native = %s, want one text part (the pieces joined)", resp.Message.Native.Data)
	}
	ex := resp.Exchanges[0]
	if len(ex.Chunks) != 3 || !bytes.Equal(ex.ResponseBody, body) {
		t.Errorf("%d chunks, body equal %v; want 3 chunks (one per event) and the body as served", len(ex.Chunks), bytes.Equal(ex.ResponseBody, body))
	}
}

// The recorded thinking stream: two thought-summary events, then a
// function call with its thoughtSignature in the last event. The call is
// read whole, and the signature goes back unchanged in the next request.
func TestStreamedFunctionCallKeepsItsSignature(t *testing.T) {
	body := readTestdata(t, "sse_functionCall_thoughtSignature__firebase_googleai.sse")
	srv, reads := scriptedStream(t, eventSteps(body)...)
	p := streamingProvider(t, srv, reads, Config{})
	req := userSays("How many days until New Year's Eve?")
	req.Tools = []history.ToolSpec{{Name: "now", Description: "The current time."}}
	resp, err := p.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "now" || resp.StopReason != providers.StopToolUse {
		t.Fatalf("calls %+v, stop %s; want the now call, tool_use", resp.Message.ToolCalls, resp.StopReason)
	}
	if !strings.HasPrefix(resp.Message.Thought, "**Calculating the Days**") || !strings.Contains(resp.Message.Thought, "**Determining the Approach**") {
		t.Errorf("thought = %q, want both summaries joined", resp.Message.Thought)
	}
	// The signature as the wire carried it, base64.
	const sigStart = "CiIBVKhc7vB+vaaq6rA/KC79Ts7iXagIOA4EBOyBFDpl"
	if !strings.Contains(string(resp.Message.Native.Data), sigStart) {
		t.Fatalf("Native = %.300s…, want the thoughtSignature kept", resp.Message.Native.Data)
	}
	// Sent back: the next request carries it in the same part as the call.
	next, reads2 := scriptedStream(t, sseStep{data: textEvent(t, "3 days.", "STOP")})
	q := streamingProvider(t, next, reads2, Config{})
	req.Messages = append(req.Messages, resp.Message,
		history.Message{Role: history.RoleTool, Result: &history.ToolResult{Name: "now", Content: "2026-12-28"}})
	var sent []byte
	q.capture.OnExchange = func(x providers.Exchange) { sent = x.RequestBody }
	if _, err := q.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	part, _ := at(t, decodeJSON(t, sent), "contents", 1, "parts", 1).(map[string]any)
	if sig, _ := part["thoughtSignature"].(string); !strings.HasPrefix(sig, sigStart) || part["functionCall"] == nil {
		t.Errorf("second part sent back = %v, want the functionCall with its thoughtSignature", part)
	}
}

// The recorded blocked-prompt stream: one promptFeedback event, no
// candidate, no finishReason. It is a blocked prompt, not a cut stream.
func TestStreamedPromptBlocked(t *testing.T) {
	srv, reads := scriptedStream(t, sseStep{data: readTestdata(t, "sse_promptFeedback_blockReason_SAFETY__firebase_googleai.sse")})
	p := streamingProvider(t, srv, reads, Config{})
	_, err := p.Call(context.Background(), userSays("something hateful"))
	if pe := providers.AsError(err); pe == nil || pe.Kind != providers.KindBlocked || !strings.Contains(pe.Message, "blockReason SAFETY") {
		t.Errorf("error = %v, want the blocked prompt explained", err)
	}
}

// An event split across two reads is one chunk that says it took two
// reads; two events in one read are two chunks, arriving together.
func TestStreamedEventsAndReads(t *testing.T) {
	first, second, last := textEvent(t, "Tokyo", ""), textEvent(t, " is", ""), textEvent(t, " sunny.", "STOP")
	half := len(last) / 2
	srv, reads := scriptedStream(t,
		sseStep{data: append(append([]byte{}, first...), second...), read: true}, // two events, one read
		sseStep{data: last[:half], read: true},                                   // one event, two reads
		sseStep{data: last[half:], read: true},
	)
	p := streamingProvider(t, srv, reads, Config{})
	resp, err := p.Call(context.Background(), userSays("weather?"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text != "Tokyo is sunny." {
		t.Errorf("text = %q", resp.Message.Text)
	}
	ch := resp.Exchanges[0].Chunks
	if len(ch) != 3 {
		t.Fatalf("%d chunks, want 3: one per event", len(ch))
	}
	if !bytes.Equal(ch[0].Data, first) || !bytes.Equal(ch[1].Data, second) || !bytes.Equal(ch[2].Data, last) {
		t.Errorf("chunks = %q, want the three events", [][]byte{ch[0].Data, ch[1].Data, ch[2].Data})
	}
	if ch[0].Offset != ch[1].Offset || ch[0].Reads != 0 || ch[1].Reads != 0 {
		t.Errorf("first two chunks at %v/%v with reads %d/%d, want one read, the same time", ch[0].Offset, ch[1].Offset, ch[0].Reads, ch[1].Reads)
	}
	if ch[2].Reads != 2 || ch[2].Start <= ch[1].Offset || ch[2].Start >= ch[2].Offset {
		t.Errorf("last chunk: reads %d from %v to %v, want 2 reads, starting after the first read", ch[2].Reads, ch[2].Start, ch[2].Offset)
	}
}

// The failures only a stream has. Each is a clear failure, named, and a
// transport failure (retried) where a retry may help.
func TestStreamFailures(t *testing.T) {
	errorEvent := sseEvent(t, map[string]any{"error": map[string]any{"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}})
	tests := []struct {
		name      string
		steps     []sseStep
		kind      providers.ErrorKind
		transient bool
		says      []string
	}{
		{"cut mid-event, connection dropped", []sseStep{{data: textEvent(t, "The", ""), read: true}, {data: []byte(`data: {"candidates": [{"content"`), read: true}, {cut: true}},
			providers.KindNetwork, true, []string{"cut in the middle of its streamed reply", "after 1 complete event", "unexpected EOF"}},
		{"cut mid-event, clean end", []sseStep{{data: textEvent(t, "The", ""), read: true}, {data: []byte(`data: {"candidates": [{"content"`), read: true}},
			providers.KindNetwork, true, []string{"stopped in the middle of an event", "after 1 complete event"}},
		{"error object mid-stream", []sseStep{{data: textEvent(t, "The", ""), read: true}, {data: errorEvent, read: true}},
			providers.KindUnavailable, true, []string{"Gemini is unavailable right now", "503 UNAVAILABLE", "overloaded"}},
		{"ends without finishReason", []sseStep{{data: textEvent(t, "The", ""), read: true}, {data: textEvent(t, " capital", ""), read: true}},
			providers.KindNetwork, true, []string{"ended after 2 complete events, none of them with a finishReason", "cut off on the way"}},
		{"ends with nothing", nil,
			providers.KindNetwork, true, []string{"ended after no event at all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, reads := scriptedStream(t, tt.steps...)
			p := streamingProvider(t, srv, reads, Config{})
			resp, err := p.Call(context.Background(), userSays("hi"))
			pe := providers.AsError(err)
			if pe == nil {
				t.Fatalf("no error; reply %q", resp.Message.Text)
			}
			if pe.Kind != tt.kind || pe.Transient() != tt.transient {
				t.Errorf("kind %s (transient %v), want %s (%v): %s", pe.Kind, pe.Transient(), tt.kind, tt.transient, pe.Message)
			}
			for _, s := range tt.says {
				if !strings.Contains(pe.Message, s) {
					t.Errorf("message %q lacks %q", pe.Message, s)
				}
			}
			if resp == nil || len(resp.Exchanges) != 1 {
				t.Errorf("want the exchange kept for the payload pane")
			}
		})
	}
}

// A server that goes silent is a stalled call: after the headers, or in
// the middle of the stream. The limit is short here (the flag's value in a
// test); the call fails with the reason, and is retried by the loop.
func TestStreamStalls(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []sseStep
	}{
		{"after the headers", []sseStep{{hold: true}}},
		{"mid-stream", []sseStep{{data: textEvent(t, "The", ""), read: true}, {hold: true}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, reads := scriptedStream(t, tt.steps...)
			p := streamingProvider(t, srv, reads, withLimits(providers.Limits{Stall: 50 * time.Millisecond}))
			resp, err := p.Call(context.Background(), userSays("hi"))
			pe := providers.AsError(err)
			if pe == nil || pe.Kind != providers.KindNetwork || !pe.Transient() || !strings.Contains(pe.Message, "the call stalled: no byte arrived for 50ms (the --stall limit)") {
				t.Fatalf("error = %v, want a transient stall naming the limit", err)
			}
			if resp == nil || len(resp.Exchanges) != 1 || !strings.Contains(resp.Exchanges[0].Err, "the call stalled") {
				t.Errorf("exchanges = %+v, want the stall recorded on the exchange", resp)
			}
		})
	}
	t.Run("the whole call too long", func(t *testing.T) {
		// Events keep coming, so it never stalls; the call limit ends it.
		var steps []sseStep
		dot := textEvent(t, ".", "")
		for range 100000 {
			steps = append(steps, sseStep{data: dot, read: true})
		}
		srv, reads := scriptedStream(t, steps...)
		p := streamingProvider(t, srv, reads, withLimits(providers.Limits{Stall: time.Minute, Call: 80 * time.Millisecond}))
		_, err := p.Call(context.Background(), userSays("hi"))
		if pe := providers.AsError(err); pe == nil || !pe.Transient() || !strings.Contains(pe.Message, "longer than 80ms (the --call-timeout limit)") {
			t.Errorf("error = %v, want the call limit named", err)
		}
	})
}

// --stream=false keeps the unary call: generateContent, one JSON body.
func TestUnaryCall(t *testing.T) {
	f := newFakeGemini(t, reply{file: "resp_text_STOP__firebase_googleai.json"})
	p := newTestProvider(t, f, Config{Call: providers.CallOptions{Unary: true}})
	resp, err := p.Call(context.Background(), userSays("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if seen := f.requests()[0]; seen.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || seen.Query != "" {
		t.Errorf("request went to %s?%s, want generateContent", seen.Path, seen.Query)
	}
	if p.Streams() || resp.Message.Text == "" || string(resp.Exchanges[0].ResponseBody) != string(readTestdata(t, "resp_text_STOP__firebase_googleai.json")) {
		t.Errorf("want the unary body as served")
	}
}
