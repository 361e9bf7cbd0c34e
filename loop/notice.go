package loop

import (
	"context"

	"github.com/glassbox-dev/glassbox/providers"
)

// Notice is something a Step tells while it runs, before its Transition is
// returned: a retry, a request going on the wire, a piece of the response
// arriving. A front end hears every one of them through one function
// (SetOnNotice), in the order they happen, and the Transition that ends the
// step follows them.
type Notice interface{ notice() }

// WireRequest: the model call's request just went on the wire (redacted, as
// captured). A retry sends a new one.
type WireRequest struct{ Exchange providers.Exchange }

// WireChunk: a piece of the model call's response body arrived (redacted).
type WireChunk struct{ Chunk providers.Chunk }

func (Retry) notice()       {}
func (WireRequest) notice() {}
func (WireChunk) notice()   {}

// SetOnNotice sets the function that hears every Notice of the steps to
// come, on the goroutine running Step (or the one reading the response
// body); it must not block. Call it before stepping, never while a Step
// runs. It is the one way the engine reports what a step is doing while it
// does it.
func (e *Engine) SetOnNotice(fn func(Notice)) { e.cfg.OnNotice = fn }

// watchWire returns ctx with the provider's HTTP capture reporting to
// OnNotice, when one is set.
func (e *Engine) watchWire(ctx context.Context) context.Context {
	fn := e.cfg.OnNotice
	if fn == nil {
		return ctx
	}
	return providers.WithRecorder(ctx, &providers.Recorder{
		OnRequest: func(ex providers.Exchange) { fn(WireRequest{Exchange: ex}) },
		OnChunk:   func(c providers.Chunk) { fn(WireChunk{Chunk: c}) },
	})
}
