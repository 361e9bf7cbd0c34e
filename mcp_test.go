package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// notesServer is the --mcp command of the stdio server written by hand in
// Python (tools/mcptool/testdata/notes_server.py), run by the python3 the
// sandbox's PATH finds among the system's programs (a version manager's
// interpreter outside them could not read its own library there).
func notesServer() string {
	_, file, _, _ := runtime.Caller(0)
	return "python3 " + filepath.Join(filepath.Dir(file), "tools", "mcptool", "testdata", "notes_server.py")
}

// runNotesLesson runs the mcp-tool lesson offline with the Python stdio
// server attached, approving its call, and returns the JSONL trace.
func runNotesLesson(t *testing.T, extra ...string) []traceLine {
	t.Helper()
	args := append([]string{"--offline", "--lesson", "mcp-tool", "--mcp", "notes=" + notesServer()}, extra...)
	code, lines, stderr := runJSON(t, "y\n", args...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	return lines
}

// frameMethods lists a record's MCP frames as "dir method".
func frameMethods(l traceLine) []string {
	var out []string
	for _, f := range l.MCP {
		out = append(out, f.Dir+" "+f.Method)
	}
	return out
}

// TestMCPStdioEndToEnd: `glassbox run --mcp notes=python3 …` on the
// mcp-tool lesson: the handshake's frames are in the first record, the
// tools/call request and answer in the step that ran the tool, in the JSON
// trace and in the session file; the human trace prints them.
func TestMCPStdioEndToEnd(t *testing.T) {
	isolate(t)
	sessionFile := filepath.Join(t.TempDir(), "s.jsonl")
	lines := runNotesLesson(t, "--session", sessionFile)
	first := strings.Join(frameMethods(lines[0]), ", ")
	if !strings.HasPrefix(first, "send initialize, recv initialize, send notifications/initialized, send tools/list, recv tools/list") {
		t.Errorf("first record's frames = %s, want the handshake", first)
	}
	var call *traceLine
	for i, l := range lines {
		if l.Edge == "tool_success" {
			call = &lines[i]
		}
	}
	if call == nil {
		t.Fatalf("no tool ran: %v", edges(lines))
	}
	if got := strings.Join(frameMethods(*call), ", "); got != "send tools/call, recv tools/call" {
		t.Fatalf("the tool step's frames = %s", got)
	}
	if !bytes.Contains(call.MCP[0].Body, []byte(`"name":"echo"`)) || !bytes.Contains(call.MCP[1].Body, []byte("echo: hello from the glass box")) {
		t.Errorf("frames = %s / %s", call.MCP[0].Body, call.MCP[1].Body)
	}
	data, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"method":"tools/call"`)) || !bytes.Contains(data, []byte(`"method":"initialize"`)) {
		t.Error("the session file does not keep the MCP frames")
	}

	var out, errb bytes.Buffer
	code := runHeadless(context.Background(), []string{"--offline", "--lesson", "mcp-tool", "--mcp", "notes=" + notesServer()}, noSleep, strings.NewReader("y\n"), &out, &errb)
	if code != exitOK || !strings.Contains(out.String(), "[MCP]     notes → tools/call") || !strings.Contains(out.String(), "[MCP]     notes ← tools/call") {
		t.Errorf("exit %d; the human trace does not show the frames:\n%s\n%s", code, out.String(), errb.String())
	}
}

// TestMCPStreamableHTTPEndToEnd: a server on streamable HTTP (the SDK's,
// on loopback) through `glassbox run --mcp web=URL`; its isError result
// goes back to the model as a failed tool call.
func TestMCPStreamableHTTPEndToEnd(t *testing.T) {
	isolate(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := &mcp.CallToolResult{}
			res.SetError(errors.New("the web server is read-only today"))
			return res, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			args := append([]string{"--offline", "--lesson", "mcp-tool", "--mcp", "web=" + hs.URL}, d.args...)
			code, lines, stderr := runJSON(t, "y\n", args...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			want := "new_event context_ready tool_call confirm_required user_approval tool_failure observed context_ready final_answer delivered"
			if got := strings.Join(edges(lines), " "); got != want {
				t.Fatalf("edges %s\nwant %s", got, want)
			}
			if out := lines[len(lines)-1].Output.Text; !strings.Contains(out, "the web server is read-only today") {
				t.Errorf("answer = %q", out)
			}
		})
	}
}

func TestMCPUsageErrors(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mcp", "notes"}, "want NAME=COMMAND, NAME=URL or demo"},
		{[]string{"--mcp", "a=x", "--mcp", "a=y"}, `two servers are named "a"`},
		{[]string{"--mcp", "gone=/nonexistent/mcp-server"}, "--mcp gone: MCP server gone: not started: cannot run /nonexistent/mcp-server: no such file or directory"},
		{[]string{"--mcp", "gone=no-such-mcp-server"}, `--mcp gone: MCP server gone: not started: no program "no-such-mcp-server" in the sandbox's PATH`},
	} {
		code, _, stderr := runJSON(t, "", append([]string{"--offline"}, append(tc.args, "hi")...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

// TestMCPRecordAndReplay: --record keeps the MCP frames beside the
// cassette; --replay of it runs the same lesson with neither the model
// nor the MCP server, the server's answers coming from the recording.
func TestMCPRecordAndReplay(t *testing.T) {
	isolate(t)
	cassette := filepath.Join(t.TempDir(), "mcp.cassette")
	recorded := runNotesLesson(t, "--record", cassette)
	if _, err := os.Stat(cassette + ".mcp.jsonl"); err != nil {
		t.Fatalf("no MCP recording beside the cassette: %v", err)
	}
	code, replayed, stderr := runJSON(t, "y\n", "--replay", cassette, "--lesson", "mcp-tool")
	if code != exitOK {
		t.Fatalf("replay: exit %d; stderr:\n%s", code, stderr)
	}
	if got, want := strings.Join(edges(replayed), " "), strings.Join(edges(recorded), " "); got != want {
		t.Fatalf("replayed edges %s\nrecorded %s", got, want)
	}
	last := replayed[len(replayed)-1]
	if !strings.Contains(last.Output.Text, "echo: hello from the glass box") {
		t.Errorf("replayed answer = %q", last.Output.Text)
	}
	for _, l := range replayed {
		if l.LLM != nil && len(l.LLM.Divergences) > 0 {
			t.Errorf("the replay diverged: %v", l.LLM.Divergences)
		}
		if l.Edge == "tool_success" && strings.Join(frameMethods(l), ", ") != "send tools/call, recv tools/call" {
			t.Errorf("replayed tool step frames = %v", frameMethods(l))
		}
	}
}

// TestMCPSchemaOllamaNativeCannotCarry: with Ollama's native tools, a
// server's schema the tool type cannot hold stops the run at start with
// what would be lost; JSON mode takes the same server.
func TestMCPSchemaOllamaNativeCannotCarry(t *testing.T) {
	isolate(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "strict", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":2}}}`)},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	code, _, stderr := runJSON(t, "", "--offline", "--provider", "llama", "--tool-mode", "native", "--mcp", "strict="+hs.URL, "hi")
	if code != exitUsage || !strings.Contains(stderr, "tool strict__search cannot be described to Ollama") || !strings.Contains(stderr, "/properties/q/minLength") {
		t.Errorf("native: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runJSON(t, "", "--offline", "--provider", "llama", "--tool-mode", "json", "--mcp", "strict="+hs.URL, "hi"); code != exitOK {
		t.Errorf("json mode: exit %d, stderr %q", code, stderr)
	}
}

// TestMCPResumeTakesTheFlagAgain: a session never starts a server by
// itself (a session file is untrusted); resumed with the same --mcp, the
// server's tool is there again and the next request uses it.
func TestMCPResumeTakesTheFlagAgain(t *testing.T) {
	isolate(t)
	sessionFile := filepath.Join(t.TempDir(), "s.jsonl")
	runNotesLesson(t, "--session", sessionFile)
	code, lines, stderr := runJSON(t, "y\n", "--resume", sessionFile, "--mcp", "notes="+notesServer(), "mcp-tool")
	if code != exitOK {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
	}
	var ran bool
	for _, l := range lines {
		if l.Edge == "tool_success" && strings.Join(frameMethods(l), ", ") == "send tools/call, recv tools/call" {
			ran = true
		}
	}
	if !ran {
		t.Fatalf("the resumed run did not call the server: %v", edges(lines))
	}
	// Without --mcp, not even the demo server the lesson gets when a person
	// starts it: the session's lesson starts nothing.
	code, lines, stderr = runJSON(t, "", "--resume", sessionFile, "mcp-tool")
	if code != exitOK {
		t.Fatalf("resume without --mcp: exit %d; stderr:\n%s", code, stderr)
	}
	for _, l := range lines {
		if len(l.MCP) > 0 {
			t.Fatalf("resumed without --mcp, a server was attached: %v", frameMethods(l))
		}
	}
	if last := lines[len(lines)-1]; last.Output == nil || strings.Contains(last.Output.Text, "demo__") {
		t.Fatalf("resumed without --mcp: %+v", last.Output)
	}
}

// TestMCPCompareModeStartsAServerPerRun: in compare mode each run has its
// own copy of the server — a stdio server named with --mcp, or the demo
// server the lesson attaches without one — and each run's tool step
// carries its own frames.
func TestMCPCompareModeStartsAServerPerRun(t *testing.T) {
	for name, extra := range map[string][]string{"notes": {"--mcp", "notes=" + notesServer()}, "demo": nil} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			code, lines, stderr := runJSON(t, "y\ny\n", append([]string{"--compare", "--offline", "--lesson", "mcp-tool"}, extra...)...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			ran := map[string]bool{}
			for _, l := range lines {
				if l.Edge == "tool_success" && strings.Join(frameMethods(l), ", ") == "send tools/call, recv tools/call" {
					ran[l.Run] = true
				}
			}
			if !ran["gemini"] || !ran["llama"] {
				t.Fatalf("runs that called the server: %v", ran)
			}
		})
	}
}

// TestMCPDemoSubcommand: `glassbox mcp-demo` speaks MCP on its standard
// input and output (what --mcp demo starts under the sandbox), and refuses
// arguments with a clear message.
func TestMCPDemoSubcommand(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"divide","arguments":{"a":1,"b":0}}}`,
	}, "\n") + "\n"
	// Its input stays open until the answer has come, as a client keeps it.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- realMain(context.Background(), []string{"mcp-demo"}, inR, outW, &errb)
		outW.Close()
	}()
	go io.WriteString(inW, in)
	var out strings.Builder
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `"id":2`) {
			inW.Close()
		}
	}
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"name":"glassbox-demo"`) || !strings.Contains(out.String(), `"isError":true`) || !strings.Contains(out.String(), "cannot divide 1 by zero") {
		t.Errorf("the demo server answered:\n%s", out.String())
	}
	errb.Reset()
	if code := realMain(context.Background(), []string{"mcp-demo", "extra"}, strings.NewReader(""), io.Discard, &errb); code != exitUsage ||
		!strings.Contains(errb.String(), "glassbox mcp-demo takes no arguments") {
		t.Errorf("mcp-demo extra: exit %d, stderr %q", code, errb.String())
	}
}
