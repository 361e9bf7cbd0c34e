package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/tools"
)

// sdkServer is an MCP server written with the SDK: echo (read-only, says
// so), fail (isError), boom (a Go error: a JSON-RPC error), hang (waits for
// its context) and notify (sends a log notification before it answers).
func sdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]}`)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Say it back.", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil
		})
	empty := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: empty}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{}
		res.SetError(errors.New("the notes are locked"))
		return res, nil
	})
	s.AddTool(&mcp.Tool{Name: "boom", InputSchema: empty}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: empty}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return s
}

func attachInMemory(t *testing.T, timeout time.Duration) (*Server, *tools.WireLog) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := sdkServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	wire := &tools.WireLog{}
	s, err := AttachTransport(ctx, "demo", ct, wire, Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, wire
}

func toolNamed(t testing.TB, s *Server, name string) tools.Tool {
	t.Helper()
	for _, tool := range s.Tools() {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s among %v", name, s.Tools())
	return nil
}

// methods lists the frames as "dir method".
func methods(frames []tools.Frame) []string {
	var out []string
	for _, f := range frames {
		out = append(out, f.Dir+" "+f.Method)
	}
	return out
}

func TestToolsJoinUnderThePrefixWithSchemaAndNoTrust(t *testing.T) {
	s, wire := attachInMemory(t, time.Second)
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Spec().Name)
	}
	if want := []string{"demo__echo", "demo__fail", "demo__boom", "demo__hang"}; !sameSet(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	spec := toolNamed(t, s, "demo__echo").Spec()
	var schema map[string]any
	if err := json.Unmarshal(spec.Schema, &schema); err != nil || schema["required"] == nil ||
		schema["properties"].(map[string]any)["text"].(map[string]any)["minLength"] != 1.0 {
		t.Errorf("schema = %s, want the server's inputSchema", spec.Schema)
	}
	a := spec.Attrs
	if a.ReadsOnly || !a.ChangesFiles || !a.ReachesOut || a.Origin != "mcp:demo" || !slices.Contains(a.Hints, "readOnlyHint") {
		t.Errorf("attributes = %+v: want readOnlyHint kept as a hint only, the tool treated as changing files and reaching out", a)
	}
	// The handshake: initialize first (no server/discover), then tools/list.
	got := methods(wire.Drain())
	want := []string{"send initialize", "recv initialize", "send notifications/initialized", "send tools/list", "recv tools/list"}
	if !slices.Equal(got, want) {
		t.Errorf("handshake frames = %v, want %v", got, want)
	}
}

func TestCallsAndTheirFailures(t *testing.T) {
	s, wire := attachInMemory(t, 300*time.Millisecond)
	wire.Drain()
	tests := []struct {
		tool, args string
		isError    bool
		content    string
	}{
		{"demo__echo", `{"text":"hi"}`, false, "echo: hi"},
		{"demo__fail", `{}`, true, "the notes are locked"},
		{"demo__boom", `{}`, true, "the MCP server demo failed: calling \"tools/call\": boom"},
		{"demo__hang", `{}`, true, "the MCP server demo failed: no answer within 300ms"},
		{"demo__echo", `["not", "an object"]`, true, "the arguments must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res, err := toolNamed(t, s, tc.tool).Run(context.Background(), json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("Run returned an error (%v); want a result the model reads", err)
			}
			if res.IsError != tc.isError || !strings.Contains(res.Content, tc.content) {
				t.Fatalf("result = %+v, want is_error=%v and %q", res, tc.isError, tc.content)
			}
		})
	}
	// The echo call's frames: the request as sent, the response as read,
	// each named by its method and timed.
	frames := wire.Drain()
	if len(frames) < 2 || frames[0].Method != "tools/call" || frames[0].Dir != "send" || frames[1].Dir != "recv" || frames[1].Method != "tools/call" {
		t.Fatalf("first frames = %v", methods(frames))
	}
	if !strings.Contains(string(frames[0].Body), `"arguments":{"text":"hi"}`) || !strings.Contains(string(frames[1].Body), `echo: hi`) {
		t.Errorf("frame bodies = %s / %s", frames[0].Body, frames[1].Body)
	}
	if frames[0].Time.IsZero() || frames[1].Time.Before(frames[0].Time) {
		t.Errorf("frame times = %v, %v", frames[0].Time, frames[1].Time)
	}
	// A cancelled call is the person's interruption, not a tool failure.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := toolNamed(t, s, "demo__echo").Run(ctx, json.RawMessage(`{"text":"x"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: err = %v, want context.Canceled", err)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	srv := sdkServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	spec, err := ParseSpec("web=" + hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	wire := &tools.WireLog{}
	s, err := Attach(context.Background(), spec, wire, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := toolNamed(t, s, "web__echo").Run(context.Background(), json.RawMessage(`{"text":"over http"}`))
	if err != nil || res.IsError || res.Content != "echo: over http" {
		t.Fatalf("result = %+v, %v", res, err)
	}
	if got := methods(wire.Drain()); !slices.Contains(got, "send tools/call") || !slices.Contains(got, "recv tools/call") || got[0] != "send initialize" {
		t.Errorf("frames = %v", got)
	}
}

// pythonServer attaches testdata/notes_server.py, a server written by hand
// in Python, run by the system's python3 (the one the sandbox's PATH finds).
func pythonServer(t *testing.T, timeout time.Duration) (*Server, *tools.WireLog) {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "notes_server.py"))
	spec, err := ParseSpec("notes=python3 " + script)
	if err != nil {
		t.Fatal(err)
	}
	wire := &tools.WireLog{}
	s, err := Attach(context.Background(), spec, wire, Options{Dir: t.TempDir(), Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, wire
}

func TestStdioServerInPython(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "AIza-secret-for-the-test")
	t.Setenv("GLASSBOX_PLAIN_VARIABLE", "x")
	s, wire := pythonServer(t, 2*time.Second)
	if got := methods(wire.Drain()); len(got) < 5 || got[0] != "send initialize" {
		t.Fatalf("handshake = %v", got)
	}
	res, err := toolNamed(t, s, "notes__echo").Run(context.Background(), json.RawMessage(`{"text":"こんにちは"}`))
	if err != nil || res.IsError || res.Content != "echo: こんにちは" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	res, _ = toolNamed(t, s, "notes__env").Run(context.Background(), nil)
	for _, name := range []string{"GEMINI_API_KEY", "GLASSBOX_PLAIN_VARIABLE"} {
		if strings.Contains(res.Content, name) {
			t.Errorf("the server's environment holds %s: %s", name, res.Content)
		}
	}
	if !strings.Contains(res.Content, "PATH") {
		t.Errorf("the server's environment lacks PATH: %s", res.Content)
	}
	res, _ = toolNamed(t, s, "notes__fail").Run(context.Background(), nil)
	if !res.IsError || res.Content != "the notes are locked" {
		t.Errorf("fail = %+v", res)
	}
}

