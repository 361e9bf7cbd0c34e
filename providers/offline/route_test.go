package offline_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/offline"
)

// named is an emulator that answers every request with its own name.
func named(name string, paths []string, claims func(string) bool) *offline.Emulator {
	return &offline.Emulator{Name: name, Paths: paths, Claims: claims, New: func(*offline.Tutor) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, name) })
	}}
}

// A path one emulator serves goes to it even when another, registered
// first, claims the whole prefix for its API's own 404s; a path only
// claimed goes to the one that claims it. Before, the first to claim took
// it: a dialect serving /v1/messages was reached only if registered before
// the chat completions API, which claims all of /v1/.
func TestAServedPathWinsOverAClaimedPrefix(t *testing.T) {
	prefix := named("completions", []string{"POST /v1/chat/completions"}, func(p string) bool { return strings.HasPrefix(p, "/v1/") })
	exact := named("messages", []string{"POST /v1/messages"}, func(p string) bool { return p == "/v1/messages" })
	for _, order := range [][]*offline.Emulator{{prefix, exact}, {exact, prefix}} {
		s := offline.NewHandler(offline.Config{}, order...)
		for path, want := range map[string]string{"/v1/messages": "messages", "/v1/chat/completions": "completions", "/v1/other": "completions"} {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, nil))
			if got := w.Body.String(); got != want {
				t.Errorf("%s with %s registered first went to %q, want %q", path, order[0].Name, got, want)
			}
		}
	}
}
