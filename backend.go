package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/gemini"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/ollama"
)

// Offline base URLs use the reserved .invalid domain: nothing ever resolves
// there, and a learner reading the payload pane sees at once that the
// request never left the machine.
const (
	offlineGeminiURL = "http://gemini.offline.invalid/"
	offlineOllamaURL = "http://ollama.offline.invalid"
)

// placeholderKey stands in for an API key where none is needed (offline,
// replay). The capture transport masks the key's literal value everywhere,
// so it must be a string that never occurs in a payload: a plain word such
// as "offline" would be masked inside URLs and model text too.
const placeholderKey = "glassbox-placeholder-key-0000"

// backend is the provider the engine talks to and how it is reached.
type backend struct {
	provider loop.Provider
	kind     string // "live", "offline" or "replay"
	reason   string // why this kind was chosen, shown on screen and in the trace
	toolMode string // llama only
	replay   *providers.ReplayTransport
	close    func() error
}

// describe is the one-line banner: provider, model, backend and why.
func (b *backend) describe() string {
	mode := ""
	if b.provider.Name() == "llama" {
		mode = " (" + b.toolMode + " mode)"
	}
	return fmt.Sprintf("%s %s%s · %s: %s", b.provider.Name(), b.provider.Model(), mode, b.kind, b.reason)
}

// chooseBackend applies DESIGN §3's auto rule: live when configured, else the
// offline simulation; --offline, --live and --replay force a choice. A
// configured live backend that fails later is never swapped for offline.
func chooseBackend(ctx context.Context, o options) (*backend, error) {
	b := &backend{toolMode: o.toolMode, close: func() error { return nil }}
	var base http.RoundTripper
	key := firstEnv("GOOGLE_API_KEY", "GEMINI_API_KEY") // the SDK's own precedence
	host := ""
	switch {
	case o.replay != "":
		c, err := providers.LoadCassette(o.replay)
		if err != nil {
			return nil, err
		}
		if c.Header.Provider != "" && c.Header.Provider != o.provider {
			return nil, fmt.Errorf("%w: the cassette %s was recorded with --provider %s; run with --provider %s", errUsage, o.replay, c.Header.Provider, c.Header.Provider)
		}
		if o.model == "" {
			o.model = c.Header.Model
		}
		if c.Header.ToolMode != "" {
			b.toolMode = c.Header.ToolMode
		}
		b.replay = providers.NewReplayTransport(c)
		base = b.replay
		b.kind, b.reason = "replay", "serving "+o.replay+" (recorded "+c.Header.RecordedAt.Format(time.DateTime)+")"
		key, host = placeholderKey, offlineOllamaURL
	case o.provider == "gemini":
		switch {
		case o.offline:
			b.kind, b.reason = "offline", "--offline"
		case o.live:
			b.kind, b.reason = "live", "--live"
		case key != "":
			b.kind, b.reason = "live", envName(key)+" is set"
		default:
			b.kind, b.reason = "offline", "no GEMINI_API_KEY or GOOGLE_API_KEY is set"
		}
	default: // llama
		h, src := ollama.HostFromEnv()
		host = h
		switch {
		case o.offline:
			b.kind, b.reason = "offline", "--offline"
		case o.live:
			b.kind, b.reason = "live", "--live ("+host+")"
		case src != "default":
			b.kind, b.reason = "live", src+" is set ("+host+")"
		default:
			pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			err := ollama.Probe(pctx, host, nil)
			cancel()
			if err == nil {
				b.kind, b.reason = "live", "Ollama answered at "+host
			} else {
				b.kind, b.reason = "offline", "OLLAMA_HOST is not set and nothing answered at "+host
			}
		}
	}
	baseURL := ""
	if b.kind == "offline" {
		base = offline.NewTransport(offline.Config{Latency: o.simLatency})
		key, host, baseURL = placeholderKey, offlineOllamaURL, offlineGeminiURL
	}
	if b.kind == "replay" {
		baseURL = offlineGeminiURL
	}
	var err error
	switch o.provider {
	case "gemini":
		b.provider, err = gemini.New(ctx, gemini.Config{APIKey: key, Model: o.model, BaseURL: baseURL, Transport: base})
	default:
		b.provider, err = ollama.New(ollama.Config{Model: o.model, Host: host, ToolMode: b.toolMode, Transport: base})
	}
	if err != nil {
		return nil, err
	}
	if o.record != "" {
		w, err := providers.NewCassetteWriter(o.record, providers.CassetteHeader{
			Provider: b.provider.Name(), Model: b.provider.Model(), ToolMode: modeOf(b),
			RecordedAt: time.Now().UTC().Truncate(time.Second),
		})
		if err != nil {
			return nil, err
		}
		b.provider = &recordingProvider{Provider: b.provider, w: w}
		b.close = w.Close
	}
	return b, nil
}

func modeOf(b *backend) string {
	if b.provider.Name() == "llama" {
		return b.toolMode
	}
	return ""
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// envName says which variable holds the key, never the key itself.
func envName(key string) string {
	if os.Getenv("GOOGLE_API_KEY") == key {
		return "GOOGLE_API_KEY"
	}
	return "GEMINI_API_KEY"
}

// recordingProvider writes every exchange of every call to a cassette. The
// exchanges are the capture transport's, already redacted.
type recordingProvider struct {
	loop.Provider
	w   *providers.CassetteWriter
	err error
}

func (r *recordingProvider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	resp, err := r.Provider.Call(ctx, req)
	if resp != nil {
		for _, x := range resp.Exchanges {
			if werr := r.w.Write(x); werr != nil && r.err == nil {
				r.err = werr
				fmt.Fprintf(os.Stderr, "glassbox: writing the cassette failed: %v\n", werr)
			}
		}
	}
	return resp, err
}

var _ io.Closer = (*providers.CassetteWriter)(nil)
