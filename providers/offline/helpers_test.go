package offline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"google.golang.org/genai"
)

// This file is a miniature agent loop for the tests: it drives the real
// genai and ollama clients against the simulation, runs the tool calls on a
// fake workspace with the default policy's verdicts, and writes results and
// feedback back the way glassbox's loop and providers do.

// sampleFiles is the sample workspace (tools/sample) as the tests see it.
func sampleFiles() map[string]string {
	return map[string]string{
		"hello.py":       "def greet(name):\n    return f\"Hello, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n",
		"README.md":      "# Sample project\n\nA tiny Python project for the glassbox workshop.\n",
		"notes/todo.txt": "- add a farewell(name) function to hello.py\n- write a test for greet\n",
		"old_log.txt":    "2026-01-01 started\n",
	}
}

// world is the fake workspace plus the person's choices.
type world struct {
	files        map[string]string
	approve      bool   // the person's answer to every confirmation
	policyDenies bool   // a custom rule denies write_file and execute_command
	answer       string // the person's answer to ask_user ("" = no answer available)
	python       bool   // python3 is installed
}

func newWorld() *world {
	return &world{files: sampleFiles(), approve: true, answer: "yes", python: true}
}

// run plays one tool call as the engine would: policy first, then the tool.
func (w *world) run(name string, a map[string]any) (string, bool) {
	str := func(k string) string { s, _ := a[k].(string); return s }
	if p := str("path"); p != "" && (strings.HasPrefix(p, "/") || strings.HasPrefix(path.Clean(p), "..")) {
		return "DENIED by the security policy (rule path-outside-workspace): a path argument resolves outside the workspace.", true
	}
	switch name {
	case "read_file", "list_files", "ask_user":
	case "write_file", "execute_command":
		if w.policyDenies {
			return "DENIED by the security policy (rule no-writes): this workshop is read-only.", true
		}
		if !w.approve {
			return "The person denied this call (rule changes-need-approval).", true
		}
	default:
		return fmt.Sprintf("DENIED by the security policy (rule unknown-tool): there is no tool named %q.", name), true
	}
	switch name {
	case "read_file":
		c, ok := w.files[path.Clean(str("path"))]
		if !ok {
			return "open " + str("path") + ": no such file or directory", true
		}
		return c, false
	case "list_files":
		var names []string
		for n := range w.files {
			names = append(names, n)
		}
		slices.Sort(names)
		return strings.Join(names, "\n"), false
	case "write_file":
		w.files[path.Clean(str("path"))] = str("content")
		return "wrote " + str("path"), false
	case "ask_user":
		if w.answer == "" {
			return "no answer available", true
		}
		return w.answer, false
	}
	cmd := str("command")
	switch {
	case cmd == "python3 hello.py" && w.python:
		return "Hello, world!\n", false
	case cmd == "python3 hello.py":
		return "exec: \"python3\": executable file not found in $PATH", true
	case strings.HasPrefix(cmd, "rm "):
		f := strings.TrimPrefix(cmd, "rm ")
		if _, ok := w.files[f]; !ok {
			return "rm: " + f + ": No such file or directory\nexit status 1", true
		}
		delete(w.files, f)
		return "", false
	}
	return "unsupported command in the test world: " + cmd, true
}

// transcript is what happened in one played conversation.
type transcript struct {
	calls    []string // "name {canonical args}", in order
	turns    [][]string
	misfires int
	final    string
	halted   bool // the iteration limit stopped it
}

func canon(name string, a map[string]any) string {
	b, _ := json.Marshal(a)
	return name + " " + string(b)
}

const maxIterations = 10

// feedbackText is what the loop writes after a reply it could not use.
func feedbackText(why string) string {
	return "Your last reply could not be parsed: " + why + ". Reply again with exactly one valid tool call or a final answer."
}

// toolNames are the five tools the tests declare.
func toolNames() []string {
	return []string{"read_file", "write_file", "list_files", "execute_command", "ask_user"}
}

func newGenai(t *testing.T, tr http.RoundTripper) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "offline", Backend: genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: tr},
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://offline.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newOllama(tr http.RoundTripper) *api.Client {
	return api.NewClient(&url.URL{Scheme: "http", Host: "offline.invalid"}, &http.Client{Transport: tr})
}

func geminiConfig() *genai.GenerateContentConfig {
	var decls []*genai.FunctionDeclaration
	for _, n := range toolNames() {
		decls = append(decls, &genai.FunctionDeclaration{Name: n, Description: n,
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": {Type: genai.TypeString}}}})
	}
	return &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("You are a coding agent.", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: decls}},
	}
}

// geminiCall is one generateContent call, streamed or not, merged into one
// response the way the gemini provider would.
func geminiCall(ctx context.Context, c *genai.Client, contents []*genai.Content, stream bool) (*genai.Candidate, error) {
	if !stream {
		resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, geminiConfig())
		if err != nil {
			return nil, err
		}
		if len(resp.Candidates) == 0 {
			return nil, errors.New("no candidates")
		}
		return resp.Candidates[0], nil
	}
	merged := &genai.Candidate{Content: &genai.Content{Role: "model"}}
	var text strings.Builder
	for resp, err := range c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", contents, geminiConfig()) {
		if err != nil {
			return nil, err
		}
		cand := resp.Candidates[0]
		for _, p := range cand.Content.Parts {
			if p.Text != "" && !p.Thought {
				text.WriteString(p.Text)
			} else {
				merged.Content.Parts = append(merged.Content.Parts, p)
			}
		}
		if cand.FinishReason != "" {
			merged.FinishReason = cand.FinishReason
		}
	}
	if text.Len() > 0 {
		merged.Content.Parts = append(merged.Content.Parts, &genai.Part{Text: text.String()})
	}
	return merged, nil
}