// TestBrokenStdioServers: a server that answers garbage, hangs or crashes
// is a failed result for the model, never a crash, and a call after the
// crash fails the same way.
func TestBrokenStdioServers(t *testing.T) {
	for _, tc := range []struct{ tool, want string }{
		{"garbage", "the MCP server notes failed"},
		{"hang", "no answer within 1s"},
		{"crash", "notes server: crashing on purpose"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			s, _ := pythonServer(t, time.Second)
			res, err := toolNamed(t, s, "notes__"+tc.tool).Run(context.Background(), nil)
			if err != nil || !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("result = %+v, %v; want a failed result saying %q", res, err, tc.want)
			}
			if tc.tool == "hang" {
				return // the server still runs; the next call would wait again
			}
			res, err = toolNamed(t, s, "notes__echo").Run(context.Background(), json.RawMessage(`{"text":"again"}`))
			if err != nil || !res.IsError {
				t.Errorf("a call after the failure = %+v, %v; want a failed result", res, err)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	good := []struct {
		in   string
		want Spec
	}{
		{"notes=python3 server.py --root 'my docs'", Spec{Name: "notes", Command: []string{"python3", "server.py", "--root", "my docs"}}},
		{"web=http://127.0.0.1:8080/mcp", Spec{Name: "web", URL: "http://127.0.0.1:8080/mcp"}},
	}
	for _, tc := range good {
		got, err := ParseSpec(tc.in)
		if err != nil || got.Name != tc.want.Name || got.URL != tc.want.URL || !slices.Equal(got.Command, tc.want.Command) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"notes", "=python3 x", "no__pe=x", "9lives=x", "notes=", "notes=echo $HOME", "notes=echo 'unclosed"} {
		if _, err := ParseSpec(in); err == nil || !strings.Contains(err.Error(), "--mcp") {
			t.Errorf("ParseSpec(%q) = %v, want a usage error", in, err)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestReplayAnswersFromTheRecording: a server replayed from its frames
// lists the same tools and answers a recorded call as it did; a call the
// recording does not hold is a failed result saying so.
func TestReplayAnswersFromTheRecording(t *testing.T) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := sdkServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	wire := &tools.WireLog{}
	wire.Keep()
	s, err := AttachTransport(context.Background(), "demo", ct, wire, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := toolNamed(t, s, "demo__echo").Run(context.Background(), json.RawMessage(`{"text":"once"}`)); err != nil || res.Content != "echo: once" {
		t.Fatalf("recorded call = %+v, %v", res, err)
	}
	s.Close()
	ss.Close()
	path := filepath.Join(t.TempDir(), "c.mcp.jsonl")
	if err := WriteRecording(path, wire.Kept()); err != nil {
		t.Fatal(err)
	}
	frames, err := LoadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	replayWire := &tools.WireLog{}
	servers, err := ReplayServers(context.Background(), frames, replayWire, Options{})
	if err != nil || len(servers) != 1 || len(servers[0].Tools()) != 4 {
		t.Fatalf("replayed servers = %v, %v", servers, err)
	}
	t.Cleanup(func() { servers[0].Close() })
	echo := toolNamed(t, servers[0], "demo__echo")
	if res, err := echo.Run(context.Background(), json.RawMessage(`{"text":"other"}`)); err != nil || !res.IsError || !strings.Contains(res.Content, "differs from the recording's") {
		t.Fatalf("a call with other arguments = %+v, %v; want a failed result naming the difference", res, err)
	}
	if res, err := echo.Run(context.Background(), json.RawMessage(`{"text":"once"}`)); err != nil || res.IsError || res.Content != "echo: once" {
		t.Fatalf("replayed call = %+v, %v", res, err)
	}
	res, err := echo.Run(context.Background(), json.RawMessage(`{"text":"once"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "the MCP recording has no further tools/call request to replay") {
		t.Fatalf("a call past the recording = %+v, %v", res, err)
	}
	if _, err := LoadRecording(filepath.Join(t.TempDir(), "none")); err != nil {
		t.Errorf("a missing recording: %v, want none", err)
	}
}

// TestHostileServers: a tool name no model accepts refuses the server with
// the reason; a huge result is cut, saying so; bidirectional controls in a
// result are shown escaped.
func TestHostileServers(t *testing.T) {
	attach := func(t *testing.T, srv *mcp.Server) (*Server, error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return AttachTransport(context.Background(), "evil", ct, &tools.WireLog{}, Options{})
	}
	empty := json.RawMessage(`{"type":"object"}`)
	t.Run("a flood and a bidi trick", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "evil", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "\u202e" + strings.Repeat("x", 1<<20)}}}, nil
		})
		s, err := attach(t, srv)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		res, err := toolNamed(t, s, "evil__flood").Run(context.Background(), nil)
		if err != nil || len(res.Content) > maxResultBytes+200 || !strings.Contains(res.Content, "[… cut: the server's result is 1048579 bytes") {
			t.Fatalf("result of %d bytes, %v: %.80q…", len(res.Content), err, res.Content)
		}
		if strings.ContainsRune(res.Content, '\u202e') || !strings.HasPrefix(res.Content, `\u202e`) {
			t.Errorf("the bidi control is not escaped: %.20q", res.Content)
		}
	})
}

// Issue 29: a real server's tools are all offered, whatever their names
// ("elicit (form)" made `--mcp ev=./everything` exit 2): each under a
// valid name, made from the server's and told apart by a hash of it when
// two would meet, the same whatever order the server lists them in; the
// description and the approval's preview say the server's own name, and
// that name is what goes on the wire.
func TestEveryToolIsOfferedUnderAValidName(t *testing.T) {
	remote := []string{"echo", "elicit (form)", "elicit_form", "elicit form!", "検索", strings.Repeat("long", 20), "a b", "a(b", "x__y"}
	want := map[string]string{
		"echo":                     "ev__echo",
		"elicit (form)":            "ev__elicit_form_96f15fb7",
		"elicit_form":              "ev__elicit_form",
		"elicit form!":             "ev__elicit_form_8de24a21",
		"検索":                       "ev__tool_1b6b1a6f",
		strings.Repeat("long", 20): "ev__" + strings.Repeat("long", 12) + "lon_5aa1dce7",
		"a b":                      "ev__a_b_c8687a08",
		"a(b":                      "ev__a_b_38d5ec2d",
		"x__y":                     "ev__x__y",
	}
	for _, order := range [][]string{remote, reversed(remote)} {
		got := offeredNames("ev", order)
		for r, w := range want {
			if got[r] != w {
				t.Errorf("%q is offered as %q, want %q", r, got[r], w)
			}
			if !toolNamePattern.MatchString(got[r]) {
				t.Errorf("%q is not a valid name", got[r])
			}
		}
	}

	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	for _, name := range []string{"elicit (form)", "elicit_form"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Ask for a form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called as " + r.Params.Name}}}, nil
			})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	wire := &tools.WireLog{}
	s, err := AttachTransport(context.Background(), "ev", ct, wire, Options{})
	if err != nil {
		t.Fatalf("a server with a tool named \"elicit (form)\" was refused: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if got := s.Renamed(); len(got) != 1 || got[0] != (Rename{Offered: "ev__elicit_form_96f15fb7", Remote: "elicit (form)"}) {
		t.Errorf("Renamed() = %v", got)
	}
	mapped := toolNamed(t, s, "ev__elicit_form_96f15fb7")
	if d := mapped.Spec().Description; d != `(The MCP server ev names this tool "elicit (form)".) Ask for a form.` {
		t.Errorf("description %q", d)
	}
	if p := mapped.(tools.Previewer).Preview(nil); p != `calls the tool "elicit (form)" of the MCP server ev (offered to the model as ev__elicit_form_96f15fb7)` {
		t.Errorf("preview %q", p)
	}
	if p := toolNamed(t, s, "ev__elicit_form").(tools.Previewer).Preview(nil); p != "" {
		t.Errorf("a tool under its own name previews %q", p)
	}
	res, err := mapped.Run(context.Background(), nil)
	if err != nil || res.Content != "called as elicit (form)" {
		t.Fatalf("%+v %v", res, err)
	}
	frames := wire.Drain()
	if last := frames[len(frames)-2]; last.Method != "tools/call" || !strings.Contains(string(last.Body), `"name":"elicit (form)"`) {
		t.Errorf("the call went on the wire as %s", last.Body)
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
