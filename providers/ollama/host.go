package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/providers"
)

// DefaultHost is where a local `ollama serve` listens.
const DefaultHost = "http://127.0.0.1:11434"

// Where HostFromEnv found the address; the auto-backend choice shows it.
const (
	SourceOllamaHost    = "OLLAMA_HOST"
	SourceOllamaBaseURL = "OLLAMA_BASE_URL"
	SourceDefault       = "default"
)

// defaultProbeTimeout bounds Probe when the caller's context has no deadline.
const defaultProbeTimeout = time.Second

// HostFromEnv says which Ollama server to talk to and why: OLLAMA_HOST (the
// variable Ollama itself reads), then OLLAMA_BASE_URL (the seed project's
// name for it), then the default local address. The host comes back
// normalized the way Ollama normalizes OLLAMA_HOST ("127.0.0.1:11434" becomes
// "http://127.0.0.1:11434"); a value that cannot be normalized comes back as
// written, and New reports what is wrong with it.
func HostFromEnv() (host string, source string) { return HostFrom(os.Getenv) }

// HostFrom is HostFromEnv reading the variables through lookup.
func HostFrom(lookup func(string) string) (host string, source string) {
	for _, name := range []string{SourceOllamaHost, SourceOllamaBaseURL} {
		raw := envValue(lookup(name))
		if raw == "" {
			continue
		}
		normalized, err := NormalizeHost(raw)
		if err != nil {
			return raw, name
		}
		return normalized, name
	}
	return DefaultHost, SourceDefault
}

// envValue cleans a variable's value the way Ollama does: surrounding spaces and
// quotes are dropped, so OLLAMA_HOST="localhost:8080" from a .env file works.
func envValue(raw string) string {
	return strings.Trim(strings.TrimSpace(raw), `"'`)
}

// NormalizeHost turns an OLLAMA_HOST-style address into a base URL, following
// Ollama's own rules: a missing scheme means http, a missing port means 11434
// (or 80/443 when the scheme is given), a bare "ollama.com" means
// https://ollama.com:443, and a path is kept. A trailing "/v1" or "/api" is
// dropped, because the seed's OLLAMA_BASE_URL may point at Ollama's
// OpenAI-compatible endpoint while the native client adds "/api/chat" itself.
func NormalizeHost(raw string) (string, error) {
	s := strings.Trim(strings.TrimSpace(raw), `"'`)
	if s == "" {
		return DefaultHost, nil
	}

	scheme, hostport, defaultPort, err := splitScheme(s, raw)
	if err != nil {
		return "", err
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	if strings.Contains(hostport, "@") {
		// Never quoted back: the part before @ may be a password.
		return "", errors.New("the Ollama address holds a user name or password (user:pass@host); Ollama does not use them — set OLLAMA_HOST to just the address, e.g. http://127.0.0.1:11434")
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port given: "example.com", "0.0.0.0" or "[::1]".
		host, port = strings.Trim(hostport, "[]"), defaultPort
		if host == "" {
			host = "127.0.0.1"
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("the Ollama address %q has the port %q, which is not a number from 0 to 65535", raw, port)
	}

	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = apiless(path); path != "" {
		u.Path = "/" + path
	}
	return u.String(), nil
}

// splitScheme splits an address s (raw as the person wrote it) into its
// scheme, the rest, and the port a scheme implies: none means http on
// 11434, and a bare "ollama.com" https on 443.
func splitScheme(s, raw string) (scheme, rest, defaultPort string, err error) {
	scheme, rest, hasScheme := strings.Cut(s, "://")
	switch {
	case !hasScheme && s == "ollama.com":
		return "https", "ollama.com:443", "11434", nil
	case !hasScheme:
		return "http", s, "11434", nil
	case scheme == "http":
		return scheme, rest, "80", nil
	case scheme == "https":
		return scheme, rest, "443", nil
	}
	return "", "", "", fmt.Errorf("the Ollama address %q has the scheme %q; use http:// or https://", raw, scheme)
}

// apiless is an address's path without a trailing slash, "v1" or "api":
// the native client adds "/api/chat" itself.
func apiless(path string) string {
	path = strings.TrimSuffix(path, "/")
	for _, suffix := range []string{"v1", "api"} {
		if path == suffix || strings.HasSuffix(path, "/"+suffix) {
			path = strings.TrimSuffix(strings.TrimSuffix(path, suffix), "/")
		}
	}
	return path
}

// Probe asks the Ollama server at host for its version (GET /api/version) and
// reports whether it answered. The auto-backend choice uses it to decide
// between live Llama and the offline simulation, so it gives up quickly: at
// the context's deadline, or after one second when the context has none. rt
// is the HTTP transport to use; nil means http.DefaultTransport.
func Probe(ctx context.Context, host string, rt http.RoundTripper) error {
	base, err := NormalizeHost(host)
	if err != nil {
		return providers.Errorf(providers.KindBadRequest, 0, err, "%s.", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return providers.Errorf(providers.KindBadRequest, 0, err, "the Ollama address %q is not a valid URL: %v.", base, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultProbeTimeout)
		defer cancel()
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	client := api.NewClient(u, &http.Client{Transport: rt})
	if _, err := client.Version(ctx); err != nil {
		return explainProbeError(ctx, base, err)
	}
	return nil
}
