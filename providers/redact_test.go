package providers

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

const testKey = "AIzaSyTEST-0123456789abcdefghijklmnop"

// TestNoSecretReachesTheRecording sends a request full of credentials
// through the capture and checks that none survives in any recorded field,
// while the server and the client still see the real bytes.
func TestNoSecretReachesTheRecording(t *testing.T) {
	// Other credentials masked by name rather than by value.
	others := []string{"bearer-token-xyz", "session=cookie-abc", "page-token-123", "set-cookie-value-789", "custom-token-456"}

	responseBody := `{"error":{"message":"Invalid API key: ` + testKey + `"}}`
	var serverKey, serverBody string
	firstChunkSeen := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serverKey = r.Header.Get("x-goog-api-key")
		b, _ := io.ReadAll(r.Body)
		serverBody = string(b)
		w.Header().Set("Set-Cookie", "set-cookie-value-789")
		w.Header().Set("X-Echo", "you sent "+testKey)
		w.WriteHeader(http.StatusBadRequest)
		// Split the key across two reads: send the second half only once
		// the client has shown the first.
		half := strings.Index(responseBody, testKey) + len(testKey)/2
		io.WriteString(w, responseBody[:half])
		w.(http.Flusher).Flush()
		select {
		case <-firstChunkSeen:
		case <-time.After(5 * time.Second):
			t.Error("the client never showed the first half of the body")
		}
		io.WriteString(w, responseBody[half:])
	}))
	defer srv.Close()

	tr := NewTransport(nil, testKey)
	var hooked Exchange
	tr.OnExchange = func(ex Exchange) { hooked = ex }
	var live []Chunk
	rec := &Recorder{OnChunk: func(c Chunk) {
		live = append(live, c)
		select {
		case firstChunkSeen <- struct{}{}:
		default:
		}
	}}
	requestBody := `{"contents":[{"parts":[{"text":"my key is ` + testKey + `"}]}]}`
	req := newRequest(t, WithRecorder(context.Background(), rec), http.MethodPost,
		srv.URL+"/v1beta/models/m:generateContent?key="+testKey+"&alt=sse&pageToken=page-token-123", requestBody)
	req.Header.Set("x-goog-api-key", testKey)
	req.Header.Set("Authorization", "Bearer bearer-token-xyz")
	req.Header.Set("Cookie", "session=cookie-abc")
	req.Header.Set("X-Custom-Token", "custom-token-456")
	req.Header.Set("X-Note", "the key is "+testKey)

	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	clientBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	// The real bytes are untouched.
	if serverKey != testKey || serverBody != requestBody {
		t.Errorf("the server saw key %q and body %q: redaction must not change what is sent", serverKey, serverBody)
	}
	if string(clientBody) != responseBody {
		t.Errorf("the client read %q: redaction must not change what is received", clientBody)
	}

	// The recording holds none of the secrets, in any field.
	ex := rec.Exchanges()[0]
	for name, field := range recordedText(ex, live) {
		for _, secret := range append(others, testKey, testKey[:len(testKey)/2], testKey[len(testKey)/2:]) {
			if strings.Contains(field, secret) {
				t.Errorf("%s still contains %q: %q", name, secret, field)
			}
		}
	}
	// ... nor its cassette line.
	line, err := json.Marshal(newExchangeJSON(hooked))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), testKey) {
		t.Errorf("the cassette line contains the key: %s", line)
	}

	wantNotes := []string{
		"query key",
		"query pageToken",
		"header authorization",
		"header cookie",
		"secret value in header x-note",
		"header x-custom-token",
		"header x-goog-api-key",
		"secret value in request body",
		"response header set-cookie",
		"secret value in response header x-echo",
		"secret value in response body",
	}
	for _, n := range wantNotes {
		if !slices.Contains(ex.Redacted, n) {
			t.Errorf("Redacted = %q, want it to list %q", ex.Redacted, n)
		}
	}
	if len(ex.Chunks) < 2 {
		t.Errorf("recorded %d chunks, want the body in at least two", len(ex.Chunks))
	}
	if got := string(joinChunks(ex.Chunks)); got != string(ex.ResponseBody) {
		t.Errorf("the chunks join to %q but the body is %q", got, ex.ResponseBody)
	}
	if !strings.Contains(string(ex.ResponseBody), "Invalid API key: "+RedactedMark) {
		t.Errorf("response body = %q, want the key replaced by %s", ex.ResponseBody, RedactedMark)
	}
}

