package glassbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// scriptedProvider is a loop.Provider that answers from a script, one reply
// per call, with a fixed HTTP exchange so the Raw payload pane has something
// stable to show.
type scriptedProvider struct {
	mu      sync.Mutex
	replies []reply
	calls   int
	// block, if set, makes Call wait for ctx (to test cancelling).
	block bool
}

// reply is one scripted model turn: text, or tool calls; or, with
// malformed set, a reply the loop cannot use, of the kind fault.
type reply struct {
	text      string
	thought   string
	calls     []history.ToolCall
	malformed string
	fault     string
}

var _ loop.Provider = (*scriptedProvider)(nil)

func (p *scriptedProvider) Name() string  { return "gemini" }
func (p *scriptedProvider) Model() string { return "gemini-2.5-flash" }

func (p *scriptedProvider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	if p.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls >= len(p.replies) {
		return nil, &providers.Error{Message: "the script has no more replies"}
	}
	r := p.replies[p.calls]
	p.calls++
	msg := history.Message{Role: history.RoleAssistant, Text: r.text, Thought: r.thought, ToolCalls: r.calls}
	stop := providers.StopEndTurn
	if len(r.calls) > 0 {
		stop = providers.StopToolUse
	}
	usage := providers.Usage{InputTokens: 100 * p.calls, OutputTokens: 10}
	reqBody, respBody := geminiBodies(req, msg, usage)
	ex := providers.Exchange{
		Method:          "POST",
		URL:             "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
		RequestHeaders:  map[string][]string{"Content-Type": {"application/json"}, "X-Goog-Api-Key": {"[REDACTED]"}},
		RequestBody:     reqBody,
		Status:          200,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/json"}},
		ResponseBody:    respBody,
		TTFB:            120 * time.Millisecond,
		Total:           150 * time.Millisecond,
		Redacted:        []string{"x-goog-api-key"},
	}
	return &providers.Response{
		Message:      msg,
		StopReason:   stop,
		FinishReason: "STOP",
		Malformed:    r.malformed,
		Fault:        r.fault,
		Usage:        usage,
		Exchanges:    []providers.Exchange{ex},
	}, nil
}

// geminiBodies are a scripted call's request and reply as Gemini's
// generateContent writes them (the shape, not the SDK's every field), so
// the panes that read a call's bytes — Raw payload, Anatomy — read them
// as they read a real one.
func geminiBodies(req providers.Request, reply history.Message, usage providers.Usage) (request, response []byte) {
	type obj = map[string]any
	content := func(m history.Message) obj {
		role, parts := "user", []obj{}
		switch {
		case m.Role == history.RoleAssistant:
			role = "model"
			if m.Text != "" {
				parts = append(parts, obj{"text": m.Text})
			}
			for _, c := range m.ToolCalls {
				parts = append(parts, obj{"functionCall": obj{"name": c.Name, "args": json.RawMessage(c.Args)}})
			}
		case m.Result != nil:
			parts = append(parts, obj{"functionResponse": obj{"name": m.Result.Name, "response": obj{"output": m.Result.Content}}})
		default:
			parts = append(parts, obj{"text": m.Text})
		}
		return obj{"role": role, "parts": parts}
	}
	contents := []obj{}
	for _, m := range history.WithoutNotes(req.Messages) {
		contents = append(contents, content(m))
	}
	decls := []obj{}
	for _, t := range req.Tools {
		decls = append(decls, obj{"name": t.Name}) // no description: a Japanese screen shows only the script's words
	}
	request, _ = json.Marshal(obj{"contents": contents, "tools": []obj{{"functionDeclarations": decls}}})
	response, _ = json.Marshal(obj{"candidates": []obj{{"content": content(reply)}},
		"usageMetadata": obj{"promptTokenCount": usage.InputTokens, "candidatesTokenCount": usage.OutputTokens, "totalTokenCount": usage.InputTokens + usage.OutputTokens}})
	return request, response
}

func call(id, name string, args map[string]any) history.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return history.ToolCall{ID: id, Name: name, Args: b}
}

// testWorld is a real engine with real tools on a temporary copy of the
// sample project, driven by a scripted provider.
type testWorld struct {
	eng    *loop.Engine
	person *Person
	prov   *scriptedProvider
	dir    string
}

// sampleWorkspace is a fresh copy of the sample project in a temporary
// folder of the test's own.
func sampleWorkspace(t testing.TB) (*tools.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	if err := tools.CopySample(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

func newWorld(t testing.TB, replies ...reply) *testWorld {
	t.Helper()
	ws, dir := sampleWorkspace(t)
	person := NewPerson()
	prov := &scriptedProvider{replies: replies}
	eng, err := loop.New(loop.Config{
		Provider:  prov,
		Backend:   "offline",
		Tools:     tools.Default(ws, person, 0),
		Workspace: ws,
		Person:    person,
		Retry:     loop.RetryPolicy{MaxRetries: -1},
		Now:       func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return &testWorld{eng: eng, person: person, prov: prov, dir: dir}
}

// testLessons are the lessons the tests offer in the menu.
var testLessons = []Lesson{
	{Name: "tour", Title: "A tour: list, read, explain", Request: "List the files in this project and tell me what hello.py does."},
	{Name: "write", Title: "Writing a file needs your approval", Request: "Add a line 'buy milk' to notes/todo.txt."},
}

func (w *testWorld) config() Config {
	return Config{
		Engine:        w.eng,
		Person:        w.person,
		Banner:        "gemini gemini-2.5-flash · offline: no GEMINI_API_KEY is set",
		Backend:       "offline",
		BackendReason: "no GEMINI_API_KEY is set",
		Workspace:     "/tmp/glassbox-workspace",
		Lessons:       testLessons,
		Lesson:        "tour",
		NoColor:       true,
	}
}

// writeScriptReplies is a write_file call that needs approval, then done.
func writeScriptReplies() []reply {
	return []reply{
		{thought: "The person wants a line added; write_file needs approval.",
			calls: []history.ToolCall{call("w1", "write_file", map[string]any{"path": "notes/todo.txt", "content": "- buy milk\n"})}},
		{text: "Done."},
	}
}

// tourScript is the tour lesson as a script: list, read, explain.
func tourScript() []reply {
	return []reply{
		{thought: "I should look at the files first.", calls: []history.ToolCall{call("c1", "list_files", map[string]any{"path": "."})}},
		{calls: []history.ToolCall{call("c2", "read_file", map[string]any{"path": "hello.py"})}},
		{text: "The project has a README, hello.py, notes/ and an old log. hello.py prints a greeting."},
	}
}

var errTimeout = errors.New("timed out")

func describe(t loop.Transition) string {
	return fmt.Sprintf("%s -%s-> %s", t.From, t.Edge, t.To)
}

// writeCall is one write_file call (which needs the person's approval).
func writeCall() []history.ToolCall {
	return []history.ToolCall{call("w1", "write_file", map[string]any{"path": "notes/todo.txt", "content": "- buy milk\n"})}
}
