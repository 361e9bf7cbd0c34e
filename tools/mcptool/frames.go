package mcptool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/tools"
)

// Recording wraps inner so that every message of the connections it makes
// becomes a tools.Frame of server, given to add with the message it holds
// (nil for a read or write that failed). One mechanism for both ends:
// glassbox as a client of its servers, and glassbox on the bus (loop/bus).
// A response is named after the request it answers, which went the other
// way. A failure because the connection is ending (closed here, or the
// context cancelled) is not news and is not recorded; with quietEOF
// neither is the peer hanging up (a caller leaving the bus), while a server
// that dies mid-call is.
func Recording(inner mcp.Transport, server string, quietEOF bool, add func(tools.Frame, jsonrpc.Message)) mcp.Transport {
	return &frameTransport{inner: inner, server: server, quietEOF: quietEOF, add: add}
}

type frameTransport struct {
	inner    mcp.Transport
	server   string
	quietEOF bool
	add      func(tools.Frame, jsonrpc.Message)
}

func (t *frameTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &frameConn{Connection: c, t: t, methods: map[string]string{}}, nil
}

type frameConn struct {
	mcp.Connection
	t       *frameTransport
	closing atomic.Bool // the session is ending: a failing read is not news
	mu      sync.Mutex
	methods map[string]string // direction + request id → method, to name a response
}

func (c *frameConn) Close() error {
	c.closing.Store(true)
	return c.Connection.Close()
}

// Read reads the next message. One the transport read whole but could not
// take as JSON-RPC — an answer whose id is null, which a peer sends for a
// request it could not parse — is recorded as such and passed over: the
// connection is sound, and ending it would hand a sloppy or hostile peer
// every call in flight.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		var we *jsonrpc.Error
		if err != nil && errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidRequest {
			c.t.add(tools.Frame{Server: c.t.server, Dir: "recv", Time: time.Now(), Error: "passed over, not JSON-RPC: " + err.Error()}, nil)
			continue
		}
		c.record("recv", msg, err)
		return msg, err
	}
}

// Write records the message before it goes: its answer may be read before
// the write returns.
func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.record("send", msg, nil)
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.record("send", nil, err)
	}
	return err
}

func (c *frameConn) record(dir string, msg jsonrpc.Message, err error) {
	f := tools.Frame{Server: c.t.server, Dir: dir, Time: time.Now()}
	if err != nil {
		if errors.Is(err, context.Canceled) || c.closing.Load() || c.t.quietEOF && errors.Is(err, io.EOF) {
			return // the session ending, not the peer
		}
		f.Error = err.Error()
		c.t.add(f, nil)
		return
	}
	f.Body, _ = jsonrpc.EncodeMessage(msg)
	c.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		f.Method = m.Method
		if m.ID.IsValid() {
			c.methods[dir+fmt.Sprint(m.ID.Raw())] = m.Method
		}
	case *jsonrpc.Response:
		other := map[string]string{"send": "recv", "recv": "send"}[dir]
		key := other + fmt.Sprint(m.ID.Raw())
		f.Method = c.methods[key]
		delete(c.methods, key)
	}
	c.mu.Unlock()
	c.t.add(f, msg)
}
