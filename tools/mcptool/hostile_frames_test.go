package mcptool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/tools"
)

// frameServer is a stdio MCP server written by hand, line by line, so it
// can send what no SDK would: it answers the handshake, lists one tool,
// and answers each tools/call with answer(id), which writes any lines it
// likes.
func frameServer(t *testing.T, answer func(w io.Writer, id json.RawMessage)) (io.ReadCloser, io.WriteCloser) {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	go func() {
		defer fromServerW.Close()
		sc := bufio.NewScanner(toServerR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
				continue
			}
			switch msg.Method {
			case "initialize":
				fmt.Fprintf(fromServerW, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"frames","version":"1"}}}`+"\n", msg.ID)
			case "tools/list":
				fmt.Fprintf(fromServerW, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"go","inputSchema":{"type":"object"}}]}}`+"\n", msg.ID)
			case "tools/call":
				answer(fromServerW, msg.ID)
			}
		}
	}()
	t.Cleanup(func() { toServerW.Close(); fromServerR.Close() })
	return fromServerR, toServerW
}

func textAnswer(w io.Writer, id json.RawMessage, text string) {
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`+"\n", id, text)
}

// Issue 28: hostile MCP frames from a stdio server. A frame past
// MaxFrameBytes and one nested past what JSON decoding takes end the
// connection, and the call fails saying why, at once; answers to requests
// never made (other ids, null) are passed over and the real one is used;
// a flood of notifications before the answer is counted, not kept: the
// step's frames stay within their bound and say how many were left out.
// (None of them waits for the call's time limit: it is a minute here.)
func TestHostileFramesFromAServer(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w io.Writer, id json.RawMessage)
		check  func(t *testing.T, res tools.Result, frames []tools.Frame)
	}{
		{"a frame of 20 MiB", func(w io.Writer, id json.RawMessage) {
			textAnswer(w, id, strings.Repeat("x", 20<<20))
		}, func(t *testing.T, res tools.Result, _ []tools.Frame) {
			if !res.IsError || !strings.Contains(res.Content, "the MCP server frames failed") {
				t.Errorf("%.300s", res.Content)
			}
		}},
		{"nested 20,000 deep", func(w io.Writer, id json.RawMessage) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":%s%s}}`+"\n", id, strings.Repeat("[", 20000), strings.Repeat("]", 20000))
		}, func(t *testing.T, res tools.Result, _ []tools.Frame) {
			if !res.IsError || !strings.Contains(res.Content, "the MCP server frames failed") {
				t.Errorf("%.300s", res.Content)
			}
		}},
		{"answers to requests never made", func(w io.Writer, id json.RawMessage) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":987654,"result":{"content":[{"type":"text","text":"not yours"}]}}`+"\n")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"x","result":{}}`+"\n")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"nobody's"}}`+"\n")
			textAnswer(w, id, "yours")
		}, func(t *testing.T, res tools.Result, frames []tools.Frame) {
			if res.IsError || res.Content != "yours" {
				t.Errorf("%+v", res)
			}
			passed := 0
			for _, f := range frames {
				if strings.HasPrefix(f.Error, "passed over, not JSON-RPC") {
					passed++
				}
			}
			if passed != 1 {
				t.Errorf("%d frames passed over, want the answer with a null id", passed)
			}
		}},
		{"20,000 notifications first", func(w io.Writer, id json.RawMessage) {
			bw := bufio.NewWriter(w)
			for range 20000 {
				bw.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}` + "\n")
			}
			bw.Flush()
			textAnswer(w, id, "after the flood")
		}, func(t *testing.T, res tools.Result, frames []tools.Frame) {
			if res.IsError || res.Content != "after the flood" {
				t.Errorf("%+v", res)
			}
			last := frames[len(frames)-1]
			if len(frames) > tools.MaxStepFrames+1 || !strings.Contains(last.Error, "more frames were left out of this step") {
				t.Errorf("%d frames, the last %+v", len(frames), last)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := frameServer(t, tt.answer)
			wire := &tools.WireLog{}
			s, err := AttachTransport(context.Background(), "frames", stdioTransport(r, w), wire, Options{Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			wire.Drain()
			res, err := toolNamed(t, s, "frames__go").Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res, wire.Drain())
		})
	}
}
