package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

// A server silent after the headers is a stalled call: a transport
// failure naming the limit, which the loop retries.
func TestStalledCompletion(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", Call: providers.CallOptions{Limits: providers.Limits{Stall: 50 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Call(context.Background(), request())
	if pe := providers.AsError(err); pe == nil || !pe.Transient() || !strings.Contains(pe.Message, "the call stalled: no byte arrived for 50ms") {
		t.Errorf("error = %v, want a transient stall naming the limit", err)
	}
}
