package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// DivergenceHeader is how a replayed response tells the capture Transport
// that the request differed from the recording: ReplayTransport sets it, and
// Transport moves its value into Exchange.Divergence and removes it before
// the SDK sees the response.
const DivergenceHeader = "Glassbox-Divergence"

// Transport is the wire capture: an http.RoundTripper that sits in each SDK's
// HTTP client and records every exchange, redacted, while passing the real
// bytes through untouched.
//
// An exchange is complete when the SDK reaches the end of the response body
// or closes it, whichever comes first. It is then handed to every Recorder in
// the request's context and to OnExchange.
type Transport struct {
	// OnExchange, when set, is called once for every completed exchange,
	// with or without a Recorder in the context (cassette recording uses
	// it). It may be called from several goroutines at once.
	OnExchange func(Exchange)
	// Limits bound every exchange (zero fields: the defaults); set them
	// before the first request.
	Limits Limits
	// PassOversize passes a response body longer than MaxResponseBytes on
	// whole instead of failing the call: the exchange keeps its first
	// MaxResponseBytes and says its length in ResponseSize. glassbox tap
	// sets it: whatever an agent's service sends reaches the agent.
	PassOversize bool

	base   http.RoundTripper
	redact *redactor
}

var _ http.RoundTripper = (*Transport)(nil)

// NewTransport wraps base (http.DefaultTransport when nil). secrets are
// literal values, such as the API key, to mask wherever they appear in a
// recorded exchange; values shorter than four characters are ignored.
func NewTransport(base http.RoundTripper, secrets ...string) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{base: base, redact: newRedactor(secrets)}
}

// MaskError masks every secret value the transport knows in a provider
// error's message. A service may quote the key back ("Request with key
// AIza… is invalid"), and providers phrase their errors from what the
// service said, so the message must be masked before anyone sees it.
func (t *Transport) MaskError(err error) error {
	pe, ok := err.(*Error)
	if !ok || pe == nil {
		return err
	}
	msg, masked := t.redact.maskString(pe.Message)
	if !masked {
		return err
	}
	c := *pe
	c.Message = msg
	c.Err = maskedCause{err: pe.Err, text: msg}
	return &c
}

// maskedCause keeps the SDK's error for errors.As while its text, which may
// quote a secret, reads as the masked message.
type maskedCause struct {
	err  error
	text string
}

func (m maskedCause) Error() string { return m.text }
func (m maskedCause) Unwrap() error { return m.err }

// Recorder collects the exchanges made with one context (see WithRecorder),
// typically one provider call. The zero value is ready to use and safe for
// concurrent use; set the callbacks before the first request.
type Recorder struct {
	// OnRequest, when set, is called as each request goes on the wire, with
	// only the request half of the exchange filled in, so a screen can show
	// the request while the response is awaited.
	OnRequest func(Exchange)
	// OnChunk, when set, is called for each piece of response body as it
	// arrives (already redacted), from the goroutine reading the body.
	OnChunk func(Chunk)
	// DryRun stops every request at the capture: OnRequest sees it as it
	// would go on the wire, and the transport answers ErrNotSent instead of
	// sending it. Nothing is recorded (no exchange, no cassette entry).
	DryRun bool

	mu        sync.Mutex
	exchanges []Exchange
}

// Exchanges returns the exchanges completed so far, in completion order.
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchanges...)
}

func (r *Recorder) add(ex Exchange) {
	r.mu.Lock()
	r.exchanges = append(r.exchanges, ex)
	r.mu.Unlock()
}

type recordersKey struct{}

// WithRecorder returns a context whose HTTP exchanges are recorded into r.
// Recorders stack: an exchange made with the returned context goes to r and
// to every Recorder already in ctx, so a provider can collect its own
// exchanges while the screen also watches them.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	if r == nil {
		return ctx
	}
	outer := recordersFrom(ctx)
	all := append(outer[:len(outer):len(outer)], r) // never share outer's array
	return context.WithValue(ctx, recordersKey{}, all)
}

func recordersFrom(ctx context.Context) []*Recorder {
	rs, _ := ctx.Value(recordersKey{}).([]*Recorder)
	return rs
}

