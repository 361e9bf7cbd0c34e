package backend

import (
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/ollama"
)

// Env is what the environment says about reaching the providers: keys and
// addresses. It is the one place that knows the variables' names and their
// order of precedence.
type Env struct {
	GeminiKey     string   // the key in use
	GeminiKeyVar  string   // the variable it came from (never the key itself)
	GeminiKeys    []string // every key value set, all masked wherever they appear
	GeminiBaseURL string   // GOOGLE_GEMINI_BASE_URL; "" for Google's endpoint
	OllamaHost    string   // the Ollama base URL
	OllamaHostVar string   // OLLAMA_HOST, OLLAMA_BASE_URL or ollama.SourceDefault
	// Withheld are the values of every other variable whose name or value
	// looks secret (providers.SecretValues): masked too, never sent.
	Withheld []string
}

// KeyVars are the variables that may hold a Gemini key (gemini.KeyVars).
var KeyVars = gemini.KeyVars

// Vars are every variable Env reads: what a .env file may set for glassbox.
var Vars = append(append([]string{}, KeyVars...), "GOOGLE_GEMINI_BASE_URL", ollama.SourceOllamaHost, ollama.SourceOllamaBaseURL)

// EnvFrom reads the variables through lookup (os.Getenv, or layers of
// .env and the environment).
func EnvFrom(lookup func(string) string) Env {
	var e Env
	for _, name := range KeyVars {
		v := strings.TrimSpace(lookup(name))
		if v == "" {
			continue
		}
		e.GeminiKeys = append(e.GeminiKeys, v)
		if e.GeminiKey == "" {
			e.GeminiKey, e.GeminiKeyVar = v, name
		}
	}
	e.GeminiBaseURL = strings.TrimSpace(lookup("GOOGLE_GEMINI_BASE_URL"))
	e.OllamaHost, e.OllamaHostVar = ollama.HostFrom(lookup)
	return e
}

// Secrets are the values to mask in everything recorded or shown.
func (e Env) Secrets() []string { return append(slices.Clone(e.GeminiKeys), e.Withheld...) }

// geminiDestination says where the key goes when it is not Google's own
// endpoint: a .env or a classroom proxy may point it elsewhere, and the
// person must see that.
func (e Env) geminiDestination() string {
	if e.GeminiBaseURL == "" {
		return ""
	}
	return "; the key goes to " + e.GeminiBaseURL + " (GOOGLE_GEMINI_BASE_URL), not to Google"
}
