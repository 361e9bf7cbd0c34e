package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

// tapCommand is `glassbox tap ARGS` running in the background.
type tapCommand struct {
	out, errs *syncBuffer
	url       string
	stop      context.CancelFunc
	code      chan int
}

// startTapCommand runs glassbox tap with args (and a loopback port the
// system picks) and waits for the address it prints.
func startTapCommand(t *testing.T, args ...string) *tapCommand {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &tapCommand{out: &syncBuffer{}, errs: &syncBuffer{}, stop: cancel, code: make(chan int, 1)}
	go func() {
		c.code <- realMain(ctx, append([]string{"tap", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), c.out, c.errs)
	}()
	addr := regexp.MustCompile(`GOOGLE_GEMINI_BASE_URL=(http://\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := addr.FindStringSubmatch(c.errs.String()); m != nil {
			c.url = m[1]
			return c
		}
		select {
		case code := <-c.code:
			t.Fatalf("glassbox tap ended with %d: %s", code, c.errs.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("glassbox tap printed no address: %s", c.errs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// end stops the tap (as Ctrl-C does) and returns its exit code.
func (c *tapCommand) end() int {
	c.stop()
	return <-c.code
}

const tapBody = `{"contents":[{"role":"user","parts":[{"text":"list the files"}]}],"tools":[{"functionDeclarations":[{"name":"list_directory","parameters":{"type":"object","properties":{"dir_path":{"type":"string"}},"required":["dir_path"]}}]}]}`

// agentCalls posts the tapBody conversation to the tap, as an agent would:
// the question, then the listing it ran.
func agentCalls(t *testing.T, url, key string) {
	t.Helper()
	next := strings.Replace(tapBody, `]}],"tools"`, `]},{"role":"model","parts":[{"functionCall":{"name":"list_directory","args":{"dir_path":"."}}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"list_directory","response":{"output":"hello.py"}}}]}],"tools"`, 1)
	for _, body := range []string{tapBody, next} {
		req, _ := http.NewRequest("POST", url+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
		req.Header.Set("X-Goog-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// edgesOf are the edges of JSON trace lines, inferred ones marked.
func edgesOf(t *testing.T, trace string) (edges []string, last int) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		var l struct {
			Seq      int    `json:"seq"`
			Edge     string `json:"edge"`
			Inferred string `json:"inferred"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a trace line: %s", sc.Text())
		}
		if l.Inferred != "" {
			l.Edge += "*"
		}
		edges, last = append(edges, l.Edge), l.Seq
	}
	return edges, last
}

