package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server is an MCP server inside glassbox, for learning MCP with
// nothing installed: `--mcp demo` starts glassbox again, under the same
// sandbox as any stdio server, as the hidden subcommand `glassbox
// mcp-demo`, which serves it on its standard input and output. Each of its
// tools shows one part of the protocol (docs/mcp.md, "The demo server").

// DemoName is the name the demo server is attached as: its tools are
// demo__echo, demo__file_ticket, demo__divide and demo__count_slowly.
const DemoName = "demo"

// DemoArg is the hidden subcommand that serves the demo server over
// standard input and output.
const DemoArg = "mcp-demo"

// demoTick is how long count_slowly waits between two numbers.
const demoTick = 150 * time.Millisecond

// The demo's input schemas, as a server writes them. ticketSchema nests an
// object, an array and enums; all stay within what every dialect carries
// (Ollama's native tools included: no nested required, no minLength).
const (
	echoSchema   = `{"type":"object","properties":{"text":{"type":"string","description":"what to say back"}},"required":["text"]}`
	ticketSchema = `{"type":"object","properties":{` +
		`"title":{"type":"string","description":"one line saying what is wrong"},` +
		`"severity":{"type":"string","enum":["low","medium","high","critical"],"description":"how bad it is"},` +
		`"labels":{"type":"array","items":{"type":"string"},"description":"words to find the ticket by"},` +
		`"reporter":{"type":"object","description":"who reports it","properties":{` +
		`"name":{"type":"string"},` +
		`"team":{"type":"string","enum":["backend","frontend","docs"]}}}},` +
		`"required":["title","severity"]}`
	divideSchema = `{"type":"object","properties":{"a":{"type":"number","description":"the dividend"},"b":{"type":"number","description":"the divisor"}},"required":["a","b"]}`
	countSchema  = `{"type":"object","properties":{"to":{"type":"integer","description":"the number to count to, 1 to 10"}},"required":["to"]}`
)

// NewDemoServer is the demo server: four tools, each teaching one thing.
//
//   - echo says its text back, and is annotated read-only (readOnlyHint),
//     which glassbox shows as a hint and never trusts;
//   - file_ticket takes a richer schema (an enum, an array, a nested
//     object) that goes to each dialect as written;
//   - divide returns a result marked isError when asked to divide by zero;
//   - count_slowly sends a notifications/progress frame for each number
//     before it answers.
func NewDemoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "glassbox-demo", Title: "glassbox's demo MCP server", Version: "1"}, nil)
	destructive := false
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Say the text back. Reads nothing, changes nothing.",
		InputSchema: json.RawMessage(echoSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &destructive}},
		demoEcho)
	s.AddTool(&mcp.Tool{Name: "file_ticket", Description: "File a ticket about a problem (kept by the demo server in memory, never written anywhere).",
		InputSchema: json.RawMessage(ticketSchema)}, demoTicket())
	s.AddTool(&mcp.Tool{Name: "divide", Description: "Divide a by b. Dividing by zero is an error the tool reports as its result (isError).",
		InputSchema: json.RawMessage(divideSchema), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		demoDivide)
	s.AddTool(&mcp.Tool{Name: "count_slowly", Description: "Count from 1 to a number, reporting each number as progress before answering.",
		InputSchema: json.RawMessage(countSchema)}, demoCount)
	return s
}

// ServeDemo serves the demo server over in and out (the subcommand's
// standard input and output) until in ends or ctx is cancelled.
func ServeDemo(ctx context.Context, in io.Reader, out io.Writer) error {
	err := NewDemoServer().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// demoArgs decodes a call's arguments into v; a mistake is a failed
// result the model reads (the SDK does not check arguments against the
// schema of a tool added with Server.AddTool).
func demoArgs(r *mcp.CallToolRequest, v any) *mcp.CallToolResult {
	if err := json.Unmarshal(r.Params.Arguments, v); err != nil {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("the arguments do not fit the tool's schema: %v", err))
		return res
	}
	return nil
}

func demoEcho(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Text string `json:"text"`
	}
	if bad := demoArgs(r, &a); bad != nil {
		return bad, nil
	}
	return textResult("echo: " + a.Text), nil
}

// demoTicket numbers the tickets of one server from 1.
func demoTicket() mcp.ToolHandler {
	var filed atomic.Int64
	return func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Title    string   `json:"title"`
			Severity string   `json:"severity"`
			Labels   []string `json:"labels"`
			Reporter *struct {
				Name string `json:"name"`
				Team string `json:"team"`
			} `json:"reporter"`
		}
		if bad := demoArgs(r, &a); bad != nil {
			return bad, nil
		}
		switch a.Severity {
		case "low", "medium", "high", "critical":
		default:
			res := &mcp.CallToolResult{}
			res.SetError(fmt.Errorf("severity %q is not one of low, medium, high, critical", a.Severity))
			return res, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "ticket #%d filed: %q, severity %s", filed.Add(1), a.Title, a.Severity)
		if len(a.Labels) > 0 {
			fmt.Fprintf(&b, ", labels %s", strings.Join(a.Labels, ", "))
		}
		if a.Reporter != nil && a.Reporter.Name != "" {
			fmt.Fprintf(&b, ", reported by %s", a.Reporter.Name)
			if a.Reporter.Team != "" {
				fmt.Fprintf(&b, " (%s)", a.Reporter.Team)
			}
		}
		return textResult(b.String()), nil
	}
}

func demoDivide(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		A *float64 `json:"a"`
		B *float64 `json:"b"`
	}
	if bad := demoArgs(r, &a); bad != nil {
		return bad, nil
	}
	if a.A == nil || a.B == nil {
		res := &mcp.CallToolResult{}
		res.SetError(errors.New("divide needs both a and b"))
		return res, nil
	}
	if *a.B == 0 {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("cannot divide %s by zero", strconv.FormatFloat(*a.A, 'g', -1, 64)))
		return res, nil
	}
	return textResult(strconv.FormatFloat(*a.A / *a.B, 'g', -1, 64)), nil
}

func demoCount(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		To int `json:"to"`
	}
	if bad := demoArgs(r, &a); bad != nil {
		return bad, nil
	}
	if a.To < 1 || a.To > 10 {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("to is %d; count_slowly counts to 1 through 10", a.To))
		return res, nil
	}
	token := r.Params.GetProgressToken()
	var said []string
	for n := 1; n <= a.To; n++ {
		said = append(said, strconv.Itoa(n))
		if token != nil {
			err := r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(n), Total: float64(a.To), Message: "counted " + strconv.Itoa(n),
			})
			if err != nil {
				return nil, err
			}
		}
		if n < a.To {
			select {
			case <-time.After(demoTick):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return textResult("counted to " + strconv.Itoa(a.To) + ": " + strings.Join(said, " ")), nil
}