// playGemini plays a request to the end. keepEmpty replays the empty model
// turn of a MALFORMED_FUNCTION_CALL before the feedback (a provider may
// drop it instead).
func playGemini(t *testing.T, tr http.RoundTripper, w *world, request string, stream, keepEmpty bool) transcript {
	t.Helper()
	c := newGenai(t, tr)
	contents := []*genai.Content{genai.NewContentFromText(request, genai.RoleUser)}
	var tx transcript
	for range maxIterations {
		cand, err := geminiCall(context.Background(), c, contents, stream)
		if err != nil {
			t.Fatalf("generateContent: %v", err)
		}
		if cand.FinishReason == genai.FinishReasonMalformedFunctionCall {
			tx.misfires++
			if keepEmpty {
				contents = append(contents, cand.Content)
			}
			contents = append(contents, genai.NewContentFromText(feedbackText("finishReason MALFORMED_FUNCTION_CALL"), genai.RoleUser))
			continue
		}
		contents = append(contents, cand.Content)
		var results []*genai.Part
		var turn []string
		for _, p := range cand.Content.Parts {
			if p.FunctionCall == nil {
				continue
			}
			fc := p.FunctionCall
			out, isErr := w.run(fc.Name, fc.Args)
			resp := map[string]any{"output": out}
			if isErr {
				resp = map[string]any{"error": out}
			}
			results = append(results, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: resp}})
			turn = append(turn, canon(fc.Name, fc.Args))
		}
		if len(results) == 0 {
			for _, p := range cand.Content.Parts {
				if !p.Thought {
					tx.final += p.Text
				}
			}
			return tx
		}
		tx.calls = append(tx.calls, turn...)
		tx.turns = append(tx.turns, turn)
		contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: results})
	}
	tx.halted = true
	return tx
}

// ollamaChat runs one /api/chat call and accumulates the streamed message.
func ollamaChat(ctx context.Context, c *api.Client, req *api.ChatRequest) (api.Message, error) {
	var msg api.Message
	done := false
	err := c.Chat(ctx, req, func(r api.ChatResponse) error {
		msg.Role = r.Message.Role
		msg.Content += r.Message.Content
		msg.ToolCalls = append(msg.ToolCalls, r.Message.ToolCalls...)
		done = done || r.Done
		return nil
	})
	if err == nil && !done {
		err = errors.New("stream ended without done:true")
	}
	return msg, err
}

func ollamaTools() api.Tools {
	var tools api.Tools
	for _, n := range toolNames() {
		props := api.NewToolPropertiesMap()
		props.Set("path", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "a path"})
		tools = append(tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: n, Description: n,
			Parameters: api.ToolFunctionParameters{Type: "object", Properties: props}}})
	}
	return tools
}

// playOllama plays a request in native (tools) or JSON mode.
func playOllama(t *testing.T, tr http.RoundTripper, w *world, request string, native, stream bool) transcript {
	t.Helper()
	c := newOllama(tr)
	msgs := []api.Message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: request}}
	var tx transcript
	for range maxIterations {
		req := &api.ChatRequest{Model: "llama3.1:8b", Messages: msgs, Stream: &stream}
		if native {
			req.Tools = ollamaTools()
		} else {
			req.Format = json.RawMessage(`"json"`)
		}
		msg, err := ollamaChat(context.Background(), c, req)
		if err != nil {
			t.Fatalf("chat: %v", err)
		}
		if native {
			if len(msg.ToolCalls) == 0 {
				tx.final = msg.Content
				return tx
			}
			msgs = append(msgs, msg)
			var turn []string
			for _, tc := range msg.ToolCalls {
				a := tc.Function.Arguments.ToMap()
				out, isErr := w.run(tc.Function.Name, a)
				if isErr {
					out = "Error: " + out
				}
				msgs = append(msgs, api.Message{Role: "tool", ToolName: tc.Function.Name, ToolCallID: tc.ID, Content: out})
				turn = append(turn, canon(tc.Function.Name, a))
			}
			tx.calls = append(tx.calls, turn...)
			tx.turns = append(tx.turns, turn)
			continue
		}
		msgs = append(msgs, api.Message{Role: "assistant", Content: msg.Content})
		var decision struct {
			ToolCall *struct {
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"tool_call"`
			Response *string `json:"response"`
		}
		text := msg.Content
		if i := strings.IndexByte(text, '{'); i >= 0 {
			text = text[i:]
		}
		if err := json.Unmarshal([]byte(text), &decision); err != nil || (decision.ToolCall == nil && decision.Response == nil) {
			tx.misfires++
			msgs = append(msgs, api.Message{Role: "user", Content: feedbackText(fmt.Sprint(err))})
			continue
		}
		if decision.Response != nil {
			tx.final = *decision.Response
			return tx
		}
		out, isErr := w.run(decision.ToolCall.Name, decision.ToolCall.Input)
		result := map[string]any{"name": decision.ToolCall.Name, "result": out}
		if isErr {
			result["is_error"] = true
		}
		b, _ := json.Marshal(map[string]any{"tool_result": result})
		msgs = append(msgs, api.Message{Role: "user", Content: string(b)})
		call := canon(decision.ToolCall.Name, decision.ToolCall.Input)
		tx.calls = append(tx.calls, call)
		tx.turns = append(tx.turns, []string{call})
	}
	tx.halted = true
	return tx
}
