package offline

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// NewTransport returns an http.RoundTripper that answers every request from
// the simulated servers in this process: no sockets, no ports, any host.
// Give it to the SDKs as their HTTP client's Transport:
//
//	hc := &http.Client{Transport: offline.NewTransport(offline.Config{}, &gemini.Emulator, &ollama.Emulator)}
//	genai.NewClient(ctx, &genai.ClientConfig{APIKey: "offline", HTTPClient: hc,
//		HTTPOptions: genai.HTTPOptions{BaseURL: "http://offline.invalid"}})
//	api.NewClient(&url.URL{Scheme: "http", Host: "offline.invalid"}, hc)
//
// The response body streams: each chunk the handler flushes arrives as its
// own read, so a wire capture sees the same chunk timing a network would show.
func NewTransport(cfg Config, emulators ...*Emulator) http.RoundTripper {
	return &Transport{Handler: NewHandler(cfg, emulators...)}
}

// Transport runs an http.Handler in-process for each request.
type Transport struct {
	Handler http.Handler
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip serves req with the handler. It returns as soon as the handler
// has written its headers, with the body streaming behind; if the request's
// context ends first, it returns the context's error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	// The handler reads the body itself, as a server reads it from the
	// connection: a long conversation's request is not copied once more
	// here. The body is closed when the handler is done, which a
	// RoundTripper may do after returning.
	in := req.Clone(ctx)
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "offline"

	pr, pw := io.Pipe()
	w := &pipeResponseWriter{header: http.Header{}, pw: pw, committed: make(chan struct{})}
	go func() {
		defer in.Body.Close()
		defer func() {
			if p := recover(); p != nil {
				// As net/http's server does, a handler panic costs one
				// request, not the process.
				w.WriteHeader(http.StatusInternalServerError)
				pw.CloseWithError(fmt.Errorf("offline handler panic: %v", p))
				return
			}
			w.WriteHeader(http.StatusOK) // no-op when already written
			if err := ctx.Err(); err != nil {
				pw.CloseWithError(err)
				return
			}
			pw.Close()
		}()
		t.Handler.ServeHTTP(w, in)
	}()

	select {
	case <-w.committed:
	case <-ctx.Done():
		pr.CloseWithError(ctx.Err()) // unblocks the handler's writes
		return nil, ctx.Err()
	}
	status, header := w.snapshot()
	resp := &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          pr,
		ContentLength: -1,
		Request:       req,
	}
	if n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = n
	}
	if req.Method == http.MethodHead {
		pr.Close()
		resp.Body = http.NoBody
	}
	return resp, nil
}

// pipeResponseWriter is the handler's side of an in-process response: the
// headers are handed over once, the body goes through a pipe.
type pipeResponseWriter struct {
	mu        sync.Mutex
	header    http.Header
	status    int
	sent      http.Header // the headers as committed
	committed chan struct{}
	pw        *io.PipeWriter
}

// Header returns the header map the handler fills before WriteHeader.
func (w *pipeResponseWriter) Header() http.Header { return w.header }

// WriteHeader commits the status and headers; later calls do nothing.
func (w *pipeResponseWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent != nil {
		return
	}
	w.status = status
	w.sent = w.header.Clone()
	if _, ok := w.sent["Date"]; !ok {
		// net/http's server adds it to every response; so do both real APIs.
		w.sent.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	close(w.committed)
}

// Write sends body bytes; it blocks until the client reads them.
func (w *pipeResponseWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush commits the headers; body bytes are never buffered.
func (w *pipeResponseWriter) Flush() { w.WriteHeader(http.StatusOK) }

func (w *pipeResponseWriter) snapshot() (int, http.Header) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.sent
}
