package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// moduleDir is where the tests started and tempDir the temporary folder
// then (isolate moves both elsewhere for a test's time).
var (
	moduleDir, _ = os.Getwd()
	tempDir      = os.TempDir()
)

// removeBusBinary removes the built binary once every test is done.
func removeBusBinary() {
	if busBinary.path != "" {
		os.RemoveAll(filepath.Dir(busBinary.path))
	}
}

// busBinary is the built glassbox, shared by the bus tests.
var busBinary struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

func builtGlassbox(t *testing.T) string {
	t.Helper()
	busBinary.once.Do(func() {
		dir, err := os.MkdirTemp(tempDir, "glassbox-bus-bin")
		if err != nil {
			busBinary.err = err
			return
		}
		busBinary.path = filepath.Join(dir, "glassbox")
		build := exec.Command("go", "build", "-o", busBinary.path, ".")
		build.Dir = moduleDir
		busBinary.out, busBinary.err = build.CombinedOutput()
	})
	if busBinary.err != nil {
		t.Fatalf("go build: %v\n%s", busBinary.err, busBinary.out)
	}
	return busBinary.path
}

// serveCmd is `glassbox mcp-serve ARGS` in a session of its own: no
// controlling terminal, so confirmations go to the client (elicitation).
func serveCmd(t *testing.T, stderr *syncBuffer, args ...string) *exec.Cmd {
	cmd := exec.Command(builtGlassbox(t), append([]string{"mcp-serve"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = stderr
	return cmd
}

// connect is an SDK client on t; elicit, when set, answers glassbox's
// confirmations.
func connect(t *testing.T, tr mcp.Transport, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "probe", Version: "1.0"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func ask(t *testing.T, cs *mcp.ClientSession, request string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_agent", Arguments: map[string]any{"request": request}})
	if err != nil {
		t.Fatalf("tools/call ask_agent: %v", err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// readTrace parses a JSONL trace file.
func readTrace(t *testing.T, path string) []traceLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []traceLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line is not JSON: %v\n%s", err, sc.Text())
		}
		lines = append(lines, l)
	}
	return lines
}

// busEvent is a trace record's event, as the bus fills it.
type busEvent struct {
	Event *struct {
		Source string `json:"source"`
		Type   string `json:"type"`
		Data   string `json:"data"`
		From   string `json:"from"`
	} `json:"event"`
}

func traceEvents(t *testing.T, path string) []busEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []busEvent
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e busEvent
		if json.Unmarshal([]byte(line), &e) == nil && e.Event != nil {
			out = append(out, e)
		}
	}
	return out
}

// TestMCPServeAnswersTheCaller: an SDK client starts the built `glassbox
// mcp-serve` (CommandTransport), calls ask_agent and gets the run's final
// answer as its result. The request is an mcp_bus/mcp_message event from
// that client in the JSONL trace, and the bus's tools/call frames are in
// the steps that took and answered it.
func TestMCPServeAnswersTheCaller(t *testing.T) {
	isolate(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	sessionFile := filepath.Join(t.TempDir(), "s.jsonl")
	var stderr syncBuffer
	cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "tour", "--trace", trace, "--session", sessionFile)}, nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "ask_agent" {
		t.Fatalf("tools/list = %+v, %v; want ask_agent alone", tools, err)
	}
	res := ask(t, cs, "give me a tour of this project")
	if res.IsError || !strings.Contains(resultText(res), "hello.py") {
		t.Fatalf("result = %+v %q, want the tour's answer", res.IsError, resultText(res))
	}
	cs.Close()

	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "session") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the child writes its last line as it exits
	}
	lines := readTrace(t, trace)
	evs := traceEvents(t, trace)
	if len(evs) != 1 || evs[0].Event.Source != "mcp_bus" || evs[0].Event.Type != "mcp_message" ||
		evs[0].Event.Data != "give me a tour of this project" || evs[0].Event.From != "probe 1.0 on the MCP bus" {
		t.Fatalf("events in the trace = %+v, want one mcp_bus/mcp_message from probe 1.0", evs)
	}
	var first, delivered *traceLine
	for i := range lines {
		switch lines[i].Edge {
		case "new_event":
			first = &lines[i]
		case "delivered":
			delivered = &lines[i]
		}
	}
	if first == nil || delivered == nil {
		t.Fatalf("edges = %v, want new_event … delivered", edges(lines))
	}
	if got := strings.Join(frameMethods(*first), ", "); !strings.Contains(got, "recv tools/call") {
		t.Errorf("new_event frames = %s, want the bus's tools/call request", got)
	}
	if got := strings.Join(frameMethods(*delivered), ", "); got != "send tools/call" {
		t.Errorf("delivered frames = %s, want the answer's frame alone", got)
	}
	if delivered.MCP[0].Server != "bus" {
		t.Errorf("frame server = %q, want bus", delivered.MCP[0].Server)
	}
	// The session keeps the event and the bus's frames, as the trace does.
	sess, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"source":"mcp_bus"`, `"from":"probe 1.0 on the MCP bus"`, `"server":"bus"`} {
		if !bytes.Contains(sess, []byte(want)) {
			t.Errorf("the session file lacks %s", want)
		}
	}
	if !strings.Contains(stderr.String(), "[EVENT]") || !strings.Contains(stderr.String(), "from probe 1.0 on the MCP bus") {
		t.Errorf("the human trace on stderr does not show the bus event:\n%s", stderr.String())
	}
}

// TestMCPServeDenialAndHaltAreErrorResults: the person (here the client's,
// through elicitation: the server has no terminal) denies the write, and
// the caller gets an error result that says so; a run halted by the
// iteration limit answers with an error result too; a client that cannot
// elicit has its call refused because nobody could be asked.
func TestMCPServeDenialAndHaltAreErrorResults(t *testing.T) {
	isolate(t)
	var asked []string
	var mu sync.Mutex
	decline := func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, r.Params.Message)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, nil
	}
	t.Run("denied", func(t *testing.T) {
		var stderr syncBuffer
		cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "write-file")}, decline)
		res := ask(t, cs, "write farewell.py")
		if !res.IsError || !strings.Contains(resultText(res), "The person denied this call") {
			t.Fatalf("result = %v %q, want an error result naming the denial", res.IsError, resultText(res))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 1 || !strings.Contains(asked[0], "write_file") {
			t.Errorf("elicitations = %q, want one asking about write_file", asked)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		var stderr syncBuffer
		allow := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
		}
		cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "write-file")}, allow)
		if res := ask(t, cs, "write farewell.py"); res.IsError {
			t.Fatalf("result is an error: %q", resultText(res))
		}
	})
	t.Run("no person", func(t *testing.T) {
		var stderr syncBuffer
		cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "write-file")}, nil)
		res := ask(t, cs, "write farewell.py")
		if !res.IsError || !strings.Contains(resultText(res), "no person could be asked") {
			t.Fatalf("result = %v %q, want an error result saying no person could be asked", res.IsError, resultText(res))
		}
	})
	t.Run("policy", func(t *testing.T) {
		// A caller's request goes through the same security layer: the
		// rule's denial reaches the caller, named.
		var stderr syncBuffer
		cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "path-escape")}, decline)
		lesson, _ := lessons.ByName("path-escape")
		res := ask(t, cs, lesson.Request)
		if !res.IsError || !strings.Contains(resultText(res), "rule path-outside-workspace") {
			t.Fatalf("result = %v %q, want an error result naming the rule", res.IsError, resultText(res))
		}
	})
	t.Run("halted", func(t *testing.T) {
		var stderr syncBuffer
		cs := connect(t, &mcp.CommandTransport{Command: serveCmd(t, &stderr, "--offline", "--lesson", "iteration-limit", "--max-iterations", "2")}, nil)
		lesson, _ := lessons.ByName("iteration-limit")
		res := ask(t, cs, lesson.Request)
		if !res.IsError || !strings.Contains(resultText(res), "halted") || !strings.Contains(resultText(res), "iteration") {
			t.Fatalf("result = %v %q, want an error result naming the iteration limit", res.IsError, resultText(res))
		}
	})
}

// TestMCPListenOverHTTP: `glassbox run --mcp-listen 127.0.0.1:0` serves the
// bus over streamable HTTP; the SDK's streamable client asks it with the
// token glassbox printed, gets the answer, and the event and the bus
// frames are in the --trace file; without the token, or from a web page
// of another origin, a request is refused and leaves no frame. Ctrl-C
// (SIGINT) ends it.
func TestMCPListenOverHTTP(t *testing.T) {
	isolate(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	var stderr syncBuffer
	cmd := exec.Command(builtGlassbox(t), "run", "--offline", "--json", "--trace", trace, "--mcp-listen", "127.0.0.1:0")
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	endpoint := waitForEndpoint(t, &stderr)
	refusedWithoutTheToken(t, endpoint)
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	lesson, _ := lessons.ByName("tour")
	res := ask(t, cs, lesson.Request)
	if res.IsError || !strings.Contains(resultText(res), "def greet(name)") {
		t.Fatalf("result = %v %q, want the tour's answer", res.IsError, resultText(res))
	}
	cs.Close()
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("glassbox run --mcp-listen ended with %v:\n%s", err, stderr.String())
	}
	evs := traceEvents(t, trace)
	if len(evs) != 1 || evs[0].Event.Source != "mcp_bus" || evs[0].Event.From != "probe 1.0 on the MCP bus" {
		t.Fatalf("events = %+v, want one from the bus", evs)
	}
	lines := readTrace(t, trace)
	last := lines[len(lines)-1]
	if last.Edge != "delivered" || strings.Join(frameMethods(last), ",") != "send tools/call" {
		t.Errorf("last record %s with frames %v, want delivered with the answer's frame", last.Edge, frameMethods(last))
	}
}

// waitForEndpoint reads the address glassbox says it listens on, with
// the token it printed as the address's password.
func waitForEndpoint(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s := stderr.String()
		if i := strings.Index(s, "http://glassbox:"); i >= 0 {
			if j := strings.Index(s[i:], "/mcp"); j > 0 {
				return s[i : i+j+len("/mcp")]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("glassbox never said where it listens:\n%s", stderr.String())
	return ""
}

// refusedWithoutTheToken posts an initialize to the bus at endpoint
// (which carries the token) without the token, with a wrong one, and with
// the token from a web page of another origin: each is refused.
func refusedWithoutTheToken(t *testing.T, endpoint string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := u.User.Password()
	u.User = nil
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tt := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("A", len(token))}, http.StatusUnauthorized},
		{"another origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"a cross-site fetch", map[string]string{"Authorization": "Bearer " + token, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, res.StatusCode, tt.want)
		}
	}
}

// TestMCPListenRefusesAPublicAddress: an address that is not a loopback one
// is refused before anything opens, unless --mcp-listen-public says so.
func TestMCPListenRefusesAPublicAddress(t *testing.T) {
	isolate(t)
	for _, addr := range []string{"0.0.0.0:7777", ":7777", "192.0.2.1:7777", "[::]:7777", "example.com:7777"} {
		code, _, stderr := runJSON(t, "", "--offline", "--mcp-listen", addr, "hi")
		if code != exitUsage || !strings.Contains(stderr, "is not a loopback address") || !strings.Contains(stderr, "--mcp-listen-public") {
			t.Errorf("--mcp-listen %s: exit %d, stderr %q; want a usage error naming the flag", addr, code, stderr)
		}
	}
	for _, args := range [][]string{{"--mcp-listen", "7777"}, {"--mcp-listen-public"}, {"--mcp-listen", "127.0.0.1:0", "--compare"}} {
		if code, _, stderr := runJSON(t, "", append(append([]string{"--offline"}, args...), "hi")...); code != exitUsage {
			t.Errorf("%v: exit %d (%s), want a usage error", args, code, stderr)
		}
	}
}

// TestTwoGlassBoxesTalk: one glass box attaches another's `mcp-serve` with
// --mcp; on the mcp-bus lesson its model asks the other through ask_agent
// and quotes the other's answer. The other box's trace shows the request
// arriving from the first.
func TestTwoGlassBoxesTalk(t *testing.T) {
	isolate(t)
	bin := builtGlassbox(t)
	// The other box is a stdio server, so it runs under the first one's
	// sandbox: the workspace is the one folder outside its own it may write.
	ws := t.TempDir()
	otherTrace := filepath.Join(ws, "other.jsonl")
	var stderr syncBuffer
	cmd := exec.Command(bin, "run", "--offline", "--json", "--yes", "--lesson", "mcp-bus", "--workspace", ws,
		"--mcp", "other="+bin+" mcp-serve --offline --trace "+otherTrace)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("glassbox run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), "The other glass box (other) answered") || !strings.Contains(string(out), "def greet(name)") {
		t.Fatalf("the first box did not quote the other's tour:\n%s", out)
	}
	evs := traceEvents(t, otherTrace)
	if len(evs) != 1 || evs[0].Event.Source != "mcp_bus" || evs[0].Event.From != "glassbox 1 on the MCP bus" {
		t.Fatalf("the other box's events = %+v, want one from glassbox", evs)
	}

	// The same over HTTP: the other box is `glassbox run --mcp-listen`.
	var listenErr syncBuffer
	listener := exec.Command(bin, "run", "--offline", "--json", "--mcp-listen", "127.0.0.1:0")
	listener.Stderr, listener.Stdin = &listenErr, strings.NewReader("")
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	defer listener.Process.Kill()
	endpoint := waitForEndpoint(t, &listenErr)
	var firstErr syncBuffer
	first := exec.Command(bin, "run", "--offline", "--json", "--yes", "--lesson", "mcp-bus", "--mcp", "other="+endpoint)
	first.Stderr = &firstErr
	out, err = first.Output()
	if err != nil || !strings.Contains(string(out), "The other glass box (other) answered") || !strings.Contains(string(out), "def greet(name)") {
		t.Fatalf("over HTTP: %v\n%s\n%s", err, out, firstErr.String())
	}
	listener.Process.Signal(syscall.SIGINT)
	if err := listener.Wait(); err != nil {
		t.Fatalf("the listening box ended with %v:\n%s", err, listenErr.String())
	}
}

// TestMCPListenStopsCleanlyWhenIdle: Ctrl-C while `run --mcp-listen` waits
// for requests ends it with exit code 0 and no interrupted record: no work
// was cut short.
func TestMCPListenStopsCleanlyWhenIdle(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := runHeadless(ctx, []string{"--offline", "--json", "--mcp-listen", "127.0.0.1:0"}, noSleep, strings.NewReader(""), &out, &errb)
	if code != exitOK || strings.Contains(out.String(), "interrupted") || strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
