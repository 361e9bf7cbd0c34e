package ollama

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/glassbox-dev/glassbox/providers"
)

// Each kind of failure, recorded live through the real client into a
// cassette file, replays through the real client to the same result: the
// same error (kind, status, words, retried or not), and the same exchange —
// status, reads, body, and the failure at the same point.
func TestRecordedFailuresReplayTheSame(t *testing.T) {
	tests := []struct {
		name  string
		host  func(t *testing.T) *realOllama // nil: nothing listens
		kind  providers.ErrorKind
		retry bool
	}{
		{"connection refused", func(t *testing.T) *realOllama { return nil }, providers.KindUnreachable, false},
		{"unexpected EOF mid-stream", func(t *testing.T) *realOllama {
			return newRealOllama(t, http.StatusOK, append(tokens(t, "The", " weather"), wireStep{cut: true})...)
		}, providers.KindNetwork, true},
		{"reset mid-stream", func(t *testing.T) *realOllama {
			return newRealOllama(t, http.StatusOK, append(tokens(t, "The"), wireStep{reset: true})...)
		}, providers.KindNetwork, true},
		{"500 model runner stopped", func(t *testing.T) *realOllama {
			return newRealOllama(t, http.StatusInternalServerError, wireStep{data: []byte(`{"error":"model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details"}`)})
		}, providers.KindUnavailable, true},
		{"error line mid-stream", func(t *testing.T) *realOllama {
			return newRealOllama(t, http.StatusOK, append(tokens(t, "The"), wireStep{data: []byte(`{"error":"an error was encountered while running the model"}` + "\n")})...)
		}, providers.KindUnavailable, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := tt.host(t)
			ctx := context.Background()
			var host string
			if server == nil {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				host = "http://" + l.Addr().String()
				l.Close()
			} else {
				host = server.srv.URL
				ctx = providers.WithRecorder(ctx, &providers.Recorder{OnChunk: func(c providers.Chunk) { server.readSig <- len(c.Data) }})
			}
			path := filepath.Join(t.TempDir(), "failure.cassette.jsonl")
			w, err := providers.NewCassetteWriter(path, providers.CassetteHeader{Provider: "llama", Model: DefaultModel, ToolMode: ToolModeNative})
			if err != nil {
				t.Fatal(err)
			}
			live, err := New(Config{Host: host, ToolMode: ToolModeNative, OnExchange: func(ex providers.Exchange) {
				if err := w.Write(ex); err != nil {
					t.Error(err)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			liveResp, liveErr := live.Call(ctx, weatherRequest())
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			c, err := providers.LoadCassette(path)
			if err != nil {
				t.Fatal(err)
			}
			replayed, err := New(Config{Host: host, ToolMode: ToolModeNative, Transport: providers.NewReplayTransport(c)})
			if err != nil {
				t.Fatal(err)
			}
			replayResp, replayErr := replayed.Call(context.Background(), weatherRequest())

			for _, side := range []struct {
				name string
				err  error
			}{{"live", liveErr}, {"replay", replayErr}} {
				pe := providers.AsError(side.err)
				if pe == nil || pe.Kind != tt.kind || pe.Transient() != tt.retry {
					t.Fatalf("%s error = %v (%+v), want kind %s, retried %v", side.name, side.err, pe, tt.kind, tt.retry)
				}
			}
			if liveErr.Error() != replayErr.Error() || providers.AsError(liveErr).Status != providers.AsError(replayErr).Status {
				t.Errorf("replayed error\n %v\nwant the live one\n %v", replayErr, liveErr)
			}
			if (liveResp == nil) != (replayResp == nil) {
				t.Fatalf("live response %v, replayed %v", liveResp, replayResp)
			}
			if liveResp == nil {
				return
			}
			l, r := liveResp.Exchanges[0], replayResp.Exchanges[0]
			if l.Status != r.Status || l.Err != r.Err || !bytes.Equal(l.ResponseBody, r.ResponseBody) || len(l.Chunks) != len(r.Chunks) {
				t.Errorf("replayed exchange: status %d, error %q, %d reads, body %q\nwant the live one: status %d, error %q, %d reads, body %q",
					r.Status, r.Err, len(r.Chunks), r.ResponseBody, l.Status, l.Err, len(l.Chunks), l.ResponseBody)
			}
		})
	}
}
