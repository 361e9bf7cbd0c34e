// Package mcptool attaches MCP servers (--mcp NAME=COMMAND… or NAME=URL)
// through the official Go SDK: each tool a server lists becomes a
// tools.Tool named NAME__tool, and every JSON-RPC frame that passes is
// recorded in the registry's WireLog (docs/mcp.md).
package mcptool

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"mvdan.cc/sh/v3/shell"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/tools"
)

// Separator joins a server's name and its tool's name: NAME__tool.
const Separator = "__"

// DefaultTimeout bounds the handshake and each tool call unless Options say otherwise.
const DefaultTimeout = 30 * time.Second

// protocolVersion is sent in initialize. The SDK would otherwise first try
// server/discover, which servers of the 2025 protocol do not know.
const protocolVersion = "2025-11-25"

// Spec is one --mcp value: a server's name and how to reach it.
type Spec struct {
	Name string
	// Command is a stdio server's program and arguments.
	Command []string
	// URL is a streamable HTTP server's endpoint.
	URL string
	// Demo is the server bundled in glassbox (--mcp demo): glassbox
	// started again, under the sandbox, as `glassbox mcp-demo`.
	Demo bool
}

// DemoSpec is --mcp demo: the bundled demo server, attached as "demo".
var DemoSpec = Spec{Name: DemoName, Demo: true}

var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// ParseSpec reads NAME=COMMAND ARGS… (split as a shell splits words, with
// no expansion), NAME=http(s)://… or the word demo (DemoSpec).
func ParseSpec(s string) (Spec, error) {
	if s == DemoName {
		return DemoSpec, nil
	}
	name, target, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(target) == "" {
		return Spec{}, fmt.Errorf("--mcp %q: want NAME=COMMAND, NAME=URL or demo (the server bundled in glassbox)", s)
	}
	if !namePattern.MatchString(name) || strings.Contains(name, Separator) {
		return Spec{}, fmt.Errorf("--mcp %q: the name %q must start with a letter and hold only letters, digits, - and single _ (at most 32)", s, name)
	}
	target = strings.TrimSpace(target)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		if _, err := url.Parse(target); err != nil {
			return Spec{}, fmt.Errorf("--mcp %q: %v", s, err)
		}
		return Spec{Name: name, URL: target}, nil
	}
	words, err := shell.Fields(target, func(string) string { return "" })
	if err != nil || len(words) == 0 {
		return Spec{}, fmt.Errorf("--mcp %q: the command cannot be read: %v", s, err)
	}
	if strings.ContainsAny(target, "$`") {
		return Spec{}, fmt.Errorf("--mcp %q: the command is run without a shell; write it without $ or `", s)
	}
	return Spec{Name: name, Command: words}, nil
}

// Options are how servers are started.
type Options struct {
	// Dir is a stdio server's working folder (the workspace).
	Dir string
	// Sandbox is what the run's policy opens for its commands (network,
	// variables passed on, files concealed): a stdio server runs under the
	// same sandbox with the same settings (tools.StartProgram).
	Sandbox tools.Confinement
	// Timeout bounds each call (DefaultTimeout if 0).
	Timeout time.Duration
	// ConnectTimeout bounds the handshake: initialize and tools/list
	// (DefaultTimeout if 0).
	ConnectTimeout time.Duration
	// HTTPClient reaches streamable HTTP servers (http.DefaultClient if nil).
	HTTPClient *http.Client
}

// Server is one attached MCP server.
type Server struct {
	name    string
	session *mcp.ClientSession
	timeout time.Duration
	tools   []tools.Tool
	stderr  *tailBuffer
	program *tools.Program // a stdio server's process
	calls   atomic.Int64   // numbers each call's progress token
}

// Attach starts or reaches the server, lists its tools and records every
// frame in wire. ctx bounds only the handshake.
func Attach(ctx context.Context, spec Spec, wire *tools.WireLog, opt Options) (*Server, error) {
	if spec.URL != "" {
		return AttachTransport(ctx, spec.Name, &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: opt.HTTPClient, MaxRetries: -1}, wire, opt)
	}
	stderr := &tailBuffer{max: 4 << 10}
	argv := spec.Command
	if spec.Demo {
		argv = []string{DemoArg}
	}
	p, err := tools.StartProgram(tools.ProgramSpec{Argv: argv, Self: spec.Demo, Dir: opt.Dir, Confinement: opt.Sandbox, Stderr: stderr})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %v", spec.Name, err)
	}
	s, err := attach(ctx, spec.Name, stdioTransport(io.NopCloser(p), p), wire, opt, nil)
	if err != nil {
		// Its log is whole once it has ended (its standard error closed).
		p.Close()
		s := &Server{stderr: stderr}
		return nil, fmt.Errorf("%w%s", err, s.stderrTail())
	}
	s.program, s.stderr = p, stderr
	return s, nil
}