// RoundTrip sends req through the base transport and records the exchange.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := &capture{
		transport: t,
		recorders: recordersFrom(req.Context()),
		start:     time.Now(),
		stream:    &streamRedactor{r: t.redact},
	}
	c.ex.Method = req.Method
	c.ex.URL = t.redact.url(req.URL, &c.notes)
	c.ex.RequestHeaders = t.redact.headers(req.Header, "", &c.notes)

	// The body can be read only once: read it, keep a copy, and send an
	// identical one on. The caller's request is left as it was (a
	// RoundTripper must not modify it), apart from closing its body.
	body, err := readRequestBody(req)
	if err != nil {
		c.fail(err)
		return nil, err
	}
	masked, ok := t.redact.maskBytes(body)
	c.ex.RequestBody = masked
	if ok {
		c.notes.add("secret value in request body")
	}
	// httptrace reports each header field as the transport writes it, so
	// the exchange shows what went on the wire, not only what the SDK set.
	trace := &httptrace.ClientTrace{WroteHeaderField: func(name string, values []string) {
		c.wroteHeader(name, values, req.Header)
	}}
	c.requestSent()
	for _, r := range c.recorders {
		if r.DryRun {
			return nil, ErrNotSent
		}
	}
	// From here the limits hold: the request goes out with a context the
	// watchdog cancels when the server goes silent or the call runs too long.
	c.watch = startWatchdog(req.Context(), t.Limits)
	sent := req.Clone(httptrace.WithClientTrace(c.watch.ctx, trace))
	if req.Body != nil && req.Body != http.NoBody {
		sent.Body = io.NopCloser(bytes.NewReader(body))
		sent.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}

	resp, err := t.base.RoundTrip(sent)
	if err != nil {
		err = c.watch.explain(err)
		c.fail(err)
		return nil, err
	}
	c.watch.alive()
	c.headersReceived(resp)
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	c.watch.watchBody(resp.Body)
	resp.Body = &capturedBody{body: resp.Body, capture: c}
	return resp, nil
}

func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := ReadBody(req.Body, req.ContentLength)
	if err != nil {
		return nil, fmt.Errorf("glassbox could not read the request body: %w", err)
	}
	return body, nil
}

// capture is one exchange being recorded.
type capture struct {
	transport *Transport
	recorders []*Recorder
	start     time.Time

	mu     sync.Mutex // guards everything below
	ex     Exchange
	notes  notes
	raw    []byte // the response body as received, unmasked
	stream *streamRedactor
	framer recordFramer
	// clock, on a replay, tells when each byte arrived in the recording.
	clock recordedClock
	watch *watchdog
	done  bool
}

// recordedClock is a replayed body: it knows when the bytes it hands out
// arrived in the recording, so the replay shows the recorded timing.
type recordedClock interface {
	// recordedTimes are the recording's time to headers and to the end.
	recordedTimes() (ttfb, total time.Duration, ok bool)
	// recordedChunk is the recorded chunk the last read took its bytes
	// from, without its data: when it arrived, and in how many reads.
	recordedChunk() (Chunk, bool)
}

// now is the offset of this moment in the exchange: the recorded one on a
// replay, the time since the request was sent otherwise.
func (c *capture) now() time.Duration {
	if c.clock != nil {
		if rc, ok := c.clock.recordedChunk(); ok {
			return rc.Offset
		}
	}
	return time.Since(c.start)
}

// asRecorded gives the chunks a replayed read completed the recorded
// chunk's reads: a replay hands each recorded chunk over whole, so it
// is the recording that knows how the network had split it.
func (c *capture) asRecorded(chunks []Chunk) []Chunk {
	if c.clock == nil {
		return chunks
	}
	if rc, ok := c.clock.recordedChunk(); ok {
		for i := range chunks {
			chunks[i].Reads, chunks[i].Start = rc.Reads, rc.Start
		}
	}
	return chunks
}

func (c *capture) requestSent() {
	for _, r := range c.recorders {
		if r.OnRequest != nil {
			r.OnRequest(c.requestOnly())
		}
	}
}

func (c *capture) requestOnly() Exchange {
	return Exchange{
		Method:         c.ex.Method,
		URL:            c.ex.URL,
		RequestHeaders: c.ex.RequestHeaders,
		RequestBody:    c.ex.RequestBody,
		Redacted:       append([]string(nil), c.notes...),
	}
}

// wroteHeader records one header field the transport wrote, redacted, and
// marks it when the SDK's request did not hold it. A field written again
// from the start (the transport retried the request on a new connection)
// starts the list over.
func (c *capture) wroteHeader(name string, values []string, set http.Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	if len(c.ex.WireHeaders) > 0 && strings.EqualFold(c.ex.WireHeaders[0].Name, name) {
		c.ex.WireHeaders = nil
	}
	_, inRequest := set[http.CanonicalHeaderKey(name)]
	masked := c.transport.redact.headers(http.Header{name: values}, "", &c.notes)[name]
	for _, v := range masked {
		c.ex.WireHeaders = append(c.ex.WireHeaders, WireHeader{Name: name, Value: v, Added: !inRequest})
	}
}

func (c *capture) headersReceived(resp *http.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ex.TTFB = time.Since(c.start)
	if clock, ok := resp.Body.(recordedClock); ok {
		if ttfb, _, ok := clock.recordedTimes(); ok {
			c.clock, c.ex.TTFB = clock, ttfb
		}
	}
	c.framer.kind = framingOf(resp.Header)
	c.ex.Status = resp.StatusCode
	if d := resp.Header.Get(DivergenceHeader); d != "" {
		c.ex.Divergence = d
		resp.Header.Del(DivergenceHeader)
	}
	c.ex.ResponseHeaders = c.transport.redact.headers(resp.Header, "response ", &c.notes)
}

// fail completes an exchange that never got a response.
func (c *capture) fail(err error) {
	c.mu.Lock()
	msg, _ := c.transport.redact.maskString(err.Error())
	c.ex.Err = msg
	c.mu.Unlock()
	c.complete()
}