// glassbox tap --json: the agent's calls as run --json's trace on
// standard output, the key masked everywhere, a cassette that glassbox
// --replay reads as a tap's, a session that goes on with --resume (new
// steps numbered after the old), that export makes a page of, and that
// glassbox --resume refuses.
func TestTapCommandHeadless(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cassette, sess := filepath.Join(dir, "tap.cassette"), filepath.Join(dir, "tap.jsonl")
	const key = "AIzaSyTapCommandKey0123456789abcdefghi"
	c := startTapCommand(t, "--json", "--upstream", "offline", "--record", cassette, "--session", sess)
	agentCalls(t, c.url, key)
	want := "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"
	deadline := time.Now().Add(10 * time.Second)
	for {
		if edges, _ := edgesOf(t, c.out.String()); strings.Join(edges, " ") == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s", c.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code := c.end(); code != exitOK {
		t.Fatalf("exit %d: %s", code, c.errs.String())
	}
	for _, s := range []string{c.out.String(), c.errs.String(), readFile(t, cassette), readFile(t, sess)} {
		if strings.Contains(s, key) {
			t.Fatal("the agent's key is in what glassbox tap wrote")
		}
	}
	if !strings.Contains(c.errs.String(), "cassette written to "+cassette) || !strings.Contains(c.errs.String(), "session saved: "+sess) {
		t.Fatalf("stderr %s", c.errs.String())
	}
	cas, err := providers.LoadCassette(cassette)
	if err != nil || cas.Header.Provider != "tap" || len(cas.Exchanges) != 2 {
		t.Fatalf("cassette %+v, %v", cas, err)
	}

	// --resume: the past steps are read again; new ones follow them.
	c = startTapCommand(t, "--json", "--upstream", "offline", "--resume", sess)
	agentCalls(t, c.url, key)
	deadline = time.Now().Add(10 * time.Second)
	for {
		if edges, last := edgesOf(t, c.out.String()); len(edges) == 9 && last == 18 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resumed trace %s", c.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code := c.end(); code != exitOK {
		t.Fatalf("exit %d: %s", code, c.errs.String())
	}

	out, errs := runCLI(t, "export", sess)
	if !strings.Contains(out, "list_directory") || errs != "" {
		t.Fatalf("export: %s %s", out, errs)
	}
	var stdout, stderr bytes.Buffer
	if code := realMain(context.Background(), []string{"tap", "--resume", "nope-0000"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Fatalf("--resume of no session: exit %d", code)
	}
	stderr.Reset()
	if code := realMain(context.Background(), []string{"run", "--resume", sess}, strings.NewReader(""), &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "is the session of a tap") || !strings.Contains(stderr.String(), "glassbox tap --resume") {
		t.Fatalf("glassbox run --resume of a tap's session: exit %d, %s", code, stderr.String())
	}
}

// Mistakes in how glassbox tap is started are usage errors (exit 2) that
// say what to do; -h lists every flag.
func TestTapCommandUsage(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tap", "--listen", "0.0.0.0:8080"}, "is not a loopback address"},
		{[]string{"tap", "--listen", "nowhere"}, "want HOST:PORT"},
		{[]string{"tap", "--session", "a.jsonl", "--resume", "b"}, "name the session twice"},
		{[]string{"tap", "--json", "--broadcast", "127.0.0.1:2222"}, "does not go with --json"},
		{[]string{"tap", "please"}, "takes flags only"},
		{[]string{"tap", "--upstream", "ftp://x"}, "--upstream ftp://x: want offline or a URL"},
		{[]string{"tap", "--break", "tool"}, `--break "tool", condition 1: "tool" has no operator`},
		{[]string{"tap", "--json", "--break", "tool=run_shell_command"}, "nothing is held, so a breakpoint would be silently ignored"},
		// standard output is not a terminal here: no glass box to step in
		{[]string{"tap", "--break", "tool=run_shell_command"}, "nothing is held, so a breakpoint would be silently ignored"},
	} {
		var out, errs bytes.Buffer
		if code := realMain(context.Background(), c.args, strings.NewReader(""), &out, &errs); code != exitUsage || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%q: exit %d, %s", c.args, code, errs.String())
		}
	}
	_, errs := runCLI(t, "tap", "-h")
	for _, f := range []string{"-listen", "-listen-public", "-upstream", "-json", "-record", "-session", "-resume", "-broadcast", "-otlp", "-break", "-lang"} {
		if !strings.Contains(errs, "  "+f) {
			t.Errorf("glassbox tap -h does not list %s", f)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// glassbox tap --otlp: the tapped agent's steps go to the collector as
// GenAI spans (its tool among them), and the tap says where and how many.
func TestTapCommandOTLP(t *testing.T) {
	isolate(t)
	var mu sync.Mutex
	var bodies []byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b...)
		mu.Unlock()
		w.WriteHeader(200)
	}))
	defer collector.Close()
	c := startTapCommand(t, "--json", "--upstream", "offline", "--otlp", collector.URL)
	agentCalls(t, c.url, "AIzaSyTapCommandKey0123456789abcdefghi")
	deadline := time.Now().Add(10 * time.Second)
	for edges, _ := edgesOf(t, c.out.String()); len(edges) < 9; edges, _ = edgesOf(t, c.out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("trace %s", c.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code := c.end(); code != exitOK {
		t.Fatalf("exit %d: %s", code, c.errs.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if !bytes.Contains(bodies, []byte("execute_tool list_directory")) {
		t.Fatalf("the collector got no span of the agent's tool (%d bytes)", len(bodies))
	}
	if !strings.Contains(c.errs.String(), "glassbox tap: OpenTelemetry: spans go to "+collector.URL+"/v1/traces (--otlp)") ||
		!regexp.MustCompile(`glassbox tap: OpenTelemetry: [1-9]\d* spans sent`).MatchString(c.errs.String()) {
		t.Fatalf("stderr %s", c.errs.String())
	}
}
