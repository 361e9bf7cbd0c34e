// Package backend decides how a model dialect is reached — the live service,
// the offline simulation or a replayed cassette — and builds its provider
// (docs/architecture.md, "How a run is opened"). Every dialect glassbox speaks is one row of one
// table, so a third provider is one more row.
package backend

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/ollama"
)

// Provider is what a backend hands to the agent loop (loop.Provider has the
// same methods; this package may not import loop).
type Provider interface {
	Name() string
	Model() string
	Call(ctx context.Context, req providers.Request) (*providers.Response, error)
}

// The three kinds of backend, as the status bar and the trace name them.
const (
	KindLive    = "live"
	KindOffline = "offline"
	KindReplay  = "replay"
)

// Offline and replayed calls go to the reserved .invalid domain: nothing
// resolves there, and a learner reading the payload pane sees at once that
// the request never left the machine.
const (
	offlineGeminiURL = "http://gemini.offline.invalid/"
	offlineOllamaURL = "http://ollama.offline.invalid"
)

// placeholderKey stands in for an API key where none is needed (offline,
// replay). The capture masks the key's literal value everywhere, so it must
// be a string that never occurs in a payload.
const placeholderKey = "glassbox-placeholder-key-0000"

// probeTimeout bounds the check for a local Ollama when nothing says where
// one runs.
const probeTimeout = 300 * time.Millisecond

// ErrWrongDialect is returned when a cassette was recorded with another
// dialect than the one asked for: a usage mistake.
var ErrWrongDialect = errors.New("the cassette belongs to another provider")

// Dialect is one way of talking to a model: a provider and, for Llama, how
// the tools are offered.
type Dialect struct {
	Name     string // as --compare names it: "gemini", "llama", "llama:native"
	Provider string // as --provider names it: "gemini", "llama"
	ToolMode string // Llama: "json" or "native"; "" for Gemini
	Label    string // a few words for people

	// live says whether the live service is configured, and why.
	live func(ctx context.Context, env Env) (bool, string)
	// build makes the provider for one connection.
	build func(ctx context.Context, c connection) (Provider, error)
}

// connection is how a dialect's provider is reached: the live address and
// key, or placeholders and an in-process transport.
type connection struct {
	model      string
	key        string
	secrets    []string // every key value to mask
	geminiURL  string   // "" means the SDK's own default
	ollamaHost string
	toolMode   string
	transport  http.RoundTripper // nil means the network
	onExchange func(providers.Exchange)
	call       providers.CallOptions // limits, streamed or unary, num_predict
}

var dialects = []Dialect{
	{
		Name: "gemini", Provider: gemini.Name, Label: "Gemini · native function calling",
		live: func(_ context.Context, env Env) (bool, string) {
			if env.GeminiKey == "" {
				return false, "no GEMINI_API_KEY or GOOGLE_API_KEY is set"
			}
			return true, env.GeminiKeyVar + " is set" + env.geminiDestination()
		},
		build: func(ctx context.Context, c connection) (Provider, error) {
			return gemini.New(ctx, gemini.Config{APIKey: c.key, Placeholder: c.key == placeholderKey, Model: c.model, BaseURL: c.geminiURL, Transport: c.transport, OnExchange: c.onExchange, Call: c.call})
		},
	},
	llamaDialect("llama", ollama.ToolModeJSON, "Llama · JSON-mode prompting"),
	llamaDialect("llama:native", ollama.ToolModeNative, "Llama · Ollama's native tools"),
}

func llamaDialect(name, mode, label string) Dialect {
	return Dialect{
		Name: name, Provider: "llama", ToolMode: mode, Label: label,
		live: func(ctx context.Context, env Env) (bool, string) {
			if env.OllamaHostVar != ollama.SourceDefault {
				return true, env.OllamaHostVar + " is set (" + env.OllamaHost + ")"
			}
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			if err := ollama.Probe(pctx, env.OllamaHost, nil); err != nil {
				return false, "OLLAMA_HOST is not set and nothing answered at " + env.OllamaHost
			}
			return true, "Ollama answered at " + env.OllamaHost
		},
		build: func(_ context.Context, c connection) (Provider, error) {
			return ollama.New(ollama.Config{Model: c.model, Host: c.ollamaHost, ToolMode: c.toolMode, Transport: c.transport, OnExchange: c.onExchange, Call: c.call})
		},
	}
}