// received records one read's worth of response body and shows it live.
func (c *capture) received(p []byte) {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return
	}
	c.raw = append(c.raw, p...)
	data, masked := c.stream.feed(p)
	chunks := c.chunksLocked(c.asRecorded(c.framer.feed(data, c.now())), masked)
	c.mu.Unlock()
	c.showChunks(chunks)
}

// chunksLocked records the chunks the masked bytes completed (possibly
// none: the redactor may hold bytes back, and a record may not be whole).
func (c *capture) chunksLocked(chunks []Chunk, masked bool) []Chunk {
	if masked {
		c.notes.add("secret value in response body")
	}
	c.ex.Chunks = append(c.ex.Chunks, chunks...)
	return chunks
}

func (c *capture) showChunks(chunks []Chunk) {
	for _, chunk := range chunks {
		for _, r := range c.recorders {
			if r.OnChunk != nil {
				r.OnChunk(chunk)
			}
		}
	}
}

// bodyEnded completes the exchange at the end of the body (err is io.EOF),
// on Close (err is nil), or when reading failed (any other err).
func (c *capture) bodyEnded(err error) {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return
	}
	data, masked := c.stream.flush()
	offset := c.now()
	chunks := c.chunksLocked(append(c.framer.feed(data, offset), c.framer.flush(offset)...), masked)
	if err != nil && !errors.Is(err, io.EOF) {
		msg, _ := c.transport.redact.maskString(err.Error())
		c.ex.Err = bodyCutPrefix + msg
	}
	body, masked := c.transport.redact.maskBytes(c.raw)
	c.ex.ResponseBody = body
	if masked {
		c.notes.add("secret value in response body")
	}
	c.mu.Unlock()
	c.showChunks(chunks)
	c.complete()
}

// oversize records the whole length of a response body the capture kept
// only the first MaxResponseBytes of.
func (c *capture) oversize(n int64) {
	c.mu.Lock()
	if !c.done {
		c.ex.ResponseSize = n
	}
	c.mu.Unlock()
}

// complete hands the finished exchange on, exactly once.
func (c *capture) complete() {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return
	}
	c.done = true
	c.ex.Total = time.Since(c.start)
	if c.clock != nil {
		if _, total, ok := c.clock.recordedTimes(); ok {
			c.ex.Total = total
		}
	}
	if c.watch != nil {
		c.watch.stop()
	}
	if len(c.notes) > 0 {
		c.ex.Redacted = append([]string(nil), c.notes...)
	}
	ex := c.ex
	c.mu.Unlock()

	for _, r := range c.recorders {
		r.add(ex)
	}
	if c.transport.OnExchange != nil {
		c.transport.OnExchange(ex)
	}
}

// MaxResponseBytes caps a provider's response body. A real reply is at
// most a few hundred KiB; a runaway or hostile server sending more would
// otherwise cost many times its size in memory (the SDK's copy, the
// capture's, the decoded JSON) and as much again in trace and cassette.
const MaxResponseBytes = 8 << 20

// ErrResponseTooLarge ends the read of a response beyond MaxResponseBytes.
var ErrResponseTooLarge = fmt.Errorf("the response is larger than the %d MiB glassbox reads from a provider, so it was cut off there and the call failed", MaxResponseBytes>>20)

// capturedBody passes the response body through to the SDK unchanged while
// recording each read, up to MaxResponseBytes.
type capturedBody struct {
	body    io.ReadCloser
	capture *capture
	read    int
}

func (b *capturedBody) Read(p []byte) (int, error) {
	if b.read >= MaxResponseBytes && b.capture.transport.PassOversize {
		return b.pass(p)
	}
	if b.read >= MaxResponseBytes {
		b.capture.bodyEnded(ErrResponseTooLarge)
		return 0, ErrResponseTooLarge
	}
	if room := MaxResponseBytes - b.read; len(p) > room {
		p = p[:room]
	}
	n, err := b.body.Read(p)
	b.read += n
	if n > 0 {
		if b.capture.watch != nil {
			b.capture.watch.alive()
		}
		b.capture.received(p[:n])
	}
	if err != nil {
		if b.capture.watch != nil {
			err = b.capture.watch.explain(err)
		}
		b.capture.bodyEnded(err)
	}
	return n, err
}

// pass reads on past what the capture keeps, counting the bytes: the
// exchange ends with the body's whole length.
func (b *capturedBody) pass(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.read += n
	if n > 0 && b.capture.watch != nil {
		b.capture.watch.alive()
	}
	if err != nil {
		if b.capture.watch != nil {
			err = b.capture.watch.explain(err)
		}
		if b.read > MaxResponseBytes {
			b.capture.oversize(int64(b.read))
		}
		b.capture.bodyEnded(err)
	}
	return n, err
}

func (b *capturedBody) Close() error {
	if b.read > MaxResponseBytes {
		b.capture.oversize(int64(b.read))
	}
	err := b.body.Close()
	b.capture.bodyEnded(nil)
	return err
}