// recordedText lists every text field of a recorded exchange, by name.
func recordedText(ex Exchange, live []Chunk) map[string]string {
	fields := map[string]string{
		"URL":           ex.URL,
		"request body":  string(ex.RequestBody),
		"response body": string(ex.ResponseBody),
		"error":         ex.Err,
		"divergence":    ex.Divergence,
	}
	for name, values := range ex.RequestHeaders {
		fields["request header "+name] = strings.Join(values, "\n")
	}
	for name, values := range ex.ResponseHeaders {
		fields["response header "+name] = strings.Join(values, "\n")
	}
	for i, c := range ex.Chunks {
		fields["chunk "+string(rune('0'+i))] = string(c.Data)
	}
	for i, c := range live {
		fields["live chunk "+string(rune('0'+i))] = string(c.Data)
	}
	return fields
}

func TestSensitiveNames(t *testing.T) {
	tests := []struct {
		name      string
		header    bool
		parameter bool
	}{
		{"x-goog-api-key", true, true},
		{"Authorization", true, false},
		{"Proxy-Authorization", true, false},
		{"Cookie", true, false},
		{"Set-Cookie", true, false},
		{"X-Api-Token", true, true},
		{"X-Client-Secret", true, true},
		{"X-Auth-User", true, false},
		{"key", true, true},
		{"Content-Type", false, false},
		{"User-Agent", false, false},
		{"Keep-Alive", false, false},
		{"alt", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isSensitiveHeader(tt.name); got != tt.header {
				t.Errorf("isSensitiveHeader(%q) = %v, want %v", tt.name, got, tt.header)
			}
			if got := isSensitiveParam(tt.name); got != tt.parameter {
				t.Errorf("isSensitiveParam(%q) = %v, want %v", tt.name, got, tt.parameter)
			}
		})
	}
}

func TestMaskBytes(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"no secrets", nil, "abc SECRETVALUE", "abc SECRETVALUE"},
		{"one occurrence", []string{"SECRETVALUE"}, "abc SECRETVALUE def", "abc [REDACTED] def"},
		{"several occurrences", []string{"SECRETVALUE"}, "SECRETVALUESECRETVALUE", "[REDACTED][REDACTED]"},
		{"the longer of two overlapping secrets wins", []string{"abcd", "abcdefgh"}, "xabcdefghx abcdx", "x[REDACTED]x [REDACTED]x"},
		{"empty and too-short secrets are ignored", []string{"", "  ", "ab"}, "ab ab", "ab ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, masked := newRedactor(tt.secrets).maskString(tt.in)
			if got != tt.want {
				t.Errorf("mask(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if masked != (tt.in != tt.want) {
				t.Errorf("masked = %v for %q", masked, tt.in)
			}
		})
	}
}

