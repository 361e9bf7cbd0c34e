package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Limits bound one HTTP exchange of a model call. The capture Transport
// enforces them, so every dialect has them: a call can neither hang nor run
// on for ever. Both failures are transport failures (KindNetwork), which
// the loop retries like a dropped connection.
type Limits struct {
	// Stall is how long the call may go without a byte: waiting for the
	// response headers, or between two reads of the body (`--stall`).
	Stall time.Duration
	// Call is how long the whole exchange may take, from the request to
	// the last byte of the response (`--call-timeout`).
	Call time.Duration
}

// The defaults of --stall and --call-timeout.
const (
	DefaultStall       = 60 * time.Second
	DefaultCallTimeout = 10 * time.Minute
)

// withDefaults fills a zero (or negative) limit with its default.
func (l Limits) withDefaults() Limits {
	if l.Stall <= 0 {
		l.Stall = DefaultStall
	}
	if l.Call <= 0 {
		l.Call = DefaultCallTimeout
	}
	return l
}

// CallOptions are what the command line says about every model call,
// whatever the dialect: its limits, streamed or not, and (Llama) the bound
// on a reply's length. The zero value is the default of each.
type CallOptions struct {
	Limits Limits
	// Unary makes each call one request answered by one body
	// (`--stream=false`); every dialect streams by default.
	Unary bool
	// NumPredict bounds a Llama reply's tokens (Ollama's num_predict,
	// `--num-predict`): 0 is DefaultNumPredict, -1 no bound.
	NumPredict int
}

// DefaultNumPredict is the num_predict every Ollama request carries unless
// --num-predict says otherwise. Without one, a model that does not stop
// (one that alternates two tokens, which Ollama's repeat limit does not
// catch) writes until its context is full: minutes of output nobody reads.
// 4,096 tokens hold any file the sample project's tasks write.
const DefaultNumPredict = 4096

// The first words of a limit's failure, also how a recorded exchange's
// error is recognised as one (LimitFailure).
const (
	stalledWords  = "the call stalled: "
	timedOutWords = "the call ran out of time: "
)

func stallError(d time.Duration) *Error {
	return &Error{Kind: KindNetwork, Message: fmt.Sprintf(
		"%sno byte arrived for %s (the --stall limit), so glassbox gave up waiting; the server or the model may be stuck, or a slow model needs a longer --stall.",
		stalledWords, d)}
}

func callTimeoutError(d time.Duration) *Error {
	return &Error{Kind: KindNetwork, Message: fmt.Sprintf(
		"%sit went on for longer than %s (the --call-timeout limit), so glassbox stopped it; a reply that long is usually a model that does not stop, or raise --call-timeout.",
		timedOutWords, d)}
}

// LimitFailure recognises, in an exchange's error text, a call that a
// limit stopped, and returns that failure again (the same words, the same
// kind); nil for any other text. A provider whose SDK hides a read error
// (Ollama's client does) reads it from the captured exchange, and a replay
// fails the same way the recording did.
func LimitFailure(text string) *Error {
	text = strings.TrimPrefix(text, bodyCutPrefix)
	if strings.HasPrefix(text, stalledWords) || strings.HasPrefix(text, timedOutWords) {
		return &Error{Kind: KindNetwork, Message: text}
	}
	return nil
}

// watchdog enforces Limits on one exchange: a timer that every arriving
// byte puts back (the stall), and one for the whole exchange. When either
// fires it cancels the request's context with the failure as the cause and
// closes the response body, so a read blocked on a silent server returns.
type watchdog struct {
	limits Limits
	cancel context.CancelCauseFunc
	ctx    context.Context
	stall  *time.Timer
	whole  *time.Timer

	mu   sync.Mutex
	body io.Closer // the response body, once there is one
	shut bool
}

func startWatchdog(parent context.Context, l Limits) *watchdog {
	w := &watchdog{limits: l.withDefaults()}
	w.ctx, w.cancel = context.WithCancelCause(parent)
	w.stall = time.AfterFunc(w.limits.Stall, func() { w.fire(stallError(w.limits.Stall)) })
	w.whole = time.AfterFunc(w.limits.Call, func() { w.fire(callTimeoutError(w.limits.Call)) })
	return w
}

func (w *watchdog) fire(cause *Error) {
	w.mu.Lock()
	if w.shut {
		w.mu.Unlock()
		return
	}
	w.cancel(cause)
	body := w.body
	w.mu.Unlock()
	if body != nil {
		body.Close()
	}
}

// watchBody gives the watchdog the body to close when a limit fires.
func (w *watchdog) watchBody(b io.Closer) {
	w.mu.Lock()
	w.body = b
	w.mu.Unlock()
}

// alive says a byte arrived: the stall timer starts again.
func (w *watchdog) alive() {
	w.mu.Lock()
	if !w.shut {
		w.stall.Reset(w.limits.Stall)
	}
	w.mu.Unlock()
}

// stop ends the watch: the exchange is complete.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.shut = true
	w.mu.Unlock()
	w.stall.Stop()
	w.whole.Stop()
	w.cancel(nil)
}

// explain replaces err by the limit that caused it, if one did.
func (w *watchdog) explain(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	var limit *Error
	if errors.As(context.Cause(w.ctx), &limit) {
		return limit
	}
	return err
}
