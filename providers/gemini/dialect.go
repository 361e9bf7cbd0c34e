package gemini

import (
	"context"
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/providers/dialect"
)

// BaseURLVar is the genai SDK's own variable for another service address.
const BaseURLVar = "GOOGLE_GEMINI_BASE_URL"

// standInURL is where offline and replayed calls go (dialect.Conn.StandIn).
const standInURL = "http://gemini.offline.invalid/"

// Dialects is Gemini's one dialect: native function calling.
func Dialects() []dialect.Descriptor {
	codec := Codec()
	return []dialect.Descriptor{{
		Wire: &codec, Emulator: &Emulator, Quirks: &emulatedQuirks,
		Name: Name, Provider: Name,
		Label: "Gemini · native function calling", Short: "Gemini",
		LabelJA: "Gemini · ネイティブの関数呼び出し", ShortJA: "Gemini",
		DefaultModel: DefaultModel,
		Vars:         append(append([]string{}, KeyVars...), BaseURLVar),
		Secrets:      KeyVars,
		Addresses:    []dialect.Address{{Var: BaseURLVar, What: "live Gemini calls, with the Gemini key, go to %s instead of Google"}},
		GoLive:       dialect.GoLive{Set: "GEMINI_API_KEY", For: dialect.Words{EN: "Gemini", JA: "Gemini"}},
		Native:       Name,
		// The Gemini API (generativelanguage.googleapis.com).
		GenAI: dialect.GenAI{Provider: "gcp.gemini", Operation: "generate_content"},
		Live: func(_ context.Context, env dialect.Env) (bool, dialect.Reason) {
			name, _ := env.First(KeyVars...)
			switch {
			case name == "":
				return false, dialect.Sayf("no %s or %s is set", KeyVars[1], KeyVars[0]) // the key Google's docs name first
			case env.Get(BaseURLVar) != "":
				return true, dialect.Sayf("%s is set; the key goes to %s (%s), not to Google", name, env.Get(BaseURLVar), BaseURLVar)
			}
			return true, dialect.Sayf("%s is set", name)
		},
		Destination: destination,
		Open: func(ctx context.Context, c dialect.Conn) (dialect.Provider, error) {
			cfg := Config{Model: c.Model, Transport: c.Transport, OnExchange: c.OnExchange, Call: c.Call}
			if c.StandIn {
				cfg.APIKey, cfg.Placeholder, cfg.BaseURL = dialect.PlaceholderKey, true, standInURL
			} else {
				_, cfg.APIKey = c.Env.First(KeyVars...)
				cfg.BaseURL = c.Env.Get(BaseURLVar)
			}
			return New(ctx, cfg)
		},
		Dropped: func(native [][]byte) string {
			n := 0
			for _, d := range native {
				n += strings.Count(string(d), `"thoughtSignature"`)
			}
			switch n {
			case 0:
				return ""
			case 1:
				return ", with 1 Gemini thought signature"
			}
			return fmt.Sprintf(", with %d Gemini thought signatures", n)
		},
	}}
}

// destination says where the key goes when it is not Google's own
// endpoint: a .env or a classroom proxy may point it elsewhere, and the
// person must see that.
func destination(env dialect.Env) string {
	u := env.Get(BaseURLVar)
	if u == "" {
		return ""
	}
	return "; the key goes to " + u + " (" + BaseURLVar + "), not to Google"
}
