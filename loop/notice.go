package loop

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
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

// MCPFrame: a JSON-RPC frame passed between glassbox and an MCP server.
type MCPFrame struct{ Frame tools.Frame }

func (Retry) notice()       {}
func (WireRequest) notice() {}
func (WireChunk) notice()   {}
func (MCPFrame) notice()    {}

// SetOnNotice sets the function that hears every Notice of the steps to
// come, on the goroutine running Step (or the one reading the response
// body); it must not block. Call it before stepping, never while a Step
// runs. It is the one way the engine reports what a step is doing while it
// does it.
func (e *Engine) SetOnNotice(fn func(Notice)) {
	e.cfg.OnNotice = fn
	if fn == nil {
		e.cfg.Tools.Wire().SetOnFrame(nil)
		return
	}
	e.cfg.Tools.Wire().SetOnFrame(func(f tools.Frame) { fn(MCPFrame{Frame: e.maskFrame(f)}) })
}

// maskFrame hides every secret value in a frame (MaskFrame).
func (e *Engine) maskFrame(f tools.Frame) tools.Frame { return MaskFrame(e.mask, f) }

// MaskFrame hides every secret value m knows in a frame (a key a model or a
// server echoed), keeping the body valid JSON: a body that masking would
// break is kept as one JSON string.
func MaskFrame(m *providers.Masker, f tools.Frame) tools.Frame {
	f.Error = m.Mask(f.Error)
	if len(f.Body) > 0 {
		masked := m.Mask(string(f.Body))
		if json.Valid([]byte(masked)) {
			f.Body = json.RawMessage(masked)
		} else {
			f.Body, _ = json.Marshal(masked)
		}
	}
	return f
}

// takeFrames returns, masked, the MCP frames that passed since it was last
// called.
func (e *Engine) takeFrames() []tools.Frame {
	frames := e.cfg.Tools.Wire().Drain()
	for i := range frames {
		frames[i] = e.maskFrame(frames[i])
	}
	return frames
}

// watchWire returns ctx with the provider's HTTP capture reporting to
// OnNotice, when one is set. What it reports is masked with every secret
// the run knows, as the step's record will be: the request whole, the
// response as it arrives (providers.Live holds back the few bytes that
// could still turn out to be part of a secret).
func (e *Engine) watchWire(ctx context.Context) context.Context {
	fn := e.cfg.OnNotice
	if fn == nil {
		return ctx
	}
	var mu sync.Mutex
	live := e.mask.Live()
	return providers.WithRecorder(ctx, &providers.Recorder{
		OnRequest: func(ex providers.Exchange) {
			mu.Lock()
			live = e.mask.Live() // a retry starts a new body
			ex = e.mask.ExchangeIn(ex, e.requests)
			mu.Unlock()
			fn(WireRequest{Exchange: ex})
		},
		OnChunk: func(c providers.Chunk) {
			mu.Lock()
			c.Data = live.Feed(c.Data)
			mu.Unlock()
			if len(c.Data) > 0 {
				fn(WireChunk{Chunk: c})
			}
		},
	})
}
