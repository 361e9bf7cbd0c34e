package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// tapLimits are the capture's limits on a call through the tap: the agent
// has its own, and the tap must not cut a call the agent is still waiting
// for.
var tapLimits = providers.Limits{Stall: 24 * time.Hour, Call: 24 * time.Hour}

// call is one model call through the tap.
type call struct {
	codec  wire.Codec
	target *url.URL // where it goes
	body   []byte   // the request body as the agent sent it
	// send is the body forwarded: body, or a what-if edit of it.
	send []byte
	// shown is the request as the steps show it: masked, its body kept
	// up to Options.Keep. The recorder sets it.
	shown   providers.Exchange
	dialect string
	secret  bool // the body held a secret value (it is shown masked)
	edit    *loop.ContextEdit
	// request and reply are done when the recorder has taken each half;
	// their hold, when they are held.
	request, reply chan *held
	// recorded is set once the reply half is queued.
	recorded bool
	// live numbers the call among those the screen follows in flight.
	live int
}

// editable says a what-if edit of the request can be offered: its body
// is kept whole and holds no secret.
func (c *call) editable() bool { return !c.secret && c.shown.RequestSize == 0 }

// errAgentGone ends a call whose agent gave up while it was held.
var errAgentGone = errors.New("the agent gave up waiting")

// ServeHTTP serves one call of the agent: a model call is recorded (and
// held, when the tap holds it) and forwarded; a read-only call around the
// model calls is passed through; anything else gets a 404 that names what
// the tap serves.
func (t *Tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	codec, route, ok := t.codecs.Detect(r.Method, r.URL.RequestURI())
	switch {
	case !ok:
		t.unknown(w, r)
	case route == wire.PassThrough:
		t.passThrough(w, r, codec)
	default:
		t.modelCall(w, r, codec)
	}
}

// modelCall records, holds and forwards one model call.
func (t *Tap) modelCall(w http.ResponseWriter, r *http.Request, codec wire.Codec) {
	body, err := providers.ReadBody(r.Body, r.ContentLength)
	if err != nil {
		// The agent went away in the middle of sending: nothing to
		// answer, nothing it sent to show.
		return
	}
	t.keys.see(r)
	c := &call{codec: codec, target: t.up.target(codec, r.URL), body: body, send: body,
		request: make(chan *held, 1), reply: make(chan *held, 1)}
	mayHold := t.queue(job{call: c, headers: r.Header.Clone(), method: r.Method})
	if mayHold {
		if h := <-c.request; h != nil && !t.wait(r.Context(), h) {
			t.queue(job{call: c, gone: true})
			return
		}
	}
	t.forward(w, r, c)
}

// forward sends c upstream through the capture and delivers the reply:
// held first, read whole, when the tap may hold it; else streamed as it
// arrives.
func (t *Tap) forward(w http.ResponseWriter, r *http.Request, c *call) {
	rec := &providers.Recorder{OnChunk: func(ch providers.Chunk) { t.chunk(c, ch) }}
	tr := providers.NewTransport(t.up.base, t.keys.all()...)
	tr.PassOversize, tr.Limits = true, tapLimits
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := *c.target
			pr.Out.URL, pr.Out.Host = &u, ""
			// The tap reads the reply, so it asks for it as the
			// transport can decompress it (the agent gets it plain).
			pr.Out.Header.Del("Accept-Encoding")
			pr.Out.Header.Del("Content-Length")
		},
		Transport:      tr,
		FlushInterval:  -1,
		ModifyResponse: func(resp *http.Response) error { return t.deliver(r.Context(), resp, c, rec) },
		ErrorHandler:   func(w http.ResponseWriter, r *http.Request, err error) { t.refused(w, r, c, err) },
	}
	out := r.WithContext(providers.WithRecorder(r.Context(), rec))
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(c.send)), int64(len(c.send))
	// The reply is recorded however the call ends: ReverseProxy panics
	// with http.ErrAbortHandler to cut the agent's connection when the
	// service's reply, or the agent, broke off in the middle.
	defer func() {
		if !c.recorded {
			t.queue(job{call: c, reply: lastExchange(rec, c)})
		}
	}()
	rp.ServeHTTP(w, out)
}

