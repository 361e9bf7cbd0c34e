// Package bus puts a glass box on the MCP bus (docs/mcp.md, "glassbox on
// the bus"): glassbox is an MCP server with one tool, ask_agent. Each call
// becomes an event {source: "mcp_bus", type: "mcp_message"} in the engine's
// queue, and the engine's output step hands the event's answer back to this
// package's output handler (Engine.Attach), which answers that call and no
// other. Every JSON-RPC frame of the bus goes into the run's WireLog, so it
// is shown and kept like a client-side MCP frame.
package bus

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

const (
	// Source is the event source of the bus.
	Source = "mcp_bus"
	// EventType is the type of every event the bus queues.
	EventType = "mcp_message"
	// ToolName is the tool glassbox offers on the bus.
	ToolName = "ask_agent"
	// Peer names the bus in its frames (tools.Frame.Server).
	Peer = "bus"
	// refKey is where a result carries the event it answers (_meta).
	refKey = "glassbox/event"
	// sentWait bounds how long the output step waits for the answer's
	// frame to be written, so the frame belongs to the step that sent it.
	sentWait = 5 * time.Second
)

// Queue is what the bus needs of the engine: a way in (Submit), an output
// handler for its source (Attach), and the event in progress (Event), whose
// caller is asked when the engine needs a person. *loop.Engine is one.
type Queue interface {
	Submit(loop.Event)
	Attach(source string, fn loop.OutputFunc)
	Event() *loop.Event
}

var _ Queue = (*loop.Engine)(nil)

// Options are what a bus is built from.
type Options struct {
	// Version is glassbox's version, told to clients in initialize.
	Version string
	// Wire receives every frame of the bus (the run's tools.Registry.Wire).
	Wire *tools.WireLog
	// Secrets are masked in every answer sent back.
	Secrets []string
}

// Bus is glassbox's MCP server. One Bus serves one engine, over any number
// of connections; calls queue in the engine as events, in the order they
// arrive.
type Bus struct {
	q      Queue
	wire   *tools.WireLog
	mask   *providers.Masker
	server *mcp.Server
	queued chan struct{} // one token per event queued, for the front end

	// id makes this bus's event refs its own: a session resumed with an
	// older bus's event still queued never answers a new caller with it.
	id string

	mu    sync.Mutex
	next  int
	calls map[string]*call // by event Ref, until the answer's frame went
}

// call is one tools/call waiting for its event's answer.
type call struct {
	out     chan loop.Output
	sent    chan struct{} // closed when the answer's frame was written
	gone    chan struct{} // closed when the caller stopped waiting
	session *mcp.ServerSession
	once    sync.Once
}

// New builds the bus; Bind gives it its engine before it serves.
func New(o Options) *Bus {
	b := &Bus{wire: o.Wire, mask: providers.NewMasker(o.Secrets...),
		calls: map[string]*call{}, queued: make(chan struct{}, 1024), id: rand.Text()[:8]}
	if b.wire == nil {
		b.wire = &tools.WireLog{}
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "glassbox", Title: "glassbox, an agent in a glass box", Version: o.Version},
		&mcp.ServerOptions{Instructions: "ask_agent gives a request to the agent in this glass box and returns its final answer. A person watches every step and approves the tool calls that need one."})
	b.server.AddTool(&mcp.Tool{
		Name:        ToolName,
		Description: "Ask the agent in this glass box to do something in its workspace. The result is the agent's final answer; an error result says why the run was refused or halted.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"request":{"type":"string","description":"what the agent should do, as a person would type it"}},"required":["request"]}`),
	}, b.ask)
	return b
}

// Bind makes q the engine the bus queues events in, and the bus the output
// handler of q's mcp_bus source. wire, when not nil, replaces the frame log
// (the run's, known only once the run is open).
func (b *Bus) Bind(q Queue, wire *tools.WireLog) {
	b.mu.Lock()
	b.q = q
	if wire != nil {
		b.wire = wire
	}
	b.mu.Unlock()
	q.Attach(Source, b.deliver)
}

// Queued has a value for each event the bus queued: a front end that
// waits for work selects on it, then steps the engine.
func (b *Bus) Queued() <-chan struct{} { return b.queued }

