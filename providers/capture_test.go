package providers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// roundTripFunc lets a test stand in for the network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// piecesBody returns one piece per Read, then err (io.EOF when nil).
type piecesBody struct {
	pieces [][]byte
	err    error
	closed bool
}

func (b *piecesBody) Read(p []byte) (int, error) {
	if len(b.pieces) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := copy(p, b.pieces[0])
	b.pieces[0] = b.pieces[0][n:]
	if len(b.pieces[0]) == 0 {
		b.pieces = b.pieces[1:]
	}
	return n, nil
}

func (b *piecesBody) Close() error { b.closed = true; return nil }

// servePieces is a base transport answering 200 with the given body pieces.
func servePieces(header http.Header, pieces ...string) roundTripFunc {
	return func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
		body := &piecesBody{}
		for _, p := range pieces {
			body.pieces = append(body.pieces, []byte(p))
		}
		if header == nil {
			header = http.Header{}
		}
		return &http.Response{StatusCode: 200, Header: header.Clone(), Body: body, Request: r}, nil
	}
}

func newRequest(t *testing.T, ctx context.Context, method, url, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestTransportRecordsAnExchange(t *testing.T) {
	var serverSaw []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serverSaw, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Served-By", "test")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()

	var hooked []Exchange
	tr := NewTransport(nil)
	tr.OnExchange = func(ex Exchange) { hooked = append(hooked, ex) }
	rec := &Recorder{}
	req := newRequest(t, WithRecorder(context.Background(), rec), http.MethodPost, srv.URL+"/v1beta/models/m:generateContent?alt=sse", `{"contents":[]}`)
	req.Header.Set("Content-Type", "application/json")

	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	if string(got) != `{"ok":true}` {
		t.Errorf("the client read %q, want the server's body unchanged", got)
	}
	if string(serverSaw) != `{"contents":[]}` {
		t.Errorf("the server read %q, want the request body unchanged", serverSaw)
	}
	exs := rec.Exchanges()
	if len(exs) != 1 || len(hooked) != 1 {
		t.Fatalf("recorder has %d exchanges and OnExchange ran %d times, want 1 and 1", len(exs), len(hooked))
	}
	ex := exs[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"method", ex.Method, "POST"},
		{"url", ex.URL, srv.URL + "/v1beta/models/m:generateContent?alt=sse"},
		{"request content-type", strings.Join(ex.RequestHeaders["Content-Type"], ","), "application/json"},
		{"request body", string(ex.RequestBody), `{"contents":[]}`},
		{"status", ex.Status, http.StatusCreated},
		{"response header", strings.Join(ex.ResponseHeaders["X-Served-By"], ","), "test"},
		{"response body", string(ex.ResponseBody), `{"ok":true}`},
		{"chunks joined", string(joinChunks(ex.Chunks)), `{"ok":true}`},
		{"error", ex.Err, ""},
		{"redacted", len(ex.Redacted), 0},
		{"hook saw the same exchange", hooked[0].URL, ex.URL},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if ex.TTFB <= 0 || ex.Total < ex.TTFB {
		t.Errorf("TTFB %v and Total %v: want 0 < TTFB <= Total", ex.TTFB, ex.Total)
	}
}

func joinChunks(chunks []Chunk) []byte {
	var b bytes.Buffer
	for _, c := range chunks {
		b.Write(c.Data)
	}
	return b.Bytes()
}

func TestTransportRecordsOneChunkPerRead(t *testing.T) {
	pieces := []string{"data: {\"a\":1}\r\n\r\n", "data: {\"a\":2}\r\n\r\n", "data: {\"a\":3}\r\n\r\n"}
	tr := NewTransport(servePieces(nil, pieces...))
	var live []Chunk
	rec := &Recorder{OnChunk: func(c Chunk) { live = append(live, c) }}
	req := newRequest(t, WithRecorder(context.Background(), rec), http.MethodGet, "http://gemini.test/stream", "")

	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		_, err := resp.Body.Read(buf)
		if err != nil {
			break
		}
	}
	resp.Body.Close()

	ex := rec.Exchanges()[0]
	if len(ex.Chunks) != len(pieces) {
		t.Fatalf("recorded %d chunks, want one per read: %d", len(ex.Chunks), len(pieces))
	}
	for i, p := range pieces {
		if string(ex.Chunks[i].Data) != p {
			t.Errorf("chunk %d = %q, want %q", i, ex.Chunks[i].Data, p)
		}
		if i > 0 && ex.Chunks[i].Offset < ex.Chunks[i-1].Offset {
			t.Errorf("chunk %d arrived at %v, before chunk %d at %v", i, ex.Chunks[i].Offset, i-1, ex.Chunks[i-1].Offset)
		}
	}
	if len(live) != len(pieces) {
		t.Errorf("OnChunk ran %d times, want %d", len(live), len(pieces))
	}
}

