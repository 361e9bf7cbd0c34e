package telemetry

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// MCP spans follow the conventions' MCP page (v1.41.0): a request or
// notification glassbox sends to a server is a CLIENT span named
// "{mcp.method.name}" (with the tool's name for tools/call), one a server
// sends to glassbox a SERVER span; a response ends its request's span. A
// tools/call made for the model's tool call is not a span of its own: its
// MCP attributes go on the execute_tool span, as the page asks of an
// instrumentation that already traces the tool.

// mcpCall is a request waiting for its response.
type mcpCall struct {
	span trace.Span
	tool bool // the request is the execute_tool span's own tools/call
}

// rpcMessage is what the spans read of a JSON-RPC message.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name            string `json:"name"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
	Result *struct {
		IsError         bool   `json:"isError"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// frames makes the spans of the MCP frames a step carries.
func (tr *tracker) frames(t record, start time.Time) {
	for _, f := range t.MCP {
		var m rpcMessage
		if len(f.Body) == 0 || json.Unmarshal(f.Body, &m) != nil {
			continue // unreadable: the step's record shows it
		}
		at := f.Time
		if at.IsZero() {
			at = start
		}
		if m.Method != "" {
			tr.mcpRequest(f, m, at)
		} else {
			tr.mcpResponse(f, m, at)
		}
	}
}

// rpcID is a JSON-RPC id as the conventions record it: its text, without
// the quotes of a string id.
func rpcID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// callKey names a request by who sent it and its id; its response comes
// the other way.
func callKey(server, dir, id string) string { return server + "\x00" + dir + "\x00" + id }

func opposite(dir string) string {
	if dir == "send" {
		return "recv"
	}
	return "send"
}

func (tr *tracker) mcpRequest(f tools.Frame, m rpcMessage, at time.Time) {
	id := rpcID(m.ID)
	if m.Method == "tools/call" && f.Dir == "send" && tr.tool != nil && tr.toolKey == f.Server+mcptool.Separator+m.Params.Name {
		if id != "" {
			tr.tool.SetAttributes(keyRPCID.String(id))
			tr.mcp[callKey(f.Server, f.Dir, id)] = &mcpCall{span: tr.tool, tool: true}
		}
		return
	}
	name := m.Method
	attrs := append([]attribute.KeyValue{keyMCPMethod.String(m.Method), keyMCPServer.String(f.Server)}, tr.transport(f.Server)...)
	if m.Method == "tools/call" && m.Params.Name != "" {
		name += " " + m.Params.Name
		attrs = append(attrs, keyToolName.String(m.Params.Name), keyOperation.String("execute_tool"))
	}
	if m.Params.ProtocolVersion != "" {
		attrs = append(attrs, keyMCPVersion.String(m.Params.ProtocolVersion))
	}
	if id != "" {
		attrs = append(attrs, keyRPCID.String(id))
	}
	kind := trace.SpanKindClient
	if f.Dir != "send" {
		kind = trace.SpanKindServer // the server asked glassbox
	}
	_, span := tr.e.tracer.Start(tr.parentCtx(), name, trace.WithTimestamp(at), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	if id == "" { // a notification: nothing answers it
		span.End(trace.WithTimestamp(at))
		return
	}
	tr.mcp[callKey(f.Server, f.Dir, id)] = &mcpCall{span: span}
}

func (tr *tracker) mcpResponse(f tools.Frame, m rpcMessage, at time.Time) {
	key := callKey(f.Server, opposite(f.Dir), rpcID(m.ID))
	c, ok := tr.mcp[key]
	if !ok {
		return
	}
	delete(tr.mcp, key)
	if m.Result != nil && m.Result.ProtocolVersion != "" {
		c.span.SetAttributes(keyMCPVersion.String(m.Result.ProtocolVersion))
	}
	if e := m.Error; e != nil {
		code := strconv.Itoa(e.Code)
		c.span.SetAttributes(keyRPCStatus.String(code))
		if !c.tool {
			c.span.SetAttributes(keyErrorType.String(code))
			c.span.SetStatus(codes.Error, tr.mask.Mask(e.Message))
		}
	} else if m.Result != nil && m.Result.IsError && !c.tool {
		c.span.SetAttributes(keyErrorType.String("tool_error"))
		c.span.SetStatus(codes.Error, "")
	}
	if !c.tool {
		c.span.End(trace.WithTimestamp(at))
	}
}

// transport are the network attributes of a server: a pipe for stdio, TCP
// and HTTP (with the address) for streamable HTTP.
func (tr *tracker) transport(server string) []attribute.KeyValue {
	raw, ok := tr.run.MCPServers[server]
	if !ok || raw == "" {
		return []attribute.KeyValue{keyNetTranport.String("pipe")}
	}
	kv := []attribute.KeyValue{keyNetTranport.String("tcp"), keyNetProtocol.String("http")}
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		port, _ := strconv.Atoi(u.Port())
		if port == 0 {
			port = map[string]int{"http": 80, "https": 443}[u.Scheme]
		}
		kv = append(kv, keyServerAddress.String(u.Hostname()), keyServerPort.Int(port))
	}
	return kv
}

// mcpServerOf is the MCP server a tool comes from ("" for a built-in).
func (tr *tracker) mcpServerOf(tool string) string {
	server, _, ok := strings.Cut(tool, mcptool.Separator)
	if !ok {
		return ""
	}
	if _, known := tr.run.MCPServers[server]; !known {
		return ""
	}
	return server
}

// mcpToolAttrs are the MCP attributes of an execute_tool span whose tool
// an MCP server runs.
func (tr *tracker) mcpToolAttrs(server string) []attribute.KeyValue {
	return append([]attribute.KeyValue{keyMCPMethod.String("tools/call"), keyMCPServer.String(server)}, tr.transport(server)...)
}