// Dialects lists every dialect, in the order the docs and menus use.
func Dialects() []Dialect { return slices.Clone(dialects) }

// Names are the dialects' names, for messages ("gemini, llama, llama:native").
func Names() string {
	var n []string
	for _, d := range dialects {
		n = append(n, d.Name)
	}
	return strings.Join(n, ", ")
}

// Lookup finds a dialect by its --compare name.
func Lookup(name string) (Dialect, bool) {
	for _, d := range dialects {
		if d.Name == name {
			return d, true
		}
	}
	return Dialect{}, false
}

// For finds the dialect of --provider P --tool-mode M; Llama's mode defaults
// to JSON mode (the seed design).
func For(provider, toolMode string) (Dialect, error) {
	if toolMode != "" && toolMode != ollama.ToolModeJSON && toolMode != ollama.ToolModeNative {
		return Dialect{}, fmt.Errorf("--tool-mode %q: want json or native", toolMode)
	}
	for _, d := range dialects {
		if d.Provider == provider && (d.ToolMode == toolMode || d.ToolMode == ollama.ToolModeJSON && toolMode == "") {
			return d, nil
		}
	}
	if provider == gemini.Name && toolMode != "" {
		return Dialect{}, fmt.Errorf("--tool-mode %s applies to Llama only: Gemini always uses its native function calling (leave --tool-mode out, or use --provider llama)", toolMode)
	}
	return Dialect{}, fmt.Errorf("--provider %q: want gemini or llama", provider)
}

// Options say which dialect to reach and how.
type Options struct {
	Dialect    Dialect
	Model      string        // "" for the provider's default
	Offline    bool          // force the offline simulation
	Live       bool          // force the live service
	SimLatency time.Duration // offline: delay per call
	Replay     string        // serve this cassette
	Record     string        // write a cassette here
	Env        Env           // keys and addresses, from the config pipeline
	// Call is --stall, --call-timeout, --stream and --num-predict.
	Call providers.CallOptions
}

// Backend is a dialect's provider and how it is reached.
type Backend struct {
	Provider Provider
	Dialect  Dialect
	Kind     string // KindLive, KindOffline or KindReplay
	Reason   string // why this kind was chosen: on screen and in the trace
	Replay   *providers.ReplayTransport

	closers []func() error
}

// Describe is the one-line banner: provider, model, backend and why.
func (b *Backend) Describe() string {
	mode := ""
	if b.Dialect.ToolMode != "" {
		mode = " (" + b.Dialect.ToolMode + " mode)"
	}
	return fmt.Sprintf("%s %s%s · %s: %s", b.Provider.Name(), b.Provider.Model(), mode, b.Kind, b.Reason)
}

