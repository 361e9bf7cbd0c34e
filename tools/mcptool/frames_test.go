package mcptool

import (
	"context"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/tools"
)

// scriptedConn reads what it was given, then io.EOF; writes go nowhere.
type scriptedConn struct{ in []jsonrpc.Message }

func (c *scriptedConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.in) == 0 {
		return nil, io.EOF
	}
	m := c.in[0]
	c.in = c.in[1:]
	return m, nil
}
func (c *scriptedConn) Write(context.Context, jsonrpc.Message) error { return nil }
func (c *scriptedConn) Close() error                                 { return nil }
func (c *scriptedConn) SessionID() string                            { return "" }

type scriptedTransport struct{ c *scriptedConn }

func (t scriptedTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

func message(t *testing.T, s string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.DecodeMessage([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Both ends use one recorder: a response is named after the request that
// went the other way, even when the two sides number their requests alike
// (a client's tools/call 1 and a server's elicitation/create 1), and the
// peer hanging up is news to a client but not to the bus (quietEOF).
func TestRecordingNamesResponsesByDirection(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		conn := &scriptedConn{in: []jsonrpc.Message{
			message(t, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`),
			message(t, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		}}
		var frames []tools.Frame
		rec := Recording(scriptedTransport{conn}, "demo", quiet, func(f tools.Frame, _ jsonrpc.Message) { frames = append(frames, f) })
		c, err := rec.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := c.Write(ctx, message(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			c.Read(ctx) // the server's request, the answer to ours, then EOF
		}
		if err := c.Write(ctx, message(t, `{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range frames {
			got = append(got, f.Dir+" "+f.Method+" "+f.Error)
		}
		want := []string{"send tools/call ", "recv elicitation/create ", "recv tools/call ", "recv  EOF", "send elicitation/create "}
		if quiet {
			want = append(want[:3], want[4])
		}
		if len(got) != len(want) {
			t.Fatalf("quietEOF %v: frames %q, want %q", quiet, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("quietEOF %v: frame %d = %q, want %q", quiet, i, got[i], want[i])
			}
		}
	}
}
