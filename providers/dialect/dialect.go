// Package dialect describes a way of talking to a model — a provider's API
// and how it offers the tools — as one value, a Descriptor. Each provider
// package (gemini, ollama, openai) builds the descriptors of its own
// dialects; providers/backend lists them, one line per package, and
// everything outside providers/ asks that list. No other package spells a
// dialect's name, its variables or its default model.
package dialect

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Provider is what a dialect opens: the loop's provider interface
// (loop.Provider has the same methods; this package may not import loop).
type Provider interface {
	Name() string
	Model() string
	Call(ctx context.Context, req providers.Request) (*providers.Response, error)
}

// Descriptor is everything glassbox knows about one dialect.
type Descriptor struct {
	// Name is how --compare and the fork menu name it: "gemini",
	// "llama:native", "openai".
	Name string
	// Aliases are other names it answers to ("ollama").
	Aliases []string
	// Provider is the provider's name on the wire of glassbox's own files:
	// the trace, session headers, cassettes ("gemini", "llama").
	Provider string
	// ToolMode tells apart the dialects of one provider ("json",
	// "native"); "" when the provider offers tools one way.
	ToolMode string
	// Label is a few words for people: "Gemini · native function calling".
	Label string
	// Short names it inside a sentence: "Gemini", "Llama (JSON mode)".
	Short string
	// LabelJA and ShortJA are Label and Short in Japanese: a dialect brings
	// its own words, so adding one touches no catalogue (LabelIn).
	LabelJA, ShortJA string
	// DefaultModel is the model used when --model names none.
	DefaultModel string
	// Vars are the environment variables that configure it, in order of
	// precedence; Secrets are those of them that hold a secret (masked
	// everywhere); Addresses are those that send its calls elsewhere (a
	// .env that sets one is warned about).
	Vars      []string
	Secrets   []string
	Addresses []Address
	// GoLive says how a person turns the live service on.
	GoLive GoLive
	// Native is the history.Native provider name its replies carry.
	Native string
	// Live says whether the live service is configured, and why (the
	// auto rule when neither --offline nor --live is given).
	Live func(ctx context.Context, env Env) (bool, Reason)
	// Destination says where --live sends the calls, for the banner.
	Destination func(env Env) string
	// Open makes the provider for one connection.
	Open func(ctx context.Context, c Conn) (Provider, error)
	// GenAI names the dialect in OpenTelemetry's GenAI semantic
	// conventions (loop/telemetry).
	GenAI GenAI
	// Dropped, when set, says what a fork onto another dialect loses
	// beyond the replies themselves, given each dropped reply's native
	// encoding (Gemini: ", with 3 Gemini thought signatures"); "" for
	// nothing.
	Dropped func(native [][]byte) string
	// Emulator is the dialect's API in the offline simulation (package
	// offline); the dialects of one API share it.
	Emulator *offline.Emulator
	// Quirks are how the dialect differs where the lessons show it; its
	// emulator hands the same to the tutor.
	Quirks *offline.Quirks
	// Wire reads the dialect's calls from their bytes — any agent's, not
	// only glassbox's — and knows their paths (package wire). The
	// dialects of one API family share it.
	Wire *wire.Codec
}

// LabelIn is the label in language lang ("ja" or anything else for
// English).
func (d Descriptor) LabelIn(lang string) string {
	return Words{EN: d.Label, JA: cmp.Or(d.LabelJA, d.Label)}.In(lang)
}

// ShortIn is the short name in language lang.
func (d Descriptor) ShortIn(lang string) string {
	return Words{EN: d.Short, JA: cmp.Or(d.ShortJA, d.Short)}.In(lang)
}

// Words are a few words in English and in Japanese.
type Words = offline.Words

// GoLive is how a person turns a dialect's live service on: set a
// variable, or run a command, and what that turns on.
type GoLive struct {
	// Set is the variable to set ("GEMINI_API_KEY"), or Run the command to
	// run ("ollama serve").
	Set, Run string
	// For is what it turns on ("Gemini", "an OpenAI-compatible server").
	For Words
}

// Zero reports whether g says nothing (a dialect with no live service of
// its own to turn on).
func (g GoLive) Zero() bool { return g.Set == "" && g.Run == "" }

// String is g in English: "set GEMINI_API_KEY (Gemini)".
func (g GoLive) String() string { return g.Say("en", fmt.Sprintf) }

// Say is g in language lang, through a front end's sentence formatter f
// (its catalogue's F): the verb and its parentheses are a catalogue
// sentence, the variable or command stays as it is typed, what it turns on
// is the dialect's own words.
func (g GoLive) Say(lang string, f func(format string, a ...any) string) string {
	if g.Run != "" {
		return f("run %s (%s)", g.Run, g.For.In(lang))
	}
	return f("set %s (%s)", g.Set, g.For.In(lang))
}

