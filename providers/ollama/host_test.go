package ollama

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

func TestHostFromEnv(t *testing.T) {
	tests := []struct {
		name       string
		ollamaHost string
		baseURL    string
		host       string
		source     string
	}{
		{"nothing set", "", "", DefaultHost, SourceDefault},
		{"OLLAMA_HOST wins", "http://gpu-box:11434", "http://localhost:9999", "http://gpu-box:11434", SourceOllamaHost},
		{"OLLAMA_BASE_URL when OLLAMA_HOST is unset", "", "http://localhost:9999", "http://localhost:9999", SourceOllamaBaseURL},
		{"OLLAMA_HOST without a scheme", "127.0.0.1:11434", "", "http://127.0.0.1:11434", SourceOllamaHost},
		{"quoted, from a .env file", `"localhost:8080"`, "", "http://localhost:8080", SourceOllamaHost},
		{"blank OLLAMA_HOST falls through", "  ", "localhost:9999", "http://localhost:9999", SourceOllamaBaseURL},
		{"seed's OpenAI-style base URL", "", "http://localhost:11434/v1", "http://localhost:11434", SourceOllamaBaseURL},
		{"invalid value comes back as written", "localhost:99999", "", "localhost:99999", SourceOllamaHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tt.ollamaHost)
			t.Setenv("OLLAMA_BASE_URL", tt.baseURL)
			host, source := HostFromEnv()
			if host != tt.host || source != tt.source {
				t.Errorf("HostFromEnv() = %q, %q; want %q, %q", host, source, tt.host, tt.source)
			}
		})
	}
}

// The cases of Ollama's own OLLAMA_HOST table (see the SDK notes), plus the
// ones glassbox adds.
func TestNormalizeHost(t *testing.T) {
	tests := []struct {
		raw  string
		want string
	}{
		{"", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"localhost:8080", "http://localhost:8080"},
		{"example.com", "http://example.com:11434"},
		{"http://example.com", "http://example.com:80"},
		{"https://example.com/ollama", "https://example.com:443/ollama"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"ollama.com", "https://ollama.com:443"},
		{"127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"http://127.0.0.1:11434/", "http://127.0.0.1:11434"},
		{"http://localhost:11434/v1", "http://localhost:11434"},
		{"http://localhost:11434/api/", "http://localhost:11434"},
		{"https://proxy.example/ollama/v1", "https://proxy.example:443/ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := NormalizeHost(tt.raw)
			if err != nil || got != tt.want {
				t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
			}
		})
	}
}

func TestNormalizeHostRejects(t *testing.T) {
	tests := []struct {
		raw  string
		want string
	}{
		{"localhost:port", `the Ollama address "localhost:port" has the port "port", which is not a number from 0 to 65535`},
		{"http://localhost:70000", `the Ollama address "http://localhost:70000" has the port "70000", which is not a number from 0 to 65535`},
		{"unix:///tmp/ollama.sock", `the Ollama address "unix:///tmp/ollama.sock" has the scheme "unix"; use http:// or https://`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, err := NormalizeHost(tt.raw)
			if err == nil || err.Error() != tt.want {
				t.Errorf("NormalizeHost(%q) error = %v, want %q", tt.raw, err, tt.want)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	answering := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/version" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"version":"0.17.4"}`))
	}))
	defer answering.Close()
	notOllama := httptest.NewServer(http.NotFoundHandler())
	defer notOllama.Close()
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer hanging.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()

	tests := []struct {
		name    string
		host    string
		timeout time.Duration
		kind    providers.ErrorKind // empty: success
		message string
	}{
		{name: "Ollama answers", host: answering.URL},
		{name: "nothing listens", host: closed, kind: providers.KindUnreachable, message: "Ollama is not running at http://" + closed},
		{name: "something else answers", host: notOllama.URL, kind: providers.KindNotFound, message: "does not look like an Ollama server"},
		{name: "no answer in time", host: hanging.URL, timeout: 50 * time.Millisecond, kind: providers.KindNetwork, message: "within the probe's time limit"},
		{name: "not an address", host: "localhost:x", kind: providers.KindBadRequest, message: `has the port "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			err := Probe(ctx, tt.host, nil)
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("Probe: %v", err)
				}
				return
			}
			var pe *providers.Error
			if !errors.As(err, &pe) || pe.Kind != tt.kind || !strings.Contains(pe.Message, tt.message) {
				t.Errorf("Probe error = %#v, want kind %q with %q", err, tt.kind, tt.message)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string][]string
		want   time.Duration
	}{
		{"seconds", map[string][]string{"Retry-After": {"12"}}, 12 * time.Second},
		{"lower-case name", map[string][]string{"retry-after": {"3"}}, 3 * time.Second},
		{"HTTP date", map[string][]string{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", map[string][]string{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"negative", map[string][]string{"Retry-After": {"-5"}}, 0},
		{"garbage", map[string][]string{"Retry-After": {"soon"}}, 0},
		{"absent", map[string][]string{"Content-Type": {"application/json"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := providers.RetryAfterOf(&providers.Exchange{ResponseHeaders: tt.header}, now)
			if got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalizeHostNeverEchoesCredentials(t *testing.T) {
	_, err := NormalizeHost("http://alice:s3cretPW@127.0.0.1:11434")
	if err == nil || strings.Contains(err.Error(), "s3cretPW") || !strings.Contains(err.Error(), "user name or password") {
		t.Fatalf("err = %v", err)
	}
}
