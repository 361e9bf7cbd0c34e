package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// callServer plays Gemini calling the tool name with args once, then
// answering in text; it keeps every request body.
func callServer(t *testing.T, name, args string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		first := len(bodies) == 1
		mu.Unlock()
		part := `{"text":"done"}`
		if first {
			part = fmt.Sprintf(`{"functionCall":{"name":%q,"args":%s}}`, name, args)
		}
		writeGeminiReply(w, r, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[%s]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}}`, part))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

// Issue 29: a server whose tools list a name no model accepts ("elicit
// (form)", as the MCP SDK's own example server does) is attached, not
// refused (exit 2 before): the tool is offered under a valid name, the
// header says so, the model's declaration carries the server's name for
// it, the call reaches the server by its own name, and a recording of
// the run replays.
func TestMCPToolWithAnInvalidNameIsOffered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	const offered = "ev__elicit_form_96f15fb7"
	srv, bodies := callServer(t, offered, `{}`)
	ws := t.TempDir()
	cassette := filepath.Join(t.TempDir(), "ev.cassette")
	cmd := exec.Command(bin, "run", "--live", "--yes", "--workspace", ws, "--record", cassette, "--mcp", "ev=python3 "+hostileScript(), "ask the form")
	cmd.Dir = ws
	cmd.Env = liveEnv(srv, t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, tail(out))
	}
	for _, want := range []string{
		`the MCP server ev names a tool "elicit (form)", which no model accepts as a name: it is offered as ` + offered + ` and called by its own name`,
		"called as: elicit (form)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, tail(out))
		}
	}
	first := bodies()[0]
	if !strings.Contains(first, `"name":"`+offered+`"`) || !strings.Contains(first, `The MCP server ev names this tool \"elicit (form)\".`) || !strings.Contains(first, `"name":"ev__elicit_form"`) {
		t.Errorf("the declarations the model got:\n%s", first)
	}
	replay := exec.Command(bin, "run", "--replay", cassette, "--yes", "--json", "--workspace", ws, "ask the form")
	replay.Dir = ws
	replay.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	rout, err := replay.CombinedOutput()
	if err != nil || !strings.Contains(string(rout), "called as: elicit (form)") || strings.Contains(string(rout), "divergences") {
		t.Errorf("the recording does not replay: %v\n%s", err, tail(rout))
	}
}
