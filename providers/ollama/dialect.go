package ollama

import (
	"context"
	"time"

	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Name is the provider's name in traces, sessions and cassettes.
const Name = "llama"

// standInURL is where offline and replayed calls go (dialect.Conn.StandIn).
const standInURL = "http://ollama.offline.invalid"

// probeTimeout bounds the check for a local Ollama when nothing says where
// one runs.
const probeTimeout = 300 * time.Millisecond

// Dialects are Llama's two: JSON-mode prompting (the seed's design, and
// the default) and Ollama's native tools. "ollama" names the provider too,
// as people type it.
func Dialects() []dialect.Descriptor {
	codec := Codec() // one API, read the same way for both tool modes
	return []dialect.Descriptor{
		descriptor(Name, ToolModeJSON, NativeLlamaJSON, &codec, &jsonQuirks,
			dialect.Words{EN: "Llama · JSON-mode prompting", JA: "Llama · JSON モードのプロンプト"}),
		descriptor(Name+":"+ToolModeNative, ToolModeNative, NativeLlamaNative, &codec, &nativeQuirks,
			dialect.Words{EN: "Llama · Ollama's native tools", JA: "Llama · Ollama ネイティブのツール"}),
	}
}

// GenAIProvider is gen_ai.provider.name of Ollama's calls: the semantic
// conventions (v1.41.0) list no value for Ollama, so glassbox uses this
// custom one, as the conventions allow.
const GenAIProvider = "ollama"

func descriptor(name, mode, native string, codec *wire.Codec, quirks *offline.Quirks, label dialect.Words) dialect.Descriptor {
	return dialect.Descriptor{
		Wire: codec, Emulator: &Emulator, Quirks: quirks,
		Name: name, Aliases: []string{"ollama" + name[len(Name):]}, Provider: Name, ToolMode: mode,
		Label: label.EN, LabelJA: label.JA, Short: quirks.Name.EN, ShortJA: quirks.Name.JA,
		DefaultModel: DefaultModel, Native: native,
		Vars:      []string{SourceOllamaHost, SourceOllamaBaseURL},
		Addresses: []dialect.Address{{Var: SourceOllamaHost, What: "live Llama calls go to %s"}, {Var: SourceOllamaBaseURL, What: "live Llama calls go to %s"}},
		GoLive:    dialect.GoLive{Run: "ollama serve", For: dialect.Words{EN: "Llama", JA: "Llama"}},
		// The conventions have no value for Ollama: glassbox's own,
		// documented in docs/standards.md. Its /api/chat is a chat.
		GenAI: dialect.GenAI{Provider: GenAIProvider, Operation: "chat"},
		Live: func(ctx context.Context, env dialect.Env) (bool, dialect.Reason) {
			host, source := HostFrom(env.Get)
			if source != SourceDefault {
				return true, dialect.Sayf("%s is set (%s)", source, host)
			}
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			if err := Probe(pctx, host, nil); err != nil {
				return false, dialect.Sayf("%s is not set and nothing answered at %s", SourceOllamaHost, host)
			}
			return true, dialect.Sayf("%s answered at %s", "Ollama", host)
		},
		Destination: func(env dialect.Env) string {
			host, _ := HostFrom(env.Get)
			return " (" + host + ")"
		},
		Open: func(_ context.Context, c dialect.Conn) (dialect.Provider, error) {
			cfg := Config{Model: c.Model, ToolMode: mode, Transport: c.Transport, OnExchange: c.OnExchange, Call: c.Call}
			if c.StandIn {
				cfg.Host = standInURL
			} else {
				cfg.Host, _ = HostFrom(c.Env.Get)
			}
			return New(cfg)
		},
	}
}