// Reason says why a dialect's live service is used or not (Descriptor.Live):
// a sentence for a person, kept as its English format and the values that
// fill it, as a sentence error is (history/sentence), so the trace keeps
// the English and a front end says it in the reader's language with the
// format as the key of its catalogue.
type Reason struct {
	Format string   `json:"format"`
	Args   []string `json:"args,omitempty"`
}

// Sayf makes a Reason. ui/lang's catalogue test reads every Sayf call and
// fails when its format has no Japanese.
func Sayf(format string, args ...string) Reason { return Reason{Format: format, Args: args} }

// Zero reports whether r says nothing.
func (r Reason) Zero() bool { return r.Format == "" }

// String is the reason in English.
func (r Reason) String() string {
	format, args := r.Sentence()
	return fmt.Sprintf(format, args...)
}

// Sentence is the format and its values, for a front end's formatter.
func (r Reason) Sentence() (string, []any) {
	args := make([]any, len(r.Args))
	for i, a := range r.Args {
		args[i] = a
	}
	return r.Format, args
}

// GenAI is how the OpenTelemetry GenAI semantic conventions (v1.41.0)
// name a dialect's calls: gen_ai.provider.name ("gcp.gemini", "openai", or
// a custom value where the conventions have none) and the
// gen_ai.operation.name of one model call ("generate_content", "chat").
type GenAI struct {
	Provider  string
	Operation string
}

// Address is a variable that sends a dialect's calls to another server.
type Address struct {
	Var string
	// What says what setting it does, with %s for the value: "live Llama
	// calls go to %s".
	What string
}

// Names are every name d answers to: its own, then its aliases.
func (d Descriptor) Names() []string { return append([]string{d.Name}, d.Aliases...) }

// Conn is how a dialect's provider is reached for one run.
type Conn struct {
	// Model is the model id; "" for the dialect's default.
	Model string
	// Env holds the variables the dialect reads (live only).
	Env Env
	// StandIn says the call never reaches the live service (offline
	// simulation, replay): the provider is given PlaceholderKey and an
	// address under the reserved .invalid domain — nothing resolves there,
	// and a learner reading the payload sees at once that the request never
	// left the machine — instead of anything from Env.
	StandIn bool
	// Transport is the HTTP transport under the wire capture; nil means
	// the network.
	Transport http.RoundTripper
	// OnExchange receives every completed, redacted exchange (cassette
	// recording).
	OnExchange func(providers.Exchange)
	// Call is what the command line says about every call: the limits
	// (--stall, --call-timeout), unary or streamed (--stream=false), and
	// Llama's reply bound (--num-predict).
	Call providers.CallOptions
}

// PlaceholderKey stands in for an API key where none is needed (offline,
// replay). The capture masks a key's literal value everywhere, so it must
// be a string that never occurs in a payload.
const PlaceholderKey = "glassbox-placeholder-key-0000"

// Env is what the environment (and a .env file) says: the value of every
// variable a registered dialect reads, trimmed, unset ones absent.
type Env struct {
	vals    map[string]string
	secrets []string
}

// NewEnv reads vars through lookup; secrets names those that hold secrets.
func NewEnv(lookup func(string) string, vars, secrets []string) Env {
	e := Env{vals: map[string]string{}}
	for _, name := range vars {
		if v := strings.TrimSpace(lookup(name)); v != "" {
			e.vals[name] = v
		}
	}
	for _, name := range secrets {
		if v := e.vals[name]; v != "" && !slices.Contains(e.secrets, v) {
			e.secrets = append(e.secrets, v)
		}
	}
	return e
}

// Get is a variable's value ("" when unset).
func (e Env) Get(name string) string { return e.vals[name] }

// First is the first of names that is set, and its value.
func (e Env) First(names ...string) (name, value string) {
	for _, n := range names {
		if v := e.vals[n]; v != "" {
			return n, v
		}
	}
	return "", ""
}

// Secrets are the values to mask in everything recorded or shown: every
// secret variable's value, whichever dialect runs.
func (e Env) Secrets() []string { return e.secrets }

// WithSecrets is e with more values to mask: every other variable whose
// name or value looks secret (providers.SecretValues), and the secrets of
// a workspace's .env files.
func (e Env) WithSecrets(more ...string) Env {
	e.secrets = slices.Clone(e.secrets)
	for _, v := range more {
		if v != "" && !slices.Contains(e.secrets, v) {
			e.secrets = append(e.secrets, v)
		}
	}
	return e
}