// MaxFrameBytes bounds one JSON-RPC frame read from a stdio server (or,
// on the bus, from a stdio client): a server's result is cut at
// maxResultBytes anyway, and no list of tools comes near it. A larger
// frame ends the connection, and its tools fail saying why.
const MaxFrameBytes = 4 << 20

// stdioTransport is newline-delimited JSON-RPC over r and w, with frames
// bounded by MaxFrameBytes.
func stdioTransport(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
	return &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: MaxFrameBytes}
}

// StdioTransport is stdioTransport for the bus (glassbox mcp-serve).
func StdioTransport(r io.ReadCloser, w io.WriteCloser) mcp.Transport { return stdioTransport(r, w) }

// AttachTransport attaches a server reached through t (an in-process
// server's in-memory transport, for one).
func AttachTransport(ctx context.Context, name string, t mcp.Transport, wire *tools.WireLog, opt Options) (*Server, error) {
	return attach(ctx, name, t, wire, opt, nil)
}

func attach(ctx context.Context, name string, inner mcp.Transport, wire *tools.WireLog, opt Options, stderr *tailBuffer) (*Server, error) {
	s := &Server{name: name, timeout: opt.Timeout, stderr: stderr}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	t := Recording(inner, name, false, func(f tools.Frame, _ jsonrpc.Message) { wire.Add(f) })
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(opt.ConnectTimeout, DefaultTimeout))
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "glassbox", Version: "1"}, nil)
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: connecting: %v%s", name, err, s.stderrTail())
	}
	s.session = cs
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		cs.Close()
		return nil, fmt.Errorf("MCP server %s: tools/list: %v%s", name, err, s.stderrTail())
	}
	if err := s.addTools(res.Tools); err != nil {
		cs.Close()
		return nil, err
	}
	return s, nil
}

// addTools makes the server's tools, each offered under a valid name
// (offeredNames).
func (s *Server) addTools(listed []*mcp.Tool) error {
	var remote []string
	for _, t := range listed {
		remote = append(remote, t.Name)
	}
	names := offeredNames(s.name, remote)
	seen := map[string]string{}
	for _, tool := range listed {
		offered := names[tool.Name]
		if other, dup := seen[offered]; dup {
			return fmt.Errorf("MCP server %s: the tools %q and %q would both be offered as %s", s.name, other, tool.Name, offered)
		}
		seen[offered] = tool.Name
		mt, err := newTool(s, tool, offered)
		if err != nil {
			return err
		}
		s.tools = append(s.tools, mt)
	}
	return nil
}

// Name is the name the server was attached as.
func (s *Server) Name() string { return s.name }

// Tools are the server's tools, named NAME__tool.
func (s *Server) Tools() []tools.Tool { return slices.Clone(s.tools) }

// Rename is a tool offered under another name than its server's.
type Rename struct {
	Offered, Remote string
}

// Renamed are the server's tools offered under a name made from theirs
// (offeredNames), in the order the server listed them.
func (s *Server) Renamed() []Rename {
	var out []Rename
	for _, t := range s.tools {
		if mt := t.(*Tool); mt.spec.Name != s.name+Separator+mt.remote {
			out = append(out, Rename{Offered: mt.spec.Name, Remote: mt.remote})
		}
	}
	return out
}

// Sandbox is a stdio server's sandbox line ("on — …" or "off — reason"),
// or "" for a server glassbox did not start.
func (s *Server) Sandbox() string {
	if s.program == nil {
		return ""
	}
	return s.program.Sandbox()
}

// Reads are what a stdio server may read beyond what a command may
// (tools.ServerReads): its own script and the folder that holds it.
func (s *Server) Reads() []string {
	if s.program == nil {
		return nil
	}
	return s.program.Reads()
}

// Close ends the session (a stdio server is stopped).
func (s *Server) Close() error {
	err := s.session.Close()
	if err != nil && s.stderr != nil && strings.Contains(err.Error(), "exit status") {
		return nil // a server that had already stopped
	}
	return err
}

