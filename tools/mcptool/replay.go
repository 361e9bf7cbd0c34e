package mcptool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/tools"
)

// A recording is the MCP frames of a run, kept beside a cassette
// (RecordingPath) so that --replay needs neither the model nor the MCP
// servers (docs/mcp.md, "Record and replay"). It is JSONL, one tools.Frame
// a line, secrets already masked.

// RecordingPath is where the MCP frames of the cassette at cassette go.
func RecordingPath(cassette string) string { return cassette + ".mcp.jsonl" }

// WriteRecording writes frames to path (0600), replacing what was there.
func WriteRecording(path string, frames []tools.Frame) error {
	var b bytes.Buffer
	for _, f := range frames {
		line, err := json.Marshal(f)
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// LoadRecording reads the frames at path; a missing file is no recording
// (nil, nil): the run had no MCP server.
func LoadRecording(path string) ([]tools.Frame, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var frames []tools.Frame
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var f tools.Frame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f.Server == "" || (f.Dir != "send" && f.Dir != "recv") {
			return nil, fmt.Errorf("MCP recording %s: line %d is not a frame", path, n)
		}
		frames = append(frames, f)
	}
	return frames, sc.Err()
}

// ReplayServers attaches one replayed server per server the frames name, in
// the order they first appear: each answers a request with what the server
// answered the same request in the recording, so its tools and their
// results come back without the server. A request the recording does not
// have (another method, or more calls than were made) gets a JSON-RPC error
// saying so.
func ReplayServers(ctx context.Context, frames []tools.Frame, wire *tools.WireLog, opt Options) ([]*Server, error) {
	var names []string
	for _, f := range frames {
		if !slices.Contains(names, f.Server) {
			names = append(names, f.Server)
		}
	}
	var servers []*Server
	for _, name := range names {
		var own []tools.Frame
		for _, f := range frames {
			if f.Server == name {
				own = append(own, f)
			}
		}
		s, err := AttachTransport(ctx, name, &replayTransport{frames: own}, wire, opt)
		if err != nil {
			for _, s := range servers {
				s.Close()
			}
			return nil, fmt.Errorf("replaying the MCP server %s: %w", name, err)
		}
		servers = append(servers, s)
	}
	return servers, nil
}

type replayTransport struct{ frames []tools.Frame }

func (t *replayTransport) Connect(context.Context) (mcp.Connection, error) {
	return &replayConn{frames: t.frames, ready: make(chan struct{}, 1), done: make(chan struct{})}, nil
}

// replayed is what Read returns next: a message, or a recorded read error.
type replayed struct {
	msg jsonrpc.Message
	err error
}

type replayConn struct {
	mu     sync.Mutex
	frames []tools.Frame
	pos    int
	queue  []replayed    // what Read returns next, in order
	ready  chan struct{} // signalled when queue grows
	done   chan struct{}
	once   sync.Once
}

func (c *replayConn) SessionID() string { return "" }

func (c *replayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			r := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return r.msg, r.err
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.done:
			return nil, mcp.ErrConnectionClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// push queues what Read returns next; the caller holds mu.
func (c *replayConn) push(r replayed) {
	c.queue = append(c.queue, r)
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *replayConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// Write takes a request and queues the recorded answer: the frames the
// server sent after the same request, up to glassbox's next one.
func (c *replayConn) Write(_ context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return nil // a notification or a response: nothing to answer
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.pos
	for ; i < len(c.frames); i++ {
		if c.frames[i].Dir == "send" && c.frames[i].Method == req.Method && isRequest(c.frames[i]) {
			break
		}
	}
	if i == len(c.frames) {
		c.push(replayed{msg: &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the MCP recording has no further %s request to replay", req.Method)}}})
		return nil
	}
	if recorded, ok := sameParams(c.frames[i], req.Params); !ok {
		// The recorded request stays for a call that matches it.
		c.push(replayed{msg: &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("this %s differs from the recording's (recorded params %s, sent %s); a replay answers only what was recorded",
				req.Method, recorded, req.Params)}}})
		return nil
	}
	for c.pos = i + 1; c.pos < len(c.frames) && c.frames[c.pos].Dir == "recv"; c.pos++ {
		f := c.frames[c.pos]
		if f.Error != "" {
			c.push(replayed{err: errors.New(f.Error)})
			continue
		}
		m, err := jsonrpc.DecodeMessage(f.Body)
		if err != nil {
			c.push(replayed{err: fmt.Errorf("the MCP recording holds a message that is not JSON-RPC: %v", err)})
			continue
		}
		if resp, ok := m.(*jsonrpc.Response); ok {
			resp.ID = req.ID
		}
		c.push(replayed{msg: m})
	}
	return nil
}

// isRequest reports whether a recorded frame is a request (it has an id),
// not a notification.
func isRequest(f tools.Frame) bool {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(f.Body, &m) == nil && len(m.ID) > 0
}

// sameParams reports whether a request's params mean the same as the
// recorded request's (as JSON values, leaving out _meta: the progress token
// is the connection's bookkeeping, not the request), and returns the
// recorded ones.
func sameParams(f tools.Frame, sent json.RawMessage) (json.RawMessage, bool) {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(f.Body, &m)
	var a, b any
	_ = json.Unmarshal(m.Params, &a)
	_ = json.Unmarshal(sent, &b)
	for _, p := range []any{a, b} {
		if obj, ok := p.(map[string]any); ok {
			delete(obj, "_meta")
		}
	}
	return m.Params, reflect.DeepEqual(a, b)
}
