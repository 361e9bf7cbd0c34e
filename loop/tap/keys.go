package tap

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/glassbox-dev/glassbox/providers"
)

// keyring is what the tap masks: the secrets it started with and every key
// an agent has sent. A key is forwarded upstream as it came — it is the
// agent's — and masked everywhere glassbox writes or shows.
type keyring struct {
	mu      sync.Mutex
	secrets []string
	masker  *providers.Masker
}

func newKeyring(secrets []string) *keyring {
	return &keyring{secrets: slices.Clone(secrets), masker: providers.NewMasker(secrets...)}
}

// see adds the key a call carries, wherever the families put it: Gemini's
// x-goog-api-key header or ?key= parameter, a bearer token (OpenAI, a
// proxy in front of Ollama), Azure's api-key header.
func (k *keyring) see(r *http.Request) {
	var found []string
	for _, v := range []string{r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Api-Key"), r.URL.Query().Get("key")} {
		if v = strings.TrimSpace(v); v != "" {
			found = append(found, v)
		}
	}
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, token, ok := strings.Cut(strings.TrimSpace(auth), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "" {
			found = append(found, strings.TrimSpace(token))
		}
	}
	if len(found) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	added := false
	for _, v := range found {
		if !slices.Contains(k.secrets, v) {
			k.secrets, added = append(k.secrets, v), true
		}
	}
	if added {
		k.masker = providers.NewMasker(k.secrets...)
	}
}

// all are the secrets known now.
func (k *keyring) all() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.secrets)
}

// mask is a Masker for the secrets known now.
func (k *keyring) mask() *providers.Masker {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.masker
}

// Secrets are the secrets the tap masks now: those it started with and the
// agents' keys it has seen (a session or a cassette masks them too).
func (t *Tap) Secrets() []string { return t.keys.all() }

// Masker masks what the tap masks now.
func (t *Tap) Masker() *providers.Masker { return t.keys.mask() }