func TestTransportCompletesExactlyOnce(t *testing.T) {
	tests := []struct {
		name     string
		consume  func(io.ReadCloser)
		wantBody string
	}{
		{"read to the end, then close", func(b io.ReadCloser) { io.ReadAll(b); b.Close() }, "hello world"},
		{"read past the end twice, close twice", func(b io.ReadCloser) {
			io.ReadAll(b)
			b.Read(make([]byte, 8))
			b.Close()
			b.Close()
		}, "hello world"},
		{"close before the end", func(b io.ReadCloser) { b.Read(make([]byte, 64)); b.Close() }, "hello "},
		{"close without reading", func(b io.ReadCloser) { b.Close() }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTransport(servePieces(nil, "hello ", "world"))
			calls := 0
			var last Exchange
			tr.OnExchange = func(ex Exchange) { calls++; last = ex }
			resp, err := tr.RoundTrip(newRequest(t, context.Background(), http.MethodGet, "http://x.test/", ""))
			if err != nil {
				t.Fatal(err)
			}
			tt.consume(resp.Body)
			if calls != 1 {
				t.Fatalf("OnExchange ran %d times, want exactly 1", calls)
			}
			if string(last.ResponseBody) != tt.wantBody {
				t.Errorf("recorded body %q, want %q", last.ResponseBody, tt.wantBody)
			}
		})
	}
}

func TestTransportRecordsFailures(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	tests := []struct {
		name    string
		base    roundTripFunc
		wantErr string // in Exchange.Err
		failed  bool   // RoundTrip itself returns an error
	}{
		{
			name:    "transport error",
			base:    func(*http.Request) (*http.Response, error) { return nil, refused },
			wantErr: "connection refused",
			failed:  true,
		},
		{
			name: "body cut off mid-stream",
			base: func(r *http.Request) (*http.Response, error) {
				body := &piecesBody{pieces: [][]byte{[]byte("data: {")}, err: io.ErrUnexpectedEOF}
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: body, Request: r}, nil
			},
			wantErr: "the response body was cut off: unexpected EOF",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTransport(tt.base)
			var hooked []Exchange
			tr.OnExchange = func(ex Exchange) { hooked = append(hooked, ex) }
			rec := &Recorder{}
			resp, err := tr.RoundTrip(newRequest(t, WithRecorder(context.Background(), rec), http.MethodPost, "http://x.test/", "{}"))
			if tt.failed != (err != nil) {
				t.Fatalf("RoundTrip error = %v, want failure %v", err, tt.failed)
			}
			if err == nil {
				io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if len(hooked) != 1 || len(rec.Exchanges()) != 1 {
				t.Fatalf("OnExchange ran %d times and the recorder holds %d, want 1 and 1", len(hooked), len(rec.Exchanges()))
			}
			if !strings.Contains(hooked[0].Err, tt.wantErr) {
				t.Errorf("Exchange.Err = %q, want it to contain %q", hooked[0].Err, tt.wantErr)
			}
			if string(hooked[0].RequestBody) != "{}" {
				t.Errorf("request body = %q, want it recorded even on failure", hooked[0].RequestBody)
			}
		})
	}
}