// Close finishes what the backend wrote (a cassette) and reports the first
// error it met.
func (b *Backend) Close() error {
	var errs []error
	for _, c := range b.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// Choose applies the auto rule (docs/architecture.md, "How a run is opened"): live when configured, else the
// offline simulation; Offline, Live and Replay force a choice. A configured
// live backend that fails later is never swapped for the simulation.
func Choose(ctx context.Context, o Options) (*Backend, error) {
	d := o.Dialect
	b := &Backend{Dialect: d}
	c := connection{
		model: o.Model, key: o.Env.GeminiKey, secrets: o.Env.Secrets(),
		geminiURL: o.Env.GeminiBaseURL, ollamaHost: o.Env.OllamaHost, toolMode: d.ToolMode,
		call: o.Call,
	}
	switch {
	case o.Replay != "":
		cas, err := providers.LoadCassette(o.Replay)
		if err != nil {
			return nil, err
		}
		if err := d.accepts(o.Replay, cas.Header); err != nil {
			return nil, err
		}
		if cas.Header.ToolMode != "" {
			// The cassette knows how the tools were offered; replay that.
			if d, err = For(cas.Header.Provider, cas.Header.ToolMode); err != nil {
				return nil, fmt.Errorf("the cassette %s: %w", o.Replay, err)
			}
			b.Dialect, c.toolMode = d, d.ToolMode
		}
		if c.model == "" {
			c.model = cas.Header.Model
		}
		b.Replay = providers.NewReplayTransport(cas)
		c.transport = b.Replay
		b.Kind, b.Reason = KindReplay, "serving "+o.Replay+" (recorded "+cas.Header.RecordedAt.Format(time.DateTime)+")"
	case o.Offline:
		b.Kind, b.Reason = KindOffline, "--offline"
	case o.Live:
		b.Kind, b.Reason = KindLive, "--live"
		if d.Provider == "llama" {
			b.Reason += " (" + o.Env.OllamaHost + ")"
		} else {
			b.Reason += o.Env.geminiDestination()
		}
	default:
		live, why := d.live(ctx, o.Env)
		b.Kind, b.Reason = KindOffline, why
		if live {
			b.Kind = KindLive
		}
	}
	switch b.Kind {
	case KindOffline:
		c.transport = offline.NewTransport(offline.Config{Latency: o.SimLatency})
		fallthrough
	case KindReplay:
		c.key, c.geminiURL, c.ollamaHost = placeholderKey, offlineGeminiURL, offlineOllamaURL
	}

	var rec *cassetteRecorder
	if o.Record != "" {
		rec = &cassetteRecorder{}
		c.onExchange = rec.write
	}
	p, err := d.build(ctx, c)
	if err != nil {
		return nil, err
	}
	b.Provider = p
	if rec != nil {
		// The cassette is created last, once everything else has worked.
		w, keep, err := createCassette(o.Record, providers.CassetteHeader{
			Provider: p.Name(), Model: p.Model(), ToolMode: d.ToolMode,
			RecordedAt: time.Now().UTC().Truncate(time.Second),
		})
		if err != nil {
			return nil, err
		}
		rec.start(w, keep)
		b.closers = append(b.closers, rec.close)
	}
	return b, nil
}

// accepts checks that a cassette was recorded with this dialect's provider.
func (d Dialect) accepts(path string, h providers.CassetteHeader) error {
	if h.Provider == "" {
		return nil
	}
	known := slices.ContainsFunc(dialects, func(x Dialect) bool { return x.Provider == h.Provider })
	if !known {
		return fmt.Errorf("the cassette %s names the provider %q, which glassbox does not know (it speaks %s); it was not recorded by glassbox or has been edited", path, h.Provider, Names())
	}
	if h.Provider != d.Provider {
		return fmt.Errorf("%w: the cassette %s was recorded with --provider %s; run with --provider %s", ErrWrongDialect, path, h.Provider, h.Provider)
	}
	return nil
}

// cassetteRecorder writes every exchange the capture completes. Exchanges
// may complete on several goroutines; the writer is created only after the
// provider was built, so a failed start never touches an existing cassette.
type cassetteRecorder struct {
	mu        sync.Mutex
	w         *providers.CassetteWriter
	keep      func(exchanges int) error // puts the finished file in place
	exchanges int                       // how many got a response
	err       error
}

func (r *cassetteRecorder) start(w *providers.CassetteWriter, keep func(int) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w, r.keep = w, keep
}

func (r *cassetteRecorder) write(x providers.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil || r.err != nil {
		return
	}
	if err := r.w.Write(x); err != nil {
		r.err = fmt.Errorf("writing the cassette: %w", err)
		log.Printf("glassbox: %v", r.err)
		return
	}
	if x.Status != 0 {
		r.exchanges++ // a response arrived: worth keeping
	}
}

func (r *cassetteRecorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.Close(); err != nil {
		return errors.Join(r.err, err, r.keep(0))
	}
	return errors.Join(r.err, r.keep(r.exchanges))
}
