package outside

import (
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Call is a model call known by its messages rather than its bytes: an
// OpenTelemetry inference span, or an agent's telemetry log (Gemini CLI's
// api_request and api_response). Its request and reply are the neutral
// values a codec decodes from bytes, filled from what the trace says; the
// steps are the ones the bytes would make, with no exchange as payload.
type Call struct {
	// Request is what the call sent: Family, Dialect, Model, System,
	// Tools, Messages. Segments and Size are empty: there are no bytes.
	Request *wire.Request
	// Response is what came back, nil when the trace holds no reply.
	Response *wire.Response
	// Status is the HTTP status the trace names, 0 when it names none;
	// Duration is how long the call took.
	Status   int
	Duration time.Duration
}

// cutNoReply is the Cut of a call whose trace holds no reply.
const cutNoReply = "no_reply"

// Call takes a whole call known by its messages and returns its steps, as
// Exchange does for a call's bytes. A call that arrives while an
// exchange's reply is awaited is taken up after it.
func (b *Builder) Call(c Call) []loop.Transition {
	if b.inflight != nil {
		b.calls = append(b.calls, c)
		return nil
	}
	return b.seal(append(b.call(c), b.flushUnread()...))
}

func (b *Builder) call(c Call) []loop.Transition {
	out, t := b.toModel(c.Request, nil)
	out = append(out, t)
	resp := c.Response
	if resp == nil {
		resp = &wire.Response{Cut: cutNoReply}
	}
	f := &flight{req: c.Request, family: c.Request.Family}
	rec := b.llmRecord(f, resp, c.Status, c.Duration)
	return append(out, b.replied(resp, rec, nil)...)
}

// queuedCalls steps the calls that waited for an exchange's reply, once
// none is awaited.
func (b *Builder) queuedCalls() []loop.Transition {
	var out []loop.Transition
	for b.inflight == nil && len(b.calls) > 0 {
		c := b.calls[0]
		b.calls = b.calls[1:]
		out = append(out, b.call(c)...)
	}
	return out
}