func TestRecordersStackAndTheHookSeesEverything(t *testing.T) {
	tr := NewTransport(servePieces(nil, "ok"))
	hooked := 0
	tr.OnExchange = func(Exchange) { hooked++ }
	outer, inner := &Recorder{}, &Recorder{}
	outerCtx := WithRecorder(context.Background(), outer)
	innerCtx := WithRecorder(outerCtx, inner)

	for _, ctx := range []context.Context{innerCtx, outerCtx, context.Background()} {
		resp, err := tr.RoundTrip(newRequest(t, ctx, http.MethodGet, "http://x.test/", ""))
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if got := len(inner.Exchanges()); got != 1 {
		t.Errorf("inner recorder holds %d exchanges, want 1 (only its own context)", got)
	}
	if got := len(outer.Exchanges()); got != 2 {
		t.Errorf("outer recorder holds %d exchanges, want 2 (its own and the inner context's)", got)
	}
	if hooked != 3 {
		t.Errorf("OnExchange ran %d times, want 3 (with or without a recorder)", hooked)
	}
}

func TestRecorderOnRequestComesBeforeTheResponse(t *testing.T) {
	var events []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		events = append(events, "sent")
		return servePieces(nil, "ok")(r)
	})
	rec := &Recorder{OnRequest: func(ex Exchange) {
		events = append(events, "request "+ex.Method+" "+string(ex.RequestBody)+" status="+http.StatusText(ex.Status))
	}}
	resp, err := NewTransport(base).RoundTrip(newRequest(t, WithRecorder(context.Background(), rec), http.MethodPost, "http://x.test/", `{"q":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{`request POST {"q":1} status=`, "sent"}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("events = %q, want %q", events, want)
	}
}

func TestTransportMovesTheDivergenceHeader(t *testing.T) {
	header := http.Header{DivergenceHeader: {"request body differs from recording #1 at contents"}}
	tr := NewTransport(servePieces(header, "ok"))
	var ex Exchange
	tr.OnExchange = func(e Exchange) { ex = e }
	resp, err := tr.RoundTrip(newRequest(t, context.Background(), http.MethodGet, "http://x.test/", ""))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := resp.Header.Get(DivergenceHeader); got != "" {
		t.Errorf("the SDK still sees %s: %q", DivergenceHeader, got)
	}
	if ex.Divergence != "request body differs from recording #1 at contents" {
		t.Errorf("Exchange.Divergence = %q", ex.Divergence)
	}
	if _, ok := ex.ResponseHeaders[DivergenceHeader]; ok {
		t.Errorf("the recorded headers still hold %s", DivergenceHeader)
	}
}

func TestRecorderIsSafeForConcurrentUse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 10000))
	}))
	defer srv.Close()
	tr := NewTransport(nil, "secret-value")
	var mu sync.Mutex
	hooked := 0
	tr.OnExchange = func(Exchange) { mu.Lock(); hooked++; mu.Unlock() }
	chunks := 0
	rec := &Recorder{OnChunk: func(Chunk) { mu.Lock(); chunks++; mu.Unlock() }}
	ctx := WithRecorder(context.Background(), rec)
	client := &http.Client{Transport: tr}

	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := client.Do(newRequest(t, ctx, http.MethodPost, srv.URL, "body"))
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if got := len(rec.Exchanges()); got != n || hooked != n {
		t.Errorf("recorder holds %d and OnExchange ran %d times, want %d each", got, hooked, n)
	}
	if chunks < n {
		t.Errorf("OnChunk ran %d times for %d responses", chunks, n)
	}
}

// BenchmarkCaptureOneMiB measures what the capture adds to a 1 MiB response
// read in 32 KiB pieces, with a key to look for (docs/architecture.md, "Performance targets": the glass box
// adds under 10 % to a live call).
func BenchmarkCaptureOneMiB(b *testing.B) {
	piece := strings.Repeat(`{"text":"lorem ipsum dolor sit amet"},`, 32*1024/37)
	pieces := make([]string, 1024*1024/len(piece))
	for i := range pieces {
		pieces[i] = piece
	}
	tr := NewTransport(servePieces(nil, pieces...), testKey)
	b.SetBytes(int64(len(piece) * len(pieces)))
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "http://x.test/", strings.NewReader(`{"contents":[]}`))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// A tap passes an oversize response on whole (PassOversize): the caller
// reads every byte, the exchange keeps the first MaxResponseBytes and says
// the whole length. Without the option the call fails at the limit.
func TestPassOversizeResponse(t *testing.T) {
	big := strings.Repeat("x", MaxResponseBytes+12345)
	for _, pass := range []bool{true, false} {
		var got Exchange
		tr := NewTransport(servePieces(http.Header{"Content-Type": {"text/plain"}}, big[:MaxResponseBytes/2], big[MaxResponseBytes/2:]))
		tr.PassOversize = pass
		tr.OnExchange = func(x Exchange) { got = x }
		req, _ := http.NewRequest(http.MethodGet, "http://example.invalid/big", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !pass {
			if !errors.Is(err, ErrResponseTooLarge) || len(body) != MaxResponseBytes {
				t.Errorf("without PassOversize: read %d bytes, err %v", len(body), err)
			}
			continue
		}
		if err != nil || len(body) != len(big) {
			t.Fatalf("read %d of %d bytes, err %v", len(body), len(big), err)
		}
		if len(got.ResponseBody) != MaxResponseBytes || got.ResponseSize != int64(len(big)) || got.Err != "" {
			t.Errorf("kept %d bytes, size %d, err %q", len(got.ResponseBody), got.ResponseSize, got.Err)
		}
	}
}
