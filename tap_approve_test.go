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
	"strings"
	"sync"
	"testing"
)

// Issue 28 (through tap): NeedsPerson under --yes-style settings. A tap
// has no person's approvals to give: there is no --yes to pass it, and a
// reply asking for a command the security layer could not read (one only a
// person may approve, Decision.NeedsPerson) goes to the agent byte for byte
// as the service sent it, with nothing approved, denied or run on the
// agent's behalf. The approval the trace shows is the agent's own,
// inferred from its next request and marked so; the tap forwards that
// request untouched.
func TestTapNeverApprovesOnTheAgentsBehalf(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"tap", "--yes"}, {"tap", "--json", "--yes"}, {"--yes", "tap"}} {
		var out, errs bytes.Buffer
		code := realMain(context.Background(), args, strings.NewReader(""), &out, &errs)
		if code == exitOK || strings.Contains(errs.String(), "GOOGLE_GEMINI_BASE_URL=") {
			t.Errorf("%q: exit %d, and a tap listened: %s", args, code, errs.String())
		}
		if args[0] == "tap" && (code != exitUsage || !strings.Contains(errs.String(), "flag provided but not defined: -yes")) {
			t.Errorf("%q: exit %d, %s", args, code, errs.String())
		}
	}

	ws := t.TempDir()
	canary := filepath.Join(ws, "canary.txt")
	writeFile(t, canary, "still here")
	t.Chdir(ws)
	// The service asks for a command whose name is built at run time:
	// glassbox's own security layer hands that to a person, never to --yes.
	const unknowable = `$(printf r%s m) -f canary.txt`
	call, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
		"parts": []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": unknowable}}}}},
		"finishReason": "STOP"}}})
	answer := `{"candidates":[{"content":{"role":"model","parts":[{"text":"I did not run it: you refused."}]},"finishReason":"STOP"}]}`
	replies := []string{"data: " + string(call) + "\r\n\r\n", "data: " + answer + "\r\n\r\n"}
	var mu sync.Mutex
	var received [][]byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(received)
		received = append(received, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, replies[min(n, 1)])
	}))
	defer up.Close()

	c := startTapCommand(t, "--json", "--upstream", up.URL)
	tool := `"tools":[{"functionDeclarations":[{"name":"run_shell_command","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]}]`
	first := `{"contents":[{"role":"user","parts":[{"text":"clean up"}]}],` + tool + `}`
	refused, _ := json.Marshal(map[string]any{"functionResponse": map[string]any{"name": "run_shell_command",
		"response": map[string]any{"error": "the user refused to run this command"}}})
	second := `{"contents":[{"role":"user","parts":[{"text":"clean up"}]},{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":` +
		strconvQuote(unknowable) + `}}}]},{"role":"user","parts":[` + string(refused) + `]}],` + tool + `}`
	var got []string
	for _, body := range []string{first, second} {
		resp, err := http.Post(c.url+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = append(got, string(b))
	}
	if got[0] != replies[0] || got[1] != replies[1] {
		t.Fatalf("the agent got %q: want the service's replies as they came", got)
	}
	mu.Lock()
	if len(received) != 2 || string(received[0]) != first || string(received[1]) != second {
		t.Fatalf("the service was sent %q", received)
	}
	mu.Unlock()
	if code := c.end(); code != exitOK {
		t.Fatalf("exit %d: %s", code, c.errs.String())
	}
	if b, err := os.ReadFile(canary); err != nil || string(b) != "still here" {
		t.Fatalf("the canary: %q %v", b, err)
	}

	sc := bufio.NewScanner(strings.NewReader(c.out.String()))
	var edges []string
	for sc.Scan() {
		var l struct {
			Edge     string `json:"edge"`
			Inferred string `json:"inferred"`
			Decision *struct {
				Verdict     string `json:"verdict"`
				Rule        string `json:"rule"`
				NeedsPerson bool   `json:"needs_person"`
			} `json:"decision"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a trace line: %s", sc.Text())
		}
		edges = append(edges, l.Edge)
		switch l.Edge {
		case "confirm_required", "user_approval", "user_denial":
			t.Errorf("the tap took a person's step on the agent's behalf: %s", sc.Text())
		}
		if d := l.Decision; d != nil && (d.Rule != "agent" || d.NeedsPerson || l.Inferred == "") {
			t.Errorf("a decision that is not the agent's own, inferred: %s", sc.Text())
		}
	}
	if strings.Join(edges, " ") != "new_event context_ready tool_call allow tool_failure observed context_ready final_answer delivered" {
		t.Fatalf("edges %v\n%s", edges, c.errs.String())
	}
}

// strconvQuote is s as a JSON string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
