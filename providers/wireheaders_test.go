package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The exchange shows the request headers as the transport wrote them,
// marking the ones it added, with every value redacted.
func TestTransportRecordsTheHeadersWrittenOnTheWire(t *testing.T) {
	const key = "AIzaSyWireHeaderSecret0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	rec := &Recorder{}
	tr := NewTransport(nil, key)
	req, err := http.NewRequestWithContext(WithRecorder(context.Background(), rec), http.MethodPost, srv.URL+"/api/chat", strings.NewReader(`{"model":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Goog-Api-Key", key)
	req.Header.Set("X-Trace", "id "+key)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	ex := rec.Exchanges()[0]
	got := map[string]WireHeader{}
	for _, h := range ex.WireHeaders {
		got[http.CanonicalHeaderKey(h.Name)] = h
		if strings.Contains(h.Value, key) {
			t.Errorf("wire header %s leaks the key: %q", h.Name, h.Value)
		}
	}
	for name, want := range map[string]WireHeader{
		"Host":            {Value: strings.TrimPrefix(srv.URL, "http://"), Added: true},
		"User-Agent":      {Value: "Go-http-client/1.1", Added: true},
		"Content-Length":  {Value: "13", Added: true},
		"Accept-Encoding": {Value: "gzip", Added: true},
		"Content-Type":    {Value: "application/json"},
		"X-Goog-Api-Key":  {Value: RedactedMark},
		"X-Trace":         {Value: "id " + RedactedMark},
	} {
		h, ok := got[name]
		if !ok || h.Value != want.Value || h.Added != want.Added {
			t.Errorf("wire header %s = %+v (present %v), want value %q, added %v", name, h, ok, want.Value, want.Added)
		}
	}
	if ex.WireHeaders[0].Name != "Host" {
		t.Errorf("first wire header %q, want Host (the order written)", ex.WireHeaders[0].Name)
	}
}