// deliver is the reply's turn: when the tap may hold it, the reply is read
// whole, recorded, held if its steps say so, and delivered as it came —
// cut where the service cut it.
// ctx is the agent's call: the outbound request's context ends with the
// capture.
func (t *Tap) deliver(ctx context.Context, resp *http.Response, c *call, rec *providers.Recorder) error {
	if !t.readsWhole() {
		return nil
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.recorded = true
	t.queue(job{call: c, reply: lastExchange(rec, c), mayHold: true})
	if h := <-c.reply; h != nil && !t.wait(ctx, h) {
		return errAgentGone
	}
	var rest io.Reader = bytes.NewReader(raw)
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	resp.Body = io.NopCloser(rest)
	return nil
}

// errReader fails with the error the service's body ended with, so the
// agent's connection is cut where the service cut the tap's.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// lastExchange is the exchange the capture completed for c (one: the tap
// never retries), or, when it completed none, a failure saying so.
func lastExchange(rec *providers.Recorder, c *call) *providers.Exchange {
	if xs := rec.Exchanges(); len(xs) > 0 {
		return &xs[len(xs)-1]
	}
	return &providers.Exchange{Err: "the call was not sent to " + c.target.Host}
}

// refused answers the agent when the service could not be reached, or its
// reply not read: 502 with what went wrong. A call whose agent is gone gets
// nothing.
func (t *Tap) refused(w http.ResponseWriter, r *http.Request, c *call, err error) {
	if errors.Is(err, errAgentGone) || r.Context().Err() != nil {
		return
	}
	msg := t.keys.mask().Mask(err.Error())
	writeError(w, http.StatusBadGateway, fmt.Sprintf("glassbox tap: the service at %s did not answer: %s", c.target.Host, msg))
}

// passThrough forwards a read-only call (a model list, a version) as it
// is, untouched and unrecorded.
func (t *Tap) passThrough(w http.ResponseWriter, r *http.Request, codec wire.Codec) {
	target := t.up.target(codec, r.URL)
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.Out.URL, pr.Out.Host = target, "" },
		Transport:     t.up.base,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, http.StatusBadGateway, fmt.Sprintf("glassbox tap: the service at %s did not answer: %s", target.Host, t.keys.mask().Mask(err.Error())))
		},
	}
	rp.ServeHTTP(w, r)
}

// unknown answers a path no family serves: a 404 naming the paths the tap
// knows. The call is shown (a call glassbox could not read), with a note.
func (t *Tap) unknown(w http.ResponseWriter, r *http.Request) {
	body, _ := providers.ReadBody(io.LimitReader(r.Body, int64(t.opt.Keep)), r.ContentLength)
	t.keys.see(r)
	msg := fmt.Sprintf("glassbox tap: no API family is served at %s %s. The tap serves %s.", r.Method, r.URL.Path, strings.Join(t.codecs.Paths(), "; "))
	status, answer := http.StatusNotFound, errorBody(http.StatusNotFound, msg)
	writeBody(w, status, answer)
	x := providers.Exchange{Method: r.Method, URL: "http://" + r.Host + r.URL.RequestURI(), RequestHeaders: r.Header.Clone(), RequestBody: body,
		Status: status, ResponseHeaders: map[string][]string{"Content-Type": {"application/json"}}, ResponseBody: answer}
	t.queue(job{unknown: &x})
}

// writeError answers with a JSON error body that each family's client
// reads as an error: {"error": {"code", "message", "status"}}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeBody(w, status, errorBody(status, msg))
}

func errorBody(status int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": http.StatusText(status)}})
	return b
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// chunk adds a piece of c's reply to the call in flight.
func (t *Tap) chunk(c *call, ch providers.Chunk) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live != nil && t.liveID == c.live {
		t.live.Chunks = append(t.live.Chunks, ch)
		t.wake()
	}
}

// replied stops following c in flight; t.mu is held.
func (t *Tap) replied(c *call) {
	if t.live != nil && t.liveID == c.live {
		t.live = nil
	}
}
