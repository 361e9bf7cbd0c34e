package openai

import (
	"context"

	"github.com/glassbox-dev/glassbox/providers/dialect"
)

// The variables that configure the dialect: the ones OpenAI's own SDKs and
// most tools read.
const (
	BaseURLVar = "OPENAI_BASE_URL"
	KeyVar     = "OPENAI_API_KEY"
)

// standInURL is where offline and replayed calls go (dialect.Conn.StandIn).
const standInURL = "http://openai.offline.invalid/v1"

// Dialects is the OpenAI-compatible dialect: chat completions with native
// tool calls.
func Dialects() []dialect.Descriptor {
	codec := Codec()
	return []dialect.Descriptor{{
		Wire: &codec, Emulator: &Emulator, Quirks: &emulatedQuirks,
		Name: Name, Provider: Name,
		Label: "OpenAI-compatible · chat completions tool calls", Short: "the OpenAI-compatible API",
		LabelJA: "OpenAI 互換 · chat completions のツール呼び出し", ShortJA: "OpenAI 互換 API",
		DefaultModel: DefaultModel, Native: Name,
		GenAI:     dialect.GenAI{Provider: "openai", Operation: "chat"},
		Vars:      []string{BaseURLVar, KeyVar},
		Secrets:   []string{KeyVar},
		Addresses: []dialect.Address{{Var: BaseURLVar, What: "live OpenAI-compatible calls, with OPENAI_API_KEY, go to %s"}},
		GoLive:    dialect.GoLive{Set: BaseURLVar, For: dialect.Words{EN: "an OpenAI-compatible server", JA: "OpenAI 互換サーバー"}},
		Live: func(_ context.Context, env dialect.Env) (bool, dialect.Reason) {
			switch {
			case env.Get(BaseURLVar) != "":
				return true, dialect.Sayf("%s is set (%s)", BaseURLVar, env.Get(BaseURLVar))
			case env.Get(KeyVar) != "":
				return true, dialect.Sayf("%s is set: the calls go to %s, OpenAI's own service (name a model it serves with --model)", KeyVar, defaultBaseURL)
			}
			return false, dialect.Sayf("no %s or %s is set", BaseURLVar, KeyVar)
		},
		Destination: destination,
		Open: func(_ context.Context, c dialect.Conn) (dialect.Provider, error) {
			cfg := Config{Model: c.Model, Transport: c.Transport, OnExchange: c.OnExchange, Call: c.Call}
			if c.StandIn {
				cfg.BaseURL, cfg.APIKey, cfg.Placeholder = standInURL, dialect.PlaceholderKey, true
			} else {
				cfg.BaseURL, cfg.APIKey, cfg.Secrets = c.Env.Get(BaseURLVar), c.Env.Get(KeyVar), c.Env.Secrets()
			}
			return New(cfg)
		},
	}}
}

// destination says where the calls go: OPENAI_BASE_URL, or OpenAI's own
// endpoint.
func destination(env dialect.Env) string {
	if u := env.Get(BaseURLVar); u != "" {
		return " (" + u + ")"
	}
	return " (" + defaultBaseURL + ", OpenAI's own service: name a model it serves with --model)"
}