// stoppedBy says which limit stopped a stdio server, when one did: a
// server whose connection broke is given a moment to be reported ended.
func (s *Server) stoppedBy() string {
	if s.program == nil {
		return ""
	}
	if limit := s.program.StoppedBy(2 * time.Second); limit != "" {
		return "; the server reached " + limit + " and was stopped"
	}
	return ""
}

func (s *Server) stderrTail() string {
	if s.stderr == nil {
		return ""
	}
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		return "; the server wrote: " + t
	}
	return ""
}

// Tool is one tool of an MCP server.
type Tool struct {
	server *Server
	remote string // the name the server knows it by
	spec   history.ToolSpec
}

var _ tools.Tool = (*Tool)(nil)

// toolNamePattern is what every dialect accepts as a function name
// (Gemini's rule is the narrowest: a letter or _ first, then letters,
// digits, _ . -, at most 64 in all); the server's name and the separator
// come first.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`)

// maxResultBytes caps the text of one result, as read_file caps a file: a
// server cannot flood the model's context.
const maxResultBytes = 256 << 10

func newTool(s *Server, t *mcp.Tool, offered string) (*Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(schema), []byte("{")) {
		return nil, fmt.Errorf("MCP server %s: tool %q has an input schema that is not a JSON object", s.name, t.Name)
	}
	description := t.Description
	if offered != s.name+Separator+t.Name {
		// The model, and whoever reads the tools in the payload, learn
		// the server's own name for it.
		description = fmt.Sprintf("(The MCP server %s names this tool %q.) %s", s.name, t.Name, description)
	}
	spec := history.ToolSpec{
		Name:        offered,
		Description: description,
		Schema:      schema,
		// What a call may do is unknown to glassbox: the server's own
		// process may write the workspace and reach the network. Its
		// annotations are kept as hints, never as attributes.
		Attrs: history.Attributes{ChangesFiles: true, ReachesOut: true, Origin: "mcp:" + s.name, Hints: hints(t.Annotations)},
	}
	return &Tool{server: s, remote: t.Name, spec: spec}, nil
}

func hints(a *mcp.ToolAnnotations) []string {
	if a == nil {
		return nil
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "readOnlyHint")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint {
		h = append(h, "destructiveHint")
	}
	if a.IdempotentHint {
		h = append(h, "idempotentHint")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		h = append(h, "openWorldHint")
	}
	return h
}

// Spec is the tool's definition, its schema as the server gave it.
func (t *Tool) Spec() history.ToolSpec { return t.spec }

var _ tools.Previewer = (*Tool)(nil)

// Preview says, for a tool offered under another name than its server's,
// which tool of which server the call reaches: the person approving it
// reads the name the server knows.
func (t *Tool) Preview(json.RawMessage) string {
	if t.spec.Name == t.server.name+Separator+t.remote {
		return ""
	}
	return fmt.Sprintf("calls the tool %q of the MCP server %s (offered to the model as %s)", t.remote, t.server.name, t.spec.Name)
}

// Run calls the tool. Whatever goes wrong on the server's side — it
// crashed, hung past the time limit, answered something that is not
// JSON-RPC, returned isError or a JSON-RPC error — is a failed Result the
// model reads; only a cancelled ctx is an error.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return failed("%s: the arguments must be a JSON object", t.spec.Name), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, t.server.timeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: t.remote, Arguments: args}
	// A token invites the server to report progress (notifications/
	// progress frames); numbered per server, so a replay sends the same.
	params.SetProgressToken(t.server.calls.Add(1))
	res, err := t.server.session.CallTool(callCtx, params)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		why := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			why = fmt.Sprintf("no answer within %s", t.server.timeout)
		}
		return failed("%s: the MCP server %s failed: %s%s%s", t.spec.Name, t.server.name, why, t.server.stderrTail(), t.server.stoppedBy()), nil
	}
	text := contentText(res)
	if len(text) > maxResultBytes {
		text = strings.ToValidUTF8(text[:maxResultBytes], "") + fmt.Sprintf("\n[… cut: the server's result is %d bytes; the first %d are shown]", len(text), maxResultBytes)
	}
	return tools.Result{Content: tools.EscapeBidi(text), IsError: res.IsError}, nil
}

func failed(format string, a ...any) tools.Result {
	return tools.Result{IsError: true, Content: fmt.Sprintf(format, a...)}
}

// contentText is a result as text for the model: text parts as they are,
// other parts named with their type and size.
func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image, %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes]", c.MIMEType, len(c.Data)))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}

// tailBuffer keeps the last max bytes written (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
