package ollama

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/internal/wiretest"
)

// This file is an in-process Ollama that writes /api/chat streams the way a
// real server (v0.24, server/routes.go streamResponse) does, byte for byte:
// each line is json.Marshal of an api.ChatResponse plus "\n", written and
// flushed on its own (so one token per line); the done line carries the
// metrics and may carry text; Ollama's token-repeat stop (llm/server.go:
// more than 30 equal tokens in a row) ends the handler with no done line and
// no error, so the chunked body ends cleanly. The script also says where
// the reads fall: a step can wait until the client has read what was sent
// before the next write, so "two lines in one read" and "a line split across
// reads" are exact, not left to timing.

// wireStep is one write of the scripted server.
type wireStep struct {
	data []byte
	// read, when set, waits until the client has read everything written
	// so far before the next step.
	read bool
	// cut drops the connection without ending the chunked body (the client
	// sees an unexpected EOF); reset drops it with a TCP RST.
	cut, reset bool
}

// realOllama is the scripted server; read is signalled by the network
// transport under the capture (signalReads), read by read.
type realOllama struct {
	srv     *httptest.Server
	readSig chan int // bytes the client read, one send per read
}

func newRealOllama(t *testing.T, status int, steps ...wireStep) *realOllama {
	t.Helper()
	o := &realOllama{readSig: make(chan int, 1024)}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(status)
		} else {
			w.Header().Set("Content-Type", "application/x-ndjson")
		}
		written, read := 0, 0
		for _, s := range steps {
			if s.cut || s.reset {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				if s.reset {
					_ = conn.(*net.TCPConn).SetLinger(0)
				}
				_ = conn.Close()
				return
			}
			if len(s.data) > 0 {
				_, _ = w.Write(s.data)
				w.(http.Flusher).Flush()
				written += len(s.data)
			}
			for s.read && read < written {
				select {
				case n := <-o.readSig:
					read += n
				case <-time.After(5 * time.Second):
					t.Errorf("the client did not read %d bytes", written-read)
					return
				case <-r.Context().Done():
					return
				}
			}
		}
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// call runs one provider call against the server, signalling every read.
func (o *realOllama) call(t *testing.T, mode string) (*providers.Response, error) {
	t.Helper()
	p, err := New(Config{Host: o.srv.URL, ToolMode: mode, Transport: wiretest.SignalReads{Sig: o.readSig}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Call(context.Background(), weatherRequest())
}

var wireTime = time.Date(2026, 11, 24, 15, 4, 5, 123456789, time.UTC)

// line is one NDJSON line as the server writes it.
func line(t *testing.T, r api.ChatResponse) []byte {
	t.Helper()
	r.Model = DefaultModel
	r.CreatedAt = wireTime
	if r.Message.Role == "" {
		r.Message.Role = "assistant"
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func tokenLine(t *testing.T, token string) []byte {
	return line(t, api.ChatResponse{Message: api.Message{Content: token}})
}

// doneLine is the final line: done_reason, counts and durations; content
// may be there too (a cut reply, or the text a tool parser held back).
func doneLine(t *testing.T, content, reason string, evalCount int) []byte {
	return line(t, api.ChatResponse{
		Message:    api.Message{Content: content},
		Done:       true,
		DoneReason: reason,
		Metrics: api.Metrics{
			TotalDuration: 812 * time.Millisecond, LoadDuration: 20 * time.Millisecond,
			PromptEvalCount: 61, PromptEvalDuration: 90 * time.Millisecond,
			EvalCount: evalCount, EvalDuration: 700 * time.Millisecond,
		},
	})
}

// tokens writes each token in its own flushed line, each read on its own.
func tokens(t *testing.T, toks ...string) []wireStep {
	steps := make([]wireStep, len(toks))
	for i, tok := range toks {
		steps[i] = wireStep{data: tokenLine(t, tok), read: true}
	}
	return steps
}

func joinSteps(parts ...[]wireStep) []wireStep {
	var all []wireStep
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// Ollama's token-repeat stop in JSON mode: a reply stuck on white space
// inside the object, 31 more equal tokens, then a clean end of the body.
// It is no transport failure: the partial reply is kept and comes back
// Malformed with what Ollama did, in one call.
func TestRealServerRepeatStopJSONMode(t *testing.T) {
	stuck := make([]string, 32)
	for i := range stuck {
		stuck[i] = "\n"
	}
	o := newRealOllama(t, http.StatusOK, joinSteps(tokens(t, `{"`, "thought", `":`, ` "`), tokens(t, stuck...))...)
	resp, err := o.call(t, ToolModeJSON)
	if err != nil {
		t.Fatalf("Call: %v, want no error (a clean end is not a cut)", err)
	}
	want := `{"thought": "` + strings.Repeat("\n", 32)
	if resp.Message.Text != want {
		t.Errorf("Text = %q, want the partial reply %q", resp.Message.Text, want)
	}
	if resp.StopReason != providers.StopIncomplete || resp.FinishReason != "" {
		t.Errorf("StopReason, FinishReason = %q, %q; want incomplete and none", resp.StopReason, resp.FinishReason)
	}
	for _, f := range []string{"stopped by Ollama after 45 characters", "without its final done:true line", "token-repeat limit", "Reply with exactly one JSON object"} {
		if !strings.Contains(resp.Malformed, f) {
			t.Errorf("Malformed = %q, lacks %q", resp.Malformed, f)
		}
	}
	if len(resp.Exchanges) != 1 || resp.Exchanges[0].Err != "" || len(resp.Exchanges[0].Chunks) != 36 {
		t.Errorf("exchanges = %+v, want one clean exchange of 36 lines", resp.Exchanges)
	}
}

// A complete JSON-mode object followed by the repeat stop is used as it is.
func TestRealServerRepeatStopAfterACompleteObject(t *testing.T) {
	stuck := make([]string, 32)
	for i := range stuck {
		stuck[i] = "\n"
	}
	o := newRealOllama(t, http.StatusOK, joinSteps(tokens(t, `{"thought": "done", "response": "hi"}`), tokens(t, stuck...))...)
	resp, err := o.call(t, ToolModeJSON)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Malformed != "" || resp.Message.Text != "hi" || resp.StopReason != providers.StopEndTurn {
		t.Errorf("resp = %q / %q / %q, want the answer hi", resp.Malformed, resp.Message.Text, resp.StopReason)
	}
	if !strings.Contains(resp.Parse.Outcome, "token-repeat stop") {
		t.Errorf("Parse.Outcome = %q, want the stop noted", resp.Parse.Outcome)
	}
}

// The same stop in native mode: never a final answer.
func TestRealServerRepeatStopNativeMode(t *testing.T) {
	o := newRealOllama(t, http.StatusOK, tokens(t, "The", " weather", " is", " is", " is")...)
	resp, err := o.call(t, ToolModeNative)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != providers.StopIncomplete || !strings.Contains(resp.Malformed, "token-repeat limit") {
		t.Errorf("StopReason %q, Malformed %q; want incomplete and the repeat stop explained", resp.StopReason, resp.Malformed)
	}
	if resp.Message.Text != "The weather is is is" {
		t.Errorf("Text = %q, want the partial reply kept", resp.Message.Text)
	}
}

// A real cut stays a transport failure, retried: an unexpected EOF, or a
// reset, after some lines.
func TestRealServerCutAndReset(t *testing.T) {
	for _, tt := range []struct {
		name string
		step wireStep
		says string
	}{
		{"unexpected EOF", wireStep{cut: true}, "unexpected EOF"},
		{"reset", wireStep{reset: true}, "connection reset by peer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := newRealOllama(t, http.StatusOK, append(tokens(t, "The", " weather"), tt.step)...)
			resp, err := o.call(t, ToolModeNative)
			pe := checkError(t, err, providers.KindNetwork, http.StatusOK, []string{"cut in the middle of its reply", tt.says})
			if !pe.Transient() {
				t.Error("a cut connection must be retried")
			}
			if resp == nil || len(resp.Exchanges) != 1 || len(resp.Exchanges[0].Chunks) != 2 || !strings.Contains(resp.Exchanges[0].Err, tt.says) {
				t.Errorf("exchanges = %+v, want the two lines and the cut recorded", resp)
			}
		})
	}
}

// Native mode: a tool call cut at the token limit arrives as text in the
// done line (the tool parser held it back) with done_reason length. It is
// fed back as malformed, never delivered as the answer.
func TestRealServerNativeToolCallCutAtTheLimit(t *testing.T) {
	cut := `{"name": "list_files", "parameters":`
	o := newRealOllama(t, http.StatusOK, wireStep{data: doneLine(t, cut, "length", 12), read: true})
	resp, err := o.call(t, ToolModeNative)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != providers.StopMaxTokens || resp.FinishReason != "length" {
		t.Errorf("StopReason, FinishReason = %q, %q; want max_tokens, length", resp.StopReason, resp.FinishReason)
	}
	if !strings.Contains(resp.Malformed, "cut off at the token limit") || !strings.Contains(resp.Malformed, "list_files") {
		t.Errorf("Malformed = %q, want the cut call explained", resp.Malformed)
	}
	if len(resp.Message.ToolCalls) != 0 || resp.Message.Text != cut {
		t.Errorf("Message = %+v, want the cut text kept and no call", resp.Message)
	}
}

// A text answer cut at the limit is delivered, read as cut (max_tokens).
func TestRealServerNativeTextCutAtTheLimit(t *testing.T) {
	o := newRealOllama(t, http.StatusOK, joinSteps(tokens(t, "Tokyo", " is"), []wireStep{{data: doneLine(t, " sunny", "length", 3), read: true}})...)
	resp, err := o.call(t, ToolModeNative)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Malformed != "" || resp.Message.Text != "Tokyo is sunny" || resp.StopReason != providers.StopMaxTokens {
		t.Errorf("resp = %q %q %q, want the cut answer with stop max_tokens", resp.Malformed, resp.Message.Text, resp.StopReason)
	}
}

// An empty native reply is not a clean final answer.
func TestRealServerNativeEmptyReply(t *testing.T) {
	o := newRealOllama(t, http.StatusOK, wireStep{data: doneLine(t, "", "stop", 1), read: true})
	resp, err := o.call(t, ToolModeNative)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Malformed, "was empty (done_reason stop)") {
		t.Errorf("Malformed = %q, want the empty reply named", resp.Malformed)
	}
}

// One token per line, parallel calls on separate lines (index 0, then 1),
// and the read boundaries: two lines in one read, a line split across two.
func TestRealServerLinesAndReads(t *testing.T) {
	call := func(i int, city string) api.ToolCall {
		return api.ToolCall{ID: "call_" + city, Function: api.ToolCallFunction{Index: i, Name: "get_weather",
			Arguments: mustArgs(t, `{"city":"`+city+`"}`)}}
	}
	first := line(t, api.ChatResponse{Message: api.Message{ToolCalls: []api.ToolCall{call(0, "Tokyo")}}})
	second := line(t, api.ChatResponse{Message: api.Message{ToolCalls: []api.ToolCall{call(1, "Paris")}}})
	split := len(second) / 2
	steps := joinSteps(
		tokens(t, "Let", " me", " check"),
		[]wireStep{
			{data: append(append([]byte{}, tokenLine(t, ".")...), first...), read: true}, // two lines, one read
			{data: second[:split], read: true},                                           // a line split across reads
			{data: second[split:], read: true},
			{data: doneLine(t, "", "stop", 40), read: true},
		})
	o := newRealOllama(t, http.StatusOK, steps...)
	resp, err := o.call(t, ToolModeNative)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text != "Let me check." || len(resp.Message.ToolCalls) != 2 ||
		resp.Message.ToolCalls[0].ID != "call_Tokyo" || resp.Message.ToolCalls[1].ID != "call_Paris" {
		t.Errorf("Message = %+v", resp.Message)
	}
	// A chunk is a line, whatever the reads were: the read that held two
	// lines gave two chunks arriving at the same time, and the line split
	// across two reads is one chunk that says so.
	ex := resp.Exchanges[0]
	if len(ex.Chunks) != 7 {
		t.Fatalf("chunks = %d, want 7 lines", len(ex.Chunks))
	}
	for i, c := range ex.Chunks {
		if strings.Count(string(c.Data), "\n") != 1 || !strings.HasSuffix(string(c.Data), "\n") {
			t.Errorf("chunk %d = %q, want exactly one NDJSON line", i, c.Data)
		}
	}
	if ex.Chunks[3].Offset != ex.Chunks[4].Offset || ex.Chunks[3].Reads != 0 || ex.Chunks[4].Reads != 0 {
		t.Errorf("chunks 4 and 5 at %v/%v, reads %d/%d; want one read's two lines, at the same time",
			ex.Chunks[3].Offset, ex.Chunks[4].Offset, ex.Chunks[3].Reads, ex.Chunks[4].Reads)
	}
	if c := ex.Chunks[5]; string(c.Data) != string(second) || c.Reads != 2 || c.Start <= 0 || c.Start >= c.Offset {
		t.Errorf("chunk 6 = %q, reads %d, from %v to %v; want the split line, 2 reads, the first earlier", c.Data, c.Reads, c.Start, c.Offset)
	}
	if got := strings.Count(string(ex.ResponseBody), "\n"); got != 7 {
		t.Errorf("body holds %d lines, want 7", got)
	}
	// What the transport wrote: the client's own headers, and gzip added.
	wire := map[string]providers.WireHeader{}
	for _, h := range ex.WireHeaders {
		wire[h.Name] = h
	}
	if h := wire["Accept-Encoding"]; h.Value != "gzip" || !h.Added {
		t.Errorf("Accept-Encoding on the wire = %+v, want gzip, added by the transport", h)
	}
	if h := wire["User-Agent"]; !strings.HasPrefix(h.Value, "ollama/") || h.Added {
		t.Errorf("User-Agent on the wire = %+v, want the ollama client's own", h)
	}
}

func mustArgs(t *testing.T, s string) api.ToolCallFunctionArguments {
	t.Helper()
	var a api.ToolCallFunctionArguments
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// A reply line longer than the v0.17.4 client's 8 MiB buffer: the client
// stops reading without an error. That is neither a cut nor Ollama's
// repeat stop, and it is not retried.
func TestRealServerLineOverTheClientsBuffer(t *testing.T) {
	huge := tokenLine(t, strings.Repeat("x", 9<<20))
	o := newRealOllama(t, http.StatusOK, wireStep{data: tokenLine(t, "The")}, wireStep{data: huge})
	p := newProvider(t, o.srv.URL, ToolModeNative, false)
	resp, err := p.Call(context.Background(), weatherRequest())
	pe := checkError(t, err, providers.KindOther, http.StatusOK, []string{"stopped reading in the middle of a reply line", "8 MiB"})
	if pe.Transient() || resp == nil || len(resp.Exchanges) != 1 {
		t.Errorf("error %v (retried: %v), response %v; want it kept and not retried", pe, pe.Transient(), resp)
	}
}
