package providers

import (
	"strings"
	"testing"
)

// A session file is untrusted: an exchange read back from one may carry a
// secret the capture never saw (a forged file, or a key set after it was
// written). Masker.Exchange masks it everywhere a page could show it.
func TestMaskerExchangeMasksAForgedExchange(t *testing.T) {
	const key = "AIzaSyFORGED-secret-0123456789"
	x := Exchange{
		Method:          "POST",
		URL:             "https://example.test/v1beta/models/m:generateContent?key=" + key + "&alt=sse&access_token=tok123",
		RequestHeaders:  map[string][]string{"X-Goog-Api-Key": {key}, "Authorization": {"Bearer abc"}, "Content-Type": {"application/json"}, "X-Echo": {"k=" + key}},
		WireHeaders:     []WireHeader{{Name: "X-Goog-Api-Key", Value: key}, {Name: "Host", Value: "example.test"}},
		RequestBody:     []byte(`{"note":"` + key + `"}`),
		ResponseHeaders: map[string][]string{"Set-Cookie": {"s=1"}},
		ResponseBody:    []byte(`{"echo":"` + key + `"}`),
		Chunks:          []Chunk{{Data: []byte(key)}},
		Err:             "dial failed for " + key,
	}
	got := NewMasker(key).Exchange(x)
	all := got.URL + string(got.RequestBody) + string(got.ResponseBody) + string(got.Chunks[0].Data) + got.Err
	for _, vs := range got.RequestHeaders {
		all += strings.Join(vs, " ")
	}
	for _, vs := range got.ResponseHeaders {
		all += strings.Join(vs, " ")
	}
	for _, h := range got.WireHeaders {
		all += h.Value
	}
	for _, secret := range []string{key, "Bearer abc", "tok123", "s=1"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q survived: %s", secret, all)
		}
	}
	if got.RequestHeaders["Content-Type"][0] != "application/json" || got.WireHeaders[1].Value != "example.test" || !strings.Contains(got.URL, "alt=sse") {
		t.Errorf("masked more than the secrets: %+v", got)
	}
	if strings.Contains(string(x.RequestBody), RedactedMark) || x.RequestHeaders["X-Goog-Api-Key"][0] != key {
		t.Error("the original exchange was changed")
	}
	for _, note := range []string{"header x-goog-api-key", "query key", "secret value in request body", "response header set-cookie"} {
		if !strings.Contains(strings.Join(got.Redacted, ","), note) {
			t.Errorf("Redacted %q lacks %q", got.Redacted, note)
		}
	}
}
