// Package backend is the registry of the dialects glassbox speaks (each
// described by its own package, listed in registered) and decides how one is
// reached — the live service, the offline simulation or a replayed cassette
// — before it builds its provider, as docs/architecture.md says under
// "How a run is opened".
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
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/ollama"
	"github.com/glassbox-dev/glassbox/providers/openai"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Provider is what a backend hands to the agent loop.
type Provider = dialect.Provider

// The three kinds of backend, as the status bar and the trace name them.
const (
	KindLive    = "live"
	KindOffline = "offline"
	KindReplay  = "replay"
)

// ErrWrongDialect is returned when a cassette was recorded with another
// dialect than the one asked for: a usage mistake.
var ErrWrongDialect = errors.New("the cassette belongs to another provider")

// Dialect is one way of talking to a model: a provider and how it offers
// the tools (see package dialect).
type Dialect = dialect.Descriptor

// Env is what the environment says about reaching the providers.
type Env = dialect.Env

// registered lists every dialect glassbox speaks, in the order the docs and
// menus use: one line per provider package, each of which describes its
// own dialects. An explicit list rather than init() registration, as the
// tools registry is: reading this function tells what glassbox speaks, and
// no import order can change it. Adding a dialect is a package and a line
// here.
func registered() []Dialect {
	return slices.Concat(
		gemini.Dialects(),
		ollama.Dialects(),
		openai.Dialects(),
	)
}

// dialects is the registry: built once, never changed (but by
// UseFixedForTests, in a test binary, before its tests run).
var dialects = registered()

// UseFixedForTests makes the registry the dialects glassbox spoke when the
// front ends' golden screens were drawn (gemini, llama, llama:native,
// openai), whatever registered lists since: a front end's TestMain calls it
// before its tests run, so that adding a dialect regenerates no golden. It
// is for test binaries only; nothing else may change the registry.
func UseFixedForTests() {
	dialects = slices.Concat(gemini.Dialects(), ollama.Dialects(), openai.Dialects())
	codecs = wireCodecs(dialects)
}

// Dialects lists every dialect, in the order the docs and menus use.
func Dialects() []Dialect { return slices.Clone(dialects) }

// Wire lists the codecs of the registered dialects, one per API family,
// in the registry's order: Wire().Detect(method, path) finds the one that
// reads a call (package wire).
func Wire() wire.Codecs { return codecs }

var codecs = wireCodecs(dialects)

func wireCodecs(ds []Dialect) wire.Codecs {
	var out wire.Codecs
	for _, d := range ds {
		if d.Wire == nil || slices.ContainsFunc(out, func(c wire.Codec) bool { return c.Family == d.Wire.Family }) {
			continue
		}
		out = append(out, *d.Wire)
	}
	return out
}

// Showing are the names of the dialects that can show what lesson l
// teaches: every dialect when it needs nothing special, else those whose
// descriptor says they show it.
func Showing(l lessons.Lesson) []string {
	if l.Needs == "" {
		return nil
	}
	var names []string
	for _, d := range dialects {
		if d.Quirks != nil && d.Quirks.Shows(l.Needs) {
			names = append(names, d.Name)
		}
	}
	return names
}

// Emulators are the registered dialects' APIs in the offline simulation,
// each once.
func Emulators() []*offline.Emulator {
	var out []*offline.Emulator
	for _, d := range dialects {
		if d.Emulator != nil && !slices.Contains(out, d.Emulator) {
			out = append(out, d.Emulator)
		}
	}
	return out
}

// Simulation is the offline simulation of every registered dialect, as one
// http.Handler.
func Simulation(cfg offline.Config) *offline.Server { return offline.NewHandler(cfg, Emulators()...) }

// SimulatedTransport answers every request from Simulation, in this
// process.
func SimulatedTransport(cfg offline.Config) http.RoundTripper {
	return offline.NewTransport(cfg, Emulators()...)
}

// Default is the dialect used when --provider names none: the first.
func Default() Dialect { return dialects[0] }

// Names are the dialects' names, for messages ("gemini, llama, llama:native").
func Names() string {
	var n []string
	for _, d := range dialects {
		n = append(n, d.Name)
	}
	return strings.Join(n, ", ")
}

// Providers are the names --provider accepts, aliases included, for
// messages ("gemini, llama (or ollama)").
func Providers() string {
	var n []string
	for i, d := range dialects {
		if slices.ContainsFunc(dialects[:i], func(x Dialect) bool { return x.Provider == d.Provider }) {
			continue // another tool mode of a provider already named
		}
		name := d.Provider
		if aliases := providerAliases(d.Provider); len(aliases) > 0 {
			name += " (or " + strings.Join(aliases, ", ") + ")"
		}
		n = append(n, name)
	}
	return strings.Join(n, ", ")
}