// ask is the ask_agent handler: the request becomes an event and the call
// waits for its answer.
func (b *Bus) ask(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Request string `json:"request"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Request) == "" {
		return errorResult(`ask_agent wants {"request": "what the agent should do"} with a request that is not empty`, ""), nil
	}
	c := &call{out: make(chan loop.Output, 1), sent: make(chan struct{}), gone: make(chan struct{}), session: req.Session}
	b.mu.Lock()
	q := b.q
	if q == nil {
		b.mu.Unlock()
		return errorResult("glassbox is still opening its run; ask again in a moment", ""), nil
	}
	b.next++
	ref := fmt.Sprintf("bus-%s-%d", b.id, b.next)
	b.calls[ref] = c
	b.mu.Unlock()

	q.Submit(loop.Event{Source: Source, Type: EventType, Data: in.Request, Ref: ref, From: client(req.Session)})
	select {
	case b.queued <- struct{}{}:
	default: // the front end has a thousand to take already
	}
	select {
	case out := <-c.out:
		if ctx.Err() == nil {
			return b.result(ref, out), nil
		}
		// Cancelled as the answer came: no answer will be written.
	case <-ctx.Done():
	}
	// The caller cancelled (or went away): its event still runs when its
	// turn comes — the person sees it, and may abandon it — but nobody can
	// be asked on its behalf, and the answer goes to nobody.
	b.mu.Lock()
	delete(b.calls, ref)
	b.mu.Unlock()
	close(c.gone)
	return nil, ctx.Err()
}

// client names the caller: its name and version from initialize.
func client(ss *mcp.ServerSession) string {
	name := "an unnamed client"
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			name = strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
		}
	}
	return loop.Printable(loop.Clip(name, 80)) + " on the MCP bus"
}

// deliver is the output handler of the mcp_bus source: the engine's output
// step (DELIVERING_OUTPUT, or HALTED's report) calls it with the event's
// answer. It answers that event's call and waits, briefly, until the
// answer's frame is written, so the frame is kept in the step that sent it.
func (b *Bus) deliver(out loop.Output) {
	b.mu.Lock()
	c := b.calls[out.Ref]
	b.mu.Unlock()
	if c == nil {
		return // the caller cancelled, or the event came from a resumed session
	}
	c.out <- out
	t := time.NewTimer(sentWait)
	defer t.Stop()
	select {
	case <-c.sent:
	case <-c.gone:
	case <-t.C:
	}
	b.mu.Lock()
	delete(b.calls, out.Ref)
	b.mu.Unlock()
}

// result is the tools/call result for out: the answer, or an error result
// that says why the run halted or what was refused.
func (b *Bus) result(ref string, out loop.Output) *mcp.CallToolResult {
	text := b.mask.Mask(out.Text)
	switch {
	case out.Halted:
		return errorResult("glassbox halted this request: "+text, ref)
	case len(out.Refused) > 0:
		var s strings.Builder
		s.WriteString("glassbox refused part of this request:\n")
		for _, r := range out.Refused {
			s.WriteString("- " + b.mask.Mask(r) + "\n")
		}
		s.WriteString("The agent's answer after that: " + text)
		return errorResult(s.String(), ref)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, Meta: meta(ref)}
}

func meta(ref string) mcp.Meta {
	if ref == "" {
		return nil
	}
	return mcp.Meta{refKey: ref}
}

func errorResult(text, ref string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true, Meta: meta(ref)}
}

// Serve answers one connection until it ends: stdio (an IOTransport over
// standard input and output), or an in-memory transport (the mcp-bus
// lesson, tests).
func (b *Bus) Serve(ctx context.Context, t mcp.Transport) error {
	ss, err := b.server.Connect(ctx, mcptool.Recording(t, Peer, true, b.add), nil)
	if err != nil {
		return err
	}
	return ss.Wait()
}

// ServeStdio serves the bus over in and out (newline-delimited JSON-RPC)
// until in ends or ctx is done.
func (b *Bus) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := b.Serve(ctx, mcptool.StdioTransport(in, out))
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Handler serves the bus over streamable HTTP. Its answers are plain JSON
// bodies (not event streams), so each request's frame and its answer's
// frame are recorded as they pass.
func (b *Bus) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.server }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var method string
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
			r.Body.Close()
			if err != nil {
				http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			method = b.frameBytes("recv", body, "")
		}
		rec := &bodyRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.body.Len() > 0 {
			b.frameBytes("send", rec.body.Bytes(), method)
		}
	})
}

// bodyRecorder keeps a copy of a JSON response body.
type bodyRecorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *bodyRecorder) Write(p []byte) (int, error) {
	if r.body.Len() < 4<<20 {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *bodyRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// frameBytes records a raw HTTP body as a frame and returns the method of
// the request it holds ("" for a response or what is not JSON-RPC).
func (b *Bus) frameBytes(dir string, body []byte, method string) string {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(body))
	if err != nil {
		b.wire.Add(tools.Frame{Server: Peer, Dir: dir, Time: time.Now(), Error: "not JSON-RPC: " + loop.Clip(string(body), 200)})
		return ""
	}
	return b.frame(dir, msg, method)
}

// frame records one message of the bus and, for an answer to ask_agent,
// tells the output step waiting for it that it went.
func (b *Bus) frame(dir string, msg jsonrpc.Message, method string) string {
	f := tools.Frame{Server: Peer, Dir: dir, Time: time.Now(), Method: method}
	f.Body, _ = jsonrpc.EncodeMessage(msg)
	if m, ok := msg.(*jsonrpc.Request); ok {
		f.Method = m.Method
	}
	b.add(f, msg)
	return f.Method
}

// add puts a frame of the bus in the log (mcptool.Recording calls it for a
// stream connection, frame for an HTTP body).
func (b *Bus) add(f tools.Frame, msg jsonrpc.Message) {
	b.wire.Add(f)
	// Only once the frame is in the log may the output step end: the step
	// that sent the answer keeps its frame.
	if m, ok := msg.(*jsonrpc.Response); ok && f.Dir == "send" {
		b.sent(m.Result)
	}
}

// sent marks the call whose answer result carries as sent.
func (b *Bus) sent(result json.RawMessage) {
	var r struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	ref, _ := r.Meta[refKey].(string)
	if ref == "" {
		return
	}
	b.mu.Lock()
	c := b.calls[ref]
	b.mu.Unlock()
	if c != nil {
		c.once.Do(func() { close(c.sent) })
	}
}

// Loopback reports whether addr (HOST:PORT) is a loopback address, one
// only this machine reaches: an IP address in 127.0.0.0/8 or ::1, or
// "localhost". An empty host (":7777") is every interface, so it is not.
// err is set when addr is not HOST:PORT.
func Loopback(addr string) (bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, fmt.Errorf("want HOST:PORT, such as 127.0.0.1:7777")
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// Listening is the bus served over streamable HTTP (Listen).
type Listening struct {
	// Addr is the address it listens on (with the port the system chose
	// for ":0").
	Addr string
	// Token is this start's token, which every request must present.
	Token string
	// Done gets the server's end (nil when ctx ended it).
	Done <-chan error
}

// Endpoint is where a client reaches the bus: http://ADDR/mcp.
func (l Listening) Endpoint() string { return "http://" + l.Addr + "/mcp" }

// EndpointWithToken is the endpoint carrying the token as its password,
// as glassbox's own --mcp NAME=URL takes it (Go's HTTP client, and curl,
// send it as Basic authorization).
func (l Listening) EndpointWithToken() string {
	return "http://" + tokenUser + ":" + l.Token + "@" + l.Addr + "/mcp"
}

// tokenUser is the user name of EndpointWithToken (any name is accepted).
const tokenUser = "glassbox"

// Listen serves the bus over streamable HTTP at addr under /mcp until ctx
// is done. Whoever reaches addr and holds the token can ask the agent: the
// caller checks the address first (Loopback) and hands the token only to
// the person who started glassbox. A request without the token gets 401,
// and one a web page's script sends from another origin 403 (guard).
func (b *Bus) Listen(ctx context.Context, addr string) (Listening, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return Listening{}, err
	}
	token := rand.Text()
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(token, b.Handler()))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return Listening{Addr: ln.Addr().String(), Token: token, Done: done}, nil
}

// guard lets through only a request that presents token — as
// "Authorization: Bearer TOKEN", or as the password of Basic authorization
// — and that no web page of another origin sent: a browser marks what a
// page's script sends with Origin and Sec-Fetch-Site, and a page cannot
// leave them out. Refused requests never reach the bus, so they are no
// frames of it.
func guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r) {
			http.Error(w, "cross-origin requests are refused: glassbox's MCP bus answers programs on this machine, not web pages", http.StatusForbidden)
			return
		}
		if !presents(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="glassbox MCP bus"`)
			http.Error(w, "glassbox's MCP bus needs the token glassbox printed when it started: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether r came from no web page, or from a page of
// the bus's own origin.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host && (u.Scheme == "http" || u.Scheme == "https")
}

// presents reports whether r carries token, compared in constant time.
func presents(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		_, got, ok = r.BasicAuth()
	}
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
