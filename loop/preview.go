package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/glassbox-dev/glassbox/providers"
)

// Previewable is a Provider whose every call goes through the wire capture
// (providers.Transport), so that a call made under a dry-run context is
// stopped before the wire and has no effect. The Gemini and Ollama
// providers are; a provider that is not cannot be previewed.
type Previewable interface {
	Provider
	// ThroughCapture marks the provider; it does nothing.
	ThroughCapture()
}

// ErrNoPreview says the engine's provider cannot be previewed.
var ErrNoPreview = errors.New("this provider does not go through the wire capture, so its request cannot be shown before it is sent")

// PreviewRequest builds the HTTP request that the next Step will send, in
// AWAITING_LLM_RESPONSE, without sending it: the provider's SDK encodes the
// assembled context as it will on the wire, and the capture stops it there.
// It takes no transition and changes nothing; like Step it refuses to run
// while a step is in flight (ErrBusy).
func (e *Engine) PreviewRequest(ctx context.Context) (providers.Exchange, error) {
	if !e.stepping.TryLock() {
		return providers.Exchange{}, ErrBusy
	}
	defer e.stepping.Unlock()
	if e.state != AwaitingLLMResponse {
		return providers.Exchange{}, fmt.Errorf("no request is assembled: the loop is in %s, not %s", e.state, AwaitingLLMResponse)
	}
	p, ok := e.cfg.Provider.(Previewable)
	if !ok {
		return providers.Exchange{}, ErrNoPreview
	}
	return providers.Preview(ctx, func(ctx context.Context) error {
		_, err := p.Call(ctx, e.request)
		return err
	})
}