// providerAliases are the other names --provider accepts for provider: the
// aliases of its dialects that name no tool mode ("ollama").
func providerAliases(provider string) []string {
	var out []string
	for _, d := range dialects {
		for _, a := range d.Aliases {
			if d.Provider == provider && !strings.Contains(a, ":") && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// DefaultModels are the providers' default models, for --model's help:
// "gemini-2.5-flash / llama3.1:8b".
func DefaultModels() string {
	var n []string
	for _, d := range dialects {
		if !slices.Contains(n, d.DefaultModel) {
			n = append(n, d.DefaultModel)
		}
	}
	return strings.Join(n, " / ")
}

// ToolModes describes the tool modes of the providers that have several,
// for --tool-mode's help: "llama: json (JSON-mode prompting, the default)
// or native (Ollama's native tools)".
func ToolModes() string {
	var out []string
	for i, d := range dialects {
		if d.ToolMode == "" || slices.ContainsFunc(dialects[:i], func(x Dialect) bool { return x.Provider == d.Provider }) {
			continue
		}
		var modes []string
		for _, m := range dialects[i:] {
			if m.Provider == d.Provider {
				_, what, _ := strings.Cut(m.Label, " · ")
				mode := m.ToolMode + " (" + what
				if len(modes) == 0 {
					mode += ", the default"
				}
				modes = append(modes, mode+")")
			}
		}
		out = append(out, d.Provider+": "+list(modes))
	}
	return strings.Join(out, "; ")
}

// GoLive says how to turn each provider's live service on, for the
// offline banner: "set GEMINI_API_KEY (Gemini) or run ollama serve (Llama),
// then start with --provider gemini or --provider llama".
func GoLive() string {
	var how, flags []string
	for i, d := range dialects {
		if d.GoLive.Zero() || slices.ContainsFunc(dialects[:i], func(x Dialect) bool { return x.Provider == d.Provider }) {
			continue
		}
		how = append(how, d.GoLive.String())
		flags = append(flags, "--provider "+d.Provider)
	}
	return list(how) + ", then start with " + list(flags)
}

// list joins items as a sentence does: "a, b or c".
func list(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// Lookup finds a dialect by its --compare name or an alias.
func Lookup(name string) (Dialect, bool) {
	for _, d := range dialects {
		if slices.Contains(d.Names(), name) {
			return d, true
		}
	}
	return Dialect{}, false
}

// NameOf is the dialect name of a provider and tool mode as glassbox's
// files record them ("llama", "native" → "llama:native"); the provider's
// name when no dialect matches.
func NameOf(provider, toolMode string) string {
	if d, err := For(provider, toolMode); err == nil {
		return d.Name
	}
	return provider
}

// For finds the dialect of --provider P --tool-mode M. P may be an alias
// (ollama); a provider with several tool modes defaults to its first
// (Llama: JSON mode, the seed design).
func For(provider, toolMode string) (Dialect, error) {
	var all []string
	for _, d := range dialects {
		if d.ToolMode != "" && !slices.Contains(all, d.ToolMode) {
			all = append(all, d.ToolMode)
		}
	}
	if toolMode != "" && !slices.Contains(all, toolMode) {
		return Dialect{}, fmt.Errorf("--tool-mode %q: want %s", toolMode, list(all))
	}
	known := false
	for _, d := range dialects {
		if d.Provider == provider || slices.Contains(providerAliases(d.Provider), provider) {
			known = true
			if toolMode == "" || d.ToolMode == toolMode {
				return d, nil
			}
		}
	}
	if known {
		return Dialect{}, fmt.Errorf("--tool-mode %s does not apply to --provider %s, which offers the tools one way only (leave --tool-mode out)", toolMode, provider)
	}
	return Dialect{}, fmt.Errorf("--provider %q: want %s", provider, Providers())
}

// EnvFrom reads every variable a registered dialect reads through lookup
// (os.Getenv, or layers of .env and the environment).
func EnvFrom(lookup func(string) string) Env { return dialect.NewEnv(lookup, Vars(), secretVars()) }

// Vars are every variable a registered dialect reads: what a .env file may
// set for glassbox.
func Vars() []string { return collect(func(d Dialect) []string { return d.Vars }) }

func secretVars() []string { return collect(func(d Dialect) []string { return d.Secrets }) }

func collect(of func(Dialect) []string) []string {
	var out []string
	for _, d := range dialects {
		for _, v := range of(d) {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// Addresses are the variables that send a dialect's calls to another
// server: a .env that sets one is warned about.
func Addresses() []dialect.Address {
	var out []dialect.Address
	for _, d := range dialects {
		for _, a := range d.Addresses {
			if !slices.ContainsFunc(out, func(x dialect.Address) bool { return x.Var == a.Var }) {
				out = append(out, a)
			}
		}
	}
	return out
}

// Options say which dialect to reach and how.
type Options struct {
	Dialect Dialect
	Model   string // "" for the provider's default
	Offline bool   // force the offline simulation
	// OfflineWhy says why Offline is forced when the person passed no
	// --offline (a room's default); zero: the flag.
	OfflineWhy dialect.Reason
	Live       bool          // force the live service
	SimLatency time.Duration // offline: delay per call
	// GoLive is how the person reaches a real model, by language code: the
	// offline tutor says it (offline.Config.GoLive).
	GoLive     map[string]string
	Replay     string // serve this cassette
	Record     string // write a cassette here
	RecordTemp string // where the cassette is written until complete ("" beside Record)
	Env        Env    // keys and addresses, from the config pipeline
	// Call is --stall, --call-timeout, --stream and --num-predict.
	Call providers.CallOptions
}

// Backend is a dialect's provider and how it is reached.
type Backend struct {
	Provider Provider
	Dialect  Dialect
	Kind     string // KindLive, KindOffline or KindReplay
	Reason   string // why this kind was chosen: on screen and in the trace
	// Why is Reason when the dialect's auto rule chose (Descriptor.Live),
	// for a front end to say in its reader's language; zero when a flag or
	// a cassette did.
	Why    dialect.Reason
	Replay *providers.ReplayTransport

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
	c := dialect.Conn{Model: o.Model, Env: o.Env, Call: o.Call}
	switch {
	case o.Replay != "":
		if err := b.replay(o.Replay, &c); err != nil {
			return nil, err
		}
	case o.Offline:
		b.Kind, b.Reason = KindOffline, "--offline"
		if !o.OfflineWhy.Zero() {
			b.Reason, b.Why = o.OfflineWhy.String(), o.OfflineWhy
		}
	case o.Live:
		b.Kind, b.Reason = KindLive, "--live"
		if d.Destination != nil {
			b.Reason += d.Destination(o.Env)
		}
	default:
		live, why := d.Live(ctx, o.Env)
		b.Kind, b.Reason, b.Why = KindOffline, why.String(), why
		if live {
			b.Kind = KindLive
		}
	}
	switch b.Kind {
	case KindOffline:
		c.Transport = SimulatedTransport(offline.Config{Latency: o.SimLatency, GoLive: o.GoLive})
		fallthrough
	case KindReplay:
		c.StandIn, c.Env = true, Env{}
	}

	var rec *cassetteRecorder
	if o.Record != "" {
		rec = &cassetteRecorder{}
		c.OnExchange = rec.write
	}
	p, err := b.Dialect.Open(ctx, c)
	if err != nil {
		return nil, err
	}
	b.Provider = p
	if rec != nil {
		// The cassette is created last, once everything else has worked.
		w, keep, err := createCassette(o.Record, o.RecordTemp, providers.CassetteHeader{
			Provider: p.Name(), Model: p.Model(), ToolMode: b.Dialect.ToolMode, Mode: providers.ModeOf(c.Call),
			RecordedAt: time.Now().UTC().Truncate(time.Second),
		}, o.Env.Secrets())
		if err != nil {
			return nil, err
		}
		rec.start(w, keep)
		b.closers = append(b.closers, rec.close)
	}
	return b, nil
}

// replay makes b serve the cassette at path, over c: the dialect, the
// model and the mode it was recorded with, unless c says the model.
func (b *Backend) replay(path string, c *dialect.Conn) error {
	cas, err := providers.LoadCassette(path)
	if err != nil {
		return err
	}
	if err := accepts(b.Dialect, path, cas.Header); err != nil {
		return err
	}
	if cas.Header.ToolMode != "" {
		// The cassette knows how the tools were offered; replay that.
		d, err := For(cas.Header.Provider, cas.Header.ToolMode)
		if err != nil {
			return fmt.Errorf("the cassette %s: %w", path, err)
		}
		b.Dialect = d
	}
	if c.Model == "" {
		c.Model = cas.Header.Model
	}
	// A cassette replays in the mode it was recorded in: a unary
	// recording's calls were never streamed, and the other way round.
	mode := cas.Mode()
	if mode != "" {
		c.Call.Unary = mode == providers.ModeUnary
	}
	b.Replay = providers.NewReplayTransport(cas)
	c.Transport = b.Replay
	b.Kind, b.Reason = KindReplay, "serving "+path+" (recorded "+cas.Header.RecordedAt.Format(time.DateTime)+modeWords(mode)+")"
	return nil
}

// modeWords says a replayed cassette's mode in the backend's reason.
func modeWords(mode string) string {
	if mode == providers.ModeUnary {
		return ", unary calls"
	}
	return ""
}

// accepts checks that a cassette was recorded with this dialect's provider.
func accepts(d Dialect, path string, h providers.CassetteHeader) error {
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