// TestStreamRedactorMatchesWholeBodyRedaction feeds a body in every possible
// two- and three-piece split and checks that what the stream shows equals
// redacting the whole body at once: no secret slips through a read boundary.
func TestStreamRedactorMatchesWholeBodyRedaction(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		body    string
	}{
		{"a secret in the middle", []string{"SECRETVALUE"}, "head SECRETVALUE tail"},
		{"a secret at the very end", []string{"SECRETVALUE"}, "head SECRETVALUE"},
		{"a near miss at the end", []string{"SECRETVALUE"}, "head SECRETVAL"},
		{"a secret that overlaps itself", []string{"abcab"}, "xxabcabcabyy"},
		{"a secret that is a prefix of another", []string{"abcd", "abcdefgh"}, "1abcdefgh2abcd3abcdef"},
		{"no secret at all", []string{"SECRETVALUE"}, "plain text only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRedactor(tt.secrets)
			want, _ := r.maskString(tt.body)
			for i := 0; i <= len(tt.body); i++ {
				for j := i; j <= len(tt.body); j++ {
					s := &streamRedactor{r: r}
					var got []byte
					for _, piece := range []string{tt.body[:i], tt.body[i:j], tt.body[j:]} {
						out, _ := s.feed([]byte(piece))
						got = append(got, out...)
					}
					tail, _ := s.flush()
					got = append(got, tail...)
					if string(got) != want {
						t.Fatalf("split at %d,%d: stream shows %q, want %q", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestURLRedaction(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		want      string
		wantNotes []string
	}{
		{"no credentials", "https://h.test/v1beta/models/m:generateContent?alt=sse", "https://h.test/v1beta/models/m:generateContent?alt=sse", nil},
		{"key parameter", "https://h.test/p?alt=sse&key=" + testKey, "https://h.test/p?alt=sse&key=[REDACTED]", []string{"query key"}},
		{"password in user info", "https://me:pa55word@h.test/p", "https://me:xxxxx@h.test/p", []string{"URL password"}},
		{"key in the path", "https://h.test/keys/" + testKey, "https://h.test/keys/[REDACTED]", []string{"secret value in URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := newRequest(t, context.Background(), http.MethodGet, tt.url, "")
			var n notes
			got := newRedactor([]string{testKey}).url(req.URL, &n)
			if got != tt.want {
				t.Errorf("url = %q, want %q", got, tt.want)
			}
			if !slices.Equal([]string(n), tt.wantNotes) {
				t.Errorf("notes = %q, want %q", n, tt.wantNotes)
			}
		})
	}
}

// Issue 12 item 6: a key printed in another spelling — base64 (inside a
// larger block, at any offset, either alphabet, padded or not), hex, URL
// escaping — is masked like the key itself.
func TestMaskerMasksEncodedSecrets(t *testing.T) {
	key := "AIzaSy-test/SECRET+key=4242"
	m := NewMasker(key)
	leaks := func(masked string) bool {
		for _, seg := range strings.Split(masked, RedactedMark) {
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				for off := 0; off < 4 && off < len(seg); off++ {
					s := strings.TrimRight(seg[off:], "=")
					for n := len(s); n > 0; n-- {
						if b, err := enc.DecodeString(s[:n]); err == nil {
							if strings.Contains(string(b), key) {
								return true
							}
							break
						}
					}
				}
			}
			if strings.Contains(seg, key) {
				return true
			}
		}
		return false
	}
	for lead := range 6 {
		block := strings.Repeat("x", lead) + "GEMINI_API_KEY=" + key + "\x00PATH=/usr/bin\x00"
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			text := enc.EncodeToString([]byte(block))
			if !leaks(text) {
				t.Fatalf("the test's leak check misses the plain encoding %q", text)
			}
			if masked := m.Mask(text); leaks(masked) {
				t.Errorf("lead %d: base64 still holds the key: %s", lead, masked)
			}
		}
	}
	for _, spelled := range []string{hex.EncodeToString([]byte(key)), strings.ToUpper(hex.EncodeToString([]byte(key))), url.QueryEscape(key), url.PathEscape(key)} {
		if masked := m.Mask("value: " + spelled + " end"); strings.Contains(masked, spelled) || !strings.Contains(masked, RedactedMark) {
			t.Errorf("%q was not masked: %s", spelled, masked)
		}
	}
	if got := m.Mask("an ordinary sentence about base64 and hex"); got != "an ordinary sentence about base64 and hex" {
		t.Errorf("ordinary text changed: %s", got)
	}
}
