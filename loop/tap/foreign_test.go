package tap_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// The folder the captured agents ran in, and what is in it.
const workdir = "/work/agents/wire/proj"

var workspace = map[string]string{"hello.py": "print(\"hello\")\n", "README.md": "# proj\n"}

// capture reads one of the committed agent captures.
func capture(t *testing.T, agent, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../providers/wire/testdata/agents/" + agent + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// agentTool runs a captured agent's tool on the workspace, as the agent
// would: the tutor's call must name a tool the agent declared, with its
// arguments.
func agentTool(t *testing.T, name string, a map[string]any) string {
	t.Helper()
	str := func(k string) string { s, _ := a[k].(string); return s }
	file := func(k string) string {
		p := str(k)
		if rest, ok := strings.CutPrefix(p, workdir+"/"); ok {
			return rest
		}
		return p
	}
	switch name {
	case "list_directory":
		return "Directory listing for " + workdir + ":\nhello.py (15 bytes)\nREADME.md (7 bytes)"
	case "glob":
		if str("pattern") != "*" {
			t.Fatalf("glob %v", a)
		}
		return workdir + "/hello.py\n" + workdir + "/README.md"
	case "read_file", "read":
		k := "file_path"
		if name == "read" {
			k = "filePath"
			if !path.IsAbs(str(k)) {
				t.Fatalf("opencode's read wants an absolute path: %v", a)
			}
		}
		if c, ok := workspace[file(k)]; ok {
			return c
		}
		return "Error: no such file " + str(k)
	case "write_file", "write":
		k := map[string]string{"write_file": "file_path", "write": "filePath"}[name]
		workspace[file(k)] = str("content")
		return "Successfully wrote to " + str(k)
	case "run_shell_command", "bash":
		if str("command") == "python3 hello.py" {
			return "hello\n"
		}
		return "Exit code: 127\n" + str("command") + ": not found"
	}
	t.Fatalf("the tutor called %s %v, which the agent does not declare", name, a)
	return ""
}

// agentCall posts body to the tap as the agent does and reads the reply
// from its bytes.
func agentCall(t *testing.T, x *tapped, target string, header http.Header, body []byte) *wire.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", x.URL+target, bytes.NewReader(body))
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	codec, _, _ := backend.Wire().Detect("POST", target)
	decoded, err := codec.DecodeRequest(target, body)
	if err != nil {
		t.Fatal(err)
	}
	r := codec.DecodeResponse(decoded, providers.Exchange{Status: resp.StatusCode, ResponseHeaders: resp.Header, ResponseBody: got})
	if r.Error != nil || !r.Complete {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
	return r
}

// Done when (issue 30): with --upstream offline, the tutor reads the tools
// a foreign agent declared — Gemini CLI's and opencode's, from their
// captures — and drives them by role (list a folder, read, write, run)
// through a loop to an answer; the tap shows the loop as steps.
func TestOfflineDrivesForeignAgents(t *testing.T) {
	cases := []struct {
		agent, ask string
		calls      string // the tools the agent is asked to run, in order
		answer     string // in the final answer
	}{
		{"geminicli", "list the files here", "list_directory", "what list_directory returned"},
		{"geminicli", "read hello.py", "read_file", `print("hello")`},
		{"geminicli", "create notes.txt", "write_file", "I wrote notes.txt"},
		{"geminicli", "run `python3 hello.py`", "run_shell_command", "hello"},
		{"opencode", "list the files here", "glob", "README.md"},
		{"opencode", "read hello.py", "read", `print("hello")`},
		{"opencode", "run `python3 hello.py`", "bash", "hello"},
	}
	for _, c := range cases {
		t.Run(c.agent+"/"+c.ask, func(t *testing.T) {
			x := startTap(t, tap.Options{Upstream: tap.Offline, Mode: tap.Running})
			var calls []string
			var answer string
			switch c.agent {
			case "geminicli":
				calls, answer = playGeminiCLI(t, x, c.ask)
			case "opencode":
				calls, answer = playOpencode(t, x, c.ask)
			}
			if strings.Join(calls, " ") != c.calls || !strings.Contains(answer, c.answer) {
				t.Fatalf("calls %q, answer %q", calls, answer)
			}
			x.waitEdges(t, "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*")
		})
	}
}

// playGeminiCLI is Gemini CLI's loop on its captured request: its session
// context and the person's words, its 16 tools, a model turn and a
// function response per call.
func playGeminiCLI(t *testing.T, x *tapped, ask string) (calls []string, answer string) {
	req := capture(t, "geminicli", "001.request.json")
	first := req["contents"].([]any)[0].(map[string]any)
	parts := first["parts"].([]any)
	parts[len(parts)-1] = map[string]any{"text": ask}
	contents := []any{first}
	header := http.Header{"Content-Type": {"application/json"}, "X-Goog-Api-Key": {geminiKey}}
	for range 5 {
		req["contents"] = contents
		body, _ := json.Marshal(req)
		r := agentCall(t, x, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", header, body)
		if len(r.ToolCalls) == 0 {
			return calls, r.Text
		}
		var model, results []any
		for _, call := range r.ToolCalls {
			var a map[string]any
			json.Unmarshal(call.Args, &a)
			calls = append(calls, call.Name)
			model = append(model, map[string]any{"functionCall": map[string]any{"name": call.Name, "args": a}})
			results = append(results, map[string]any{"functionResponse": map[string]any{"name": call.Name, "response": map[string]any{"output": agentTool(t, call.Name, a)}}})
		}
		contents = append(contents, map[string]any{"role": "model", "parts": model}, map[string]any{"role": "user", "parts": results})
	}
	t.Fatal("no answer after 5 calls")
	return nil, ""
}

// playOpencode is opencode's loop on its captured request: its system
// prompt (with the environment block that names its working directory),
// its tools, assistant tool_calls and tool messages.
func playOpencode(t *testing.T, x *tapped, ask string) (calls []string, answer string) {
	req := capture(t, "opencode", "002.request.json")
	msgs := []any{
		map[string]any{"role": "system", "content": "You are opencode.\nHere is some useful information about the environment you are running in:\n<env>\n  Working directory: " + workdir + "\n  Platform: linux\n</env>"},
		map[string]any{"role": "user", "content": ask},
	}
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + openAIKey}}
	for range 5 {
		req["messages"] = msgs
		body, _ := json.Marshal(req)
		r := agentCall(t, x, "/v1/chat/completions", header, body)
		if len(r.ToolCalls) == 0 {
			return calls, r.Text
		}
		var tcs []any
		var results []any
		for _, call := range r.ToolCalls {
			var a map[string]any
			json.Unmarshal(call.Args, &a)
			calls = append(calls, call.Name)
			tcs = append(tcs, map[string]any{"id": call.ID, "type": "function", "function": map[string]any{"name": call.Name, "arguments": string(call.Args)}})
			results = append(results, map[string]any{"role": "tool", "tool_call_id": call.ID, "content": agentTool(t, call.Name, a)})
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "", "tool_calls": tcs})
		msgs = append(msgs, results...)
	}
	t.Fatal("no answer after 5 calls")
	return nil, ""
}

// An agent whose tools the tutor cannot tell apart gets a plain answer
// that says what it would have done and why it did not.
func TestOfflineCannotMapTools(t *testing.T) {
	x := startTap(t, tap.Options{Upstream: tap.Offline, Mode: tap.Running})
	req := capture(t, "geminicli", "001.request.json")
	tools := req["tools"].([]any)[0].(map[string]any)
	var keep []any
	for _, d := range tools["functionDeclarations"].([]any) {
		if n := d.(map[string]any)["name"]; n == "web_fetch" || n == "google_web_search" {
			keep = append(keep, d)
		}
	}
	tools["functionDeclarations"] = keep
	body, _ := json.Marshal(req)
	r := agentCall(t, x, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", http.Header{"Content-Type": {"application/json"}}, body)
	if len(r.ToolCalls) != 0 || !strings.Contains(r.Text, "I would list the folder now, but none of the tools this agent declared does that (it declared: web_fetch, google_web_search)") {
		t.Fatalf("calls %v, text %q", r.ToolCalls, r.Text)
	}
}
