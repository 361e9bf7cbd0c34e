package gemini

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/glassbox-dev/glassbox/providers"
)

// A recorded Gemini failure replays through the real genai client to the
// same error: a refusal stays a refusal (not retried), a body cut off in the
// middle stays a retried network failure after the same bytes.
func TestRecordedGeminiFailuresReplayTheSame(t *testing.T) {
	cutServer := func(t *testing.T) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"candidates": [{"content": {"parts": [{"text": "Hel`))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	refused := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String()
	}
	for _, tt := range []struct {
		name  string
		url   func(t *testing.T) string
		kind  providers.ErrorKind
		retry bool
	}{
		{"connection refused", refused, providers.KindUnreachable, false},
		{"body cut off", cutServer, providers.KindNetwork, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url(t)
			var tape []providers.Exchange
			live := newTestProvider(t, nil, Config{BaseURL: url, OnExchange: func(ex providers.Exchange) { tape = append(tape, ex) }})
			liveResp, liveErr := live.Call(context.Background(), userSays("hello"))
			replayed := newTestProvider(t, nil, Config{BaseURL: url, Transport: providers.NewReplayTransport(&providers.Cassette{Exchanges: tape})})
			replayResp, replayErr := replayed.Call(context.Background(), userSays("hello"))
			for _, err := range []error{liveErr, replayErr} {
				pe := providers.AsError(err)
				if pe == nil || pe.Kind != tt.kind || pe.Transient() != tt.retry {
					t.Fatalf("error = %v, want kind %s, retried %v", err, tt.kind, tt.retry)
				}
			}
			if liveErr.Error() != replayErr.Error() {
				t.Errorf("replayed error\n %v\nwant the live one\n %v", replayErr, liveErr)
			}
			l, r := liveResp.Exchanges[0], replayResp.Exchanges[0]
			if l.Status != r.Status || l.Err != r.Err || string(l.ResponseBody) != string(r.ResponseBody) {
				t.Errorf("replayed exchange %d %q %q, want %d %q %q", r.Status, r.Err, r.ResponseBody, l.Status, l.Err, l.ResponseBody)
			}
		})
	}
}
