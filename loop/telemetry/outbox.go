package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// outbox is the span processor between glassbox and the collector. It
// holds at most capacity ended spans and exports them in batches from its
// own goroutine, so nothing a collector does — refuse, hang, answer slowly
// — ever reaches the goroutine that ended the span. A span that finds it
// full is dropped and counted, and so is every span of a batch the
// collector did not take, each with the reason. (The SDK's own
// BatchSpanProcessor is bounded the same way but drops without saying how
// many or why, and glassbox must say both.)
type outbox struct {
	exporter sdktrace.SpanExporter
	queue    chan sdktrace.ReadOnlySpan
	batch    int
	interval time.Duration
	timeout  time.Duration
	stats    *counters
	status   *statusTransport // the collector's last HTTP status, to explain a failure

	flushes chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
	// ctx is the exports' context; Shutdown cancels it when its own
	// deadline passes, ending an export that is still waiting.
	ctx    context.Context
	cancel context.CancelFunc

	stopping  sync.Once
	abandoned atomic.Bool // Shutdown gave up: what is left is dropped at exit
}

var _ sdktrace.SpanProcessor = (*outbox)(nil)

func newOutbox(exp sdktrace.SpanExporter, l Limits, stats *counters, status *statusTransport) *outbox {
	ctx, cancel := context.WithCancel(context.Background())
	o := &outbox{
		exporter: exp,
		queue:    make(chan sdktrace.ReadOnlySpan, l.Queue),
		batch:    l.Batch,
		interval: l.Interval,
		timeout:  l.Export,
		stats:    stats,
		status:   status,
		flushes:  make(chan chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		ctx:      ctx,
		cancel:   cancel,
	}
	go o.run()
	return o
}

// OnStart does nothing: a span is held only once it ends.
func (o *outbox) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues the span, or drops it when the queue is full. It never
// blocks.
func (o *outbox) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case <-o.stop:
		o.stats.drop(ReasonExit, 1, "")
		return
	default:
	}
	select {
	case o.queue <- s:
		o.stats.queued.Add(1)
	default:
		o.stats.drop(ReasonQueueFull, 1, "")
	}
}

// ForceFlush exports what is queued and waits for it, or for ctx.
func (o *outbox) ForceFlush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case o.flushes <- done:
	case <-o.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops. When ctx ends first, the
// export in flight is abandoned and every span not yet taken by the
// collector is counted as dropped at exit.
func (o *outbox) Shutdown(ctx context.Context) error {
	o.stopping.Do(func() { close(o.stop) })
	select {
	case <-o.done:
	case <-ctx.Done():
		o.abandoned.Store(true)
		o.cancel()
		<-o.done // the export returns once its context is cancelled
	}
	o.cancel()
	return o.exporter.Shutdown(context.Background())
}

func (o *outbox) run() {
	defer close(o.done)
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	var batch []sdktrace.ReadOnlySpan
	for {
		select {
		case s := <-o.queue:
			batch = append(batch, s)
			if len(batch) >= o.batch {
				batch = o.export(batch)
			}
		case <-tick.C:
			batch = o.export(batch)
		case done := <-o.flushes:
			batch = o.export(o.drain(batch))
			close(done)
		case <-o.stop:
			o.export(o.drain(batch))
			return
		}
	}
}

// drain adds every span waiting in the queue to batch.
func (o *outbox) drain(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for {
		select {
		case s := <-o.queue:
			batch = append(batch, s)
		default:
			return batch
		}
	}
}

// export sends batch in pieces of at most o.batch spans and returns an
// empty batch to fill again.
func (o *outbox) export(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for len(batch) > 0 {
		n := min(len(batch), o.batch)
		o.send(batch[:n])
		batch = batch[n:]
	}
	return batch[:0]
}

func (o *outbox) send(spans []sdktrace.ReadOnlySpan) {
	n := int64(len(spans))
	defer o.stats.queued.Add(-n) // pending until the collector answers
	if o.abandoned.Load() {
		o.stats.drop(ReasonExit, n, "")
		return
	}
	ctx, cancel := context.WithTimeout(o.ctx, o.timeout)
	err := o.exporter.ExportSpans(ctx, spans)
	cancel()
	if err == nil {
		o.stats.sent.Add(n)
		return
	}
	if o.abandoned.Load() {
		o.stats.drop(ReasonExit, n, "")
		return
	}
	reason, detail := o.explain(err)
	o.stats.drop(reason, n, detail)
}

// explain sorts an export's failure into a reason a person can act on,
// with a detail (an HTTP status) where there is one.
func (o *outbox) explain(err error) (Reason, string) {
	var errno syscall.Errno
	var dns *net.DNSError
	var nerr net.Error
	switch {
	case o.status != nil && o.status.last() >= 400:
		return ReasonRejected, fmt.Sprintf("HTTP %d", o.status.last())
	case errors.As(err, &errno) && errno == syscall.ECONNREFUSED:
		return ReasonRefused, ""
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return ReasonTimeout, ""
	case errors.As(err, &dns), errors.As(err, &errno) && (errno == syscall.EHOSTUNREACH || errno == syscall.ENETUNREACH):
		return ReasonUnreachable, ""
	}
	return ReasonFailed, ""
}

// statusTransport remembers the status of the collector's last answer (0
// when the last request got none), so a failed export can say "HTTP 401"
// rather than the exporter's long message.
type statusTransport struct {
	base   http.RoundTripper
	status atomic.Int64
}

func (t *statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.status.Store(0)
		return nil, err
	}
	t.status.Store(int64(resp.StatusCode))
	return resp, nil
}

func (t *statusTransport) last() int { return int(t.status.Load()) }
