// Package gemini is the Google Gemini provider: it turns the loop's neutral
// request into a genai call with native function declarations — streamed
// (GenerateContentStream, as gemini-cli calls it) unless Config.Call.Unary —
// and the reply back into a neutral response, keeping the model's own
// Content so thought signatures and call IDs survive the round trip. Every
// HTTP exchange goes through the glassbox wire capture.
package gemini

import (
	"context"
	"net/http"
	"os"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/providers"
)

// Name is the provider's name in traces and in history.Native.
const Name = "gemini"

// DefaultModel is used when Config.Model is empty.
const DefaultModel = "gemini-2.5-flash"

// Config says how to reach Gemini.
type Config struct {
	// APIKey is the Gemini API key. When empty, GOOGLE_API_KEY and then
	// GEMINI_API_KEY are read, the same order the SDK uses.
	APIKey string
	// Model is the model id; DefaultModel when empty.
	Model string
	// BaseURL overrides the service address. When empty, the SDK's own
	// GOOGLE_GEMINI_BASE_URL variable applies, then the public endpoint.
	BaseURL string
	// Transport is the HTTP transport under the wire capture: the offline
	// simulation or a cassette replay plugs in here. nil means the network.
	Transport http.RoundTripper
	// OnExchange, when set, receives every completed exchange (redacted),
	// for example to write a cassette (see providers.CassetteWriter).
	OnExchange func(providers.Exchange)
	// Placeholder says APIKey only stands in for a key (the offline
	// simulation, a replay): it is sent but, being no secret, not searched
	// for in every payload. The key headers are redacted all the same.
	Placeholder bool
	// IncludeThoughts asks the model for thought summaries (thinkingConfig
	// includeThoughts), which arrive as Message.Thought. Only thinking
	// models (2.5 and later) accept it.
	IncludeThoughts bool
	// Call holds the limits on each call on the wire (`--stall`,
	// `--call-timeout`) and whether calls are unary: one generateContent
	// request answered by one JSON body (`--stream=false`), instead of the
	// default stream of server-sent events from
	// :streamGenerateContent?alt=sse.
	Call providers.CallOptions
}

// Provider calls Gemini. It is safe for concurrent use.
type Provider struct {
	client          *genai.Client
	capture         *providers.Transport
	model           string
	includeThoughts bool
	unary           bool
	// replies keeps each Gemini reply decoded once: every call sends the
	// whole conversation again, and decoding it all each time made long
	// sessions quadratic.
	replies replyCache
}

// KeyVars are the variables that may hold a Gemini key, in the genai SDK's
// order: GOOGLE_API_KEY wins when both are set. This is the one place that
// knows them.
var KeyVars = []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}

// New builds a Provider. It does not touch the network. Without
// cfg.APIKey it reads the key from KeyVars.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	key := cfg.APIKey
	var envKeys []string
	for _, name := range KeyVars {
		if v := os.Getenv(name); v != "" {
			envKeys = append(envKeys, v)
			if key == "" {
				key = v
			}
		}
	}
	if key == "" {
		return nil, providers.Errorf(providers.KindAuth, 0, nil, "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), e.g. export GEMINI_API_KEY=your-key — get one at https://aistudio.google.com/apikey")
	}
	model := cfg.Model
	if model == "" {
		model = DefaultModel
	}

	// Every key the environment holds is masked, not only the one in use,
	// so none can leak into a recording.
	secrets := envKeys
	if !cfg.Placeholder {
		secrets = append([]string{key}, envKeys...)
	}
	capture := providers.NewTransport(cfg.Transport, secrets...)
	capture.OnExchange = cfg.OnExchange
	capture.Limits = cfg.Call.Limits

	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: &http.Client{Transport: capture},
		// RetryOptions stays nil: one attempt per call. The loop retries,
		// visibly, so a learner sees every attempt.
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	})
	if err != nil {
		return nil, providers.Errorf(providers.KindOther, 0, err, "could not set up the Gemini client: %v", err)
	}
	return &Provider{client: client, capture: capture, model: model, includeThoughts: cfg.IncludeThoughts, unary: cfg.Call.Unary}, nil
}

// Name returns "gemini".
func (p *Provider) Name() string { return Name }

// Model returns the model id in use.
func (p *Provider) Model() string { return p.model }

// ThroughCapture says every call goes through the wire capture (loop.Previewable).
func (p *Provider) ThroughCapture() {}

// Streams reports whether calls stream (the default) or are unary.
func (p *Provider) Streams() bool { return !p.unary }

// Call sends one request, streamed or unary. The returned Response is never
// nil: even on error it carries the HTTP exchanges that were made, so the
// learner can inspect what went over the wire.
func (p *Provider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	out := &providers.Response{}
	contents, err := buildContents(req.Messages, &p.replies)
	if err != nil {
		return out, err
	}
	config, err := p.buildConfig(req)
	if err != nil {
		return out, err
	}

	recorder := &providers.Recorder{}
	var resp *genai.GenerateContentResponse
	if p.unary {
		resp, err = p.client.Models.GenerateContent(providers.WithRecorder(ctx, recorder), p.model, contents, config)
		if err != nil {
			err = p.classifyError(ctx, err, recorder.Exchanges())
		}
	} else {
		resp, err = p.stream(providers.WithRecorder(ctx, recorder), contents, config, recorder)
	}
	out.Exchanges = recorder.Exchanges()
	if err != nil {
		return out, p.capture.MaskError(err)
	}
	if err := readResponse(resp, req.Tools, out); err != nil {
		return out, p.capture.MaskError(err)
	}
	return out, nil
}
