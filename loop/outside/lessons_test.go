package outside_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/wire"
	"github.com/glassbox-dev/glassbox/tools"
)

// person answers confirmations with allow (or deny) and questions with 1.
type person struct{ deny bool }

func (p person) Confirm(context.Context, loop.ConfirmRequest) (loop.Approval, error) {
	if p.deny {
		return loop.Deny, nil
	}
	return loop.AllowOnce, nil
}

func (person) Ask(context.Context, tools.Question) (string, error) { return "1", nil }

func isolate(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OLLAMA_HOST", "OLLAMA_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		t.Setenv(k, "")
	}
	t.Chdir(t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
}

// runLesson runs a lesson offline through the real engine, SDK clients and
// providers, and returns its steps.
func runLesson(t *testing.T, provider, mode, lesson string, p loop.Person) []loop.Transition {
	t.Helper()
	c := agentrun.Defaults(true)
	c.Provider, c.ToolMode, c.Offline, c.Lesson = provider, mode, true, lesson
	c.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	r, err := agentrun.Open(t.Context(), c, p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, _ := lessons.ByName(lesson)
	eng := r.Engine
	eng.Submit(loop.Event{Source: "cli", Type: "user_input", Data: l.Request})
	var steps []loop.Transition
	for len(steps) == 0 || !eng.Idle() {
		tr, err := eng.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, tr)
	}
	return steps
}

var lessonDialects = []struct{ name, provider, mode string }{
	{"gemini", "gemini", ""}, {"llama", "llama", "json"}, {"llama:native", "llama", "native"}, {"openai", "openai", ""},
}

// The bundled lessons as the real SDK clients sent them, on every dialect,
// read back from their bytes alone: every request decodes into the
// conversation the engine sent, its segments cover it, and the steps built
// from the exchanges are the engine's as far as the wire shows them — the
// approvals and the tools' runs inferred, a policy's or a person's denial
// seen as a failed result.
func TestLessonsFromTheirBytes(t *testing.T) {
	for _, tc := range []struct {
		lesson string
		deny   bool
		edges  string
		by     map[string]string
	}{
		{lesson: "tour", edges: "new_event context_ready tool_call allow* tool_success* observed context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"},
		{lesson: "write-file", edges: "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"},
		{lesson: "write-file", deny: true, edges: "new_event context_ready tool_call allow* tool_failure* observed context_ready final_answer delivered*"},
		{lesson: "path-escape", edges: "new_event context_ready tool_call allow* tool_failure* next_tool_call allow* tool_failure* observed context_ready final_answer delivered*",
			by: map[string]string{"llama": "new_event context_ready tool_call allow* tool_failure* observed context_ready tool_call allow* tool_failure* observed context_ready final_answer delivered*"}},
		{lesson: "tool-failure", edges: "new_event context_ready tool_call allow* tool_failure* observed context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"},
		{lesson: "parallel", edges: "new_event context_ready tool_call allow* tool_success* next_tool_call allow* tool_success* observed context_ready final_answer delivered*",
			by: map[string]string{"llama": "new_event context_ready tool_call allow* tool_success* observed context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"}},
		{lesson: "malformed", edges: "new_event context_ready malformed_response observed context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*",
			by: map[string]string{"llama:native": "new_event context_ready tool_call allow* tool_failure* observed context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"}},
		{lesson: "unknown-model", edges: "new_event context_ready llm_failure reported*"},
		// The engine retries a 429 and an outage itself; from outside each
		// attempt is a call that failed, and the next one the same
		// conversation sent again.
		{lesson: "rate-limit", edges: "new_event context_ready llm_failure reported* new_event context_ready final_answer delivered*"},
		{lesson: "outage", edges: "new_event context_ready llm_failure reported* new_event context_ready llm_failure reported* new_event context_ready llm_failure reported* new_event context_ready llm_failure reported*"},
	} {
		for _, d := range lessonDialects {
			want := tc.edges
			if w, ok := tc.by[d.name]; ok {
				want = w
			}
			t.Run(tc.lesson+"/"+d.name, func(t *testing.T) {
				isolate(t)
				steps := runLesson(t, d.provider, d.mode, tc.lesson, person{deny: tc.deny})
				b := outside.New(outside.Options{Source: "tap", Backend: "tap"})
				var got []loop.Transition
				for _, s := range steps {
					if s.LLM == nil {
						continue
					}
					checkDecoded(t, d.name, steps, s)
					for _, x := range s.Exchanges {
						got = append(got, b.Exchange(x)...)
					}
				}
				if e := edges(got); e != want {
					t.Fatalf("edges\n got %s\nwant %s", e, want)
				}
				checkRecords(t, steps, got)
			})
		}
	}
}

// edges lists the steps' edges, an inferred one marked with *.
func edges(ts []loop.Transition) string {
	var out []string
	for _, t := range ts {
		e := string(t.Edge)
		if t.Inferred != "" {
			e += "*"
		}
		out = append(out, e)
	}
	return strings.Join(out, " ")
}

// checkDecoded decodes the request of the LLM step s and compares it with
// the conversation the engine held when it sent it.
func checkDecoded(t *testing.T, dialect string, steps []loop.Transition, s loop.Transition) {
	t.Helper()
	var sent []history.Message
	for _, p := range steps {
		if p.Seq >= s.Seq {
			break
		}
		sent = append(sent, p.Added...)
	}
	sent = slices.DeleteFunc(history.WithoutNotes(sent), func(m history.Message) bool {
		// An empty reply: Gemini has no place for it, and it is not sent.
		return dialect == "gemini" && m.Role == history.RoleAssistant && m.Text == "" && len(m.ToolCalls) == 0
	})
	x := s.Exchanges[0]
	c, route, ok := backend.Wire().Detect(x.Method, x.URL)
	if !ok || route != wire.ModelCall {
		t.Fatalf("%s %s is not read as a model call", x.Method, x.URL)
	}
	req, err := c.DecodeRequest(x.URL, x.RequestBody)
	if err != nil {
		t.Fatal(err)
	}
	if req.Dialect != dialect {
		t.Errorf("the request reads as dialect %q", req.Dialect)
	}
	if got, want := project(req.Messages), project(sent); !slices.Equal(got, want) {
		t.Errorf("step %d: decoded\n%s\nengine sent\n%s", s.Seq, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(req.System, loop.DefaultSystemPrompt[:40]) {
		t.Errorf("system %.60q", req.System)
	}
	if len(req.Tools) < 5 {
		t.Errorf("%d tools", len(req.Tools))
	}
}

// project is what of a message every dialect carries: role, text, calls
// and results (ids, reasoning and the feedback mark left out).
func project(msgs []history.Message) []string {
	var out []string
	for _, m := range msgs {
		s := string(m.Role) + " " + strings.TrimSpace(m.Text)
		for _, c := range m.ToolCalls {
			s += " → " + c.Name + c.CanonicalArgs()
		}
		if r := m.Result; r != nil {
			s += " ← " + r.Name + ": " + r.Content
			if r.IsError {
				s += " (error)"
			}
		}
		out = append(out, s)
	}
	return out
}

// checkRecords checks what the panes read: each call paired with its
// result as the engine ran it, the final answer delivered, the records
// legal arcs of the state machine.
func checkRecords(t *testing.T, engine, got []loop.Transition) {
	t.Helper()
	results := map[string]string{}
	for _, s := range engine {
		if s.Result != nil && s.Tool != nil && (s.Edge == loop.EdgeObserved || s.Edge == loop.EdgeNextToolCall) {
			results[s.Tool.Name+s.Tool.CanonicalArgs()] = s.Result.Content
		}
	}
	for i, s := range got {
		if to, ok := loop.Target(s.From, s.Edge); !ok || to != s.To || s.Seq != i+1 {
			t.Fatalf("step %d: %s -%s-> %s is not an arc", s.Seq, s.From, s.Edge, s.To)
		}
		if i > 0 && got[i-1].To != s.From {
			t.Fatalf("step %d starts in %s, the step before ended in %s", s.Seq, s.From, got[i-1].To)
		}
		if s.Edge == loop.EdgeToolSuccess || s.Edge == loop.EdgeToolFailure {
			if want := results[s.Tool.Name+s.Tool.CanonicalArgs()]; s.Result == nil || s.Result.Content != want {
				t.Errorf("step %d: %s's result %+v, the engine recorded %q", s.Seq, s.Tool.Name, s.Result, want)
			}
		}
	}
	last, lastEngine := got[len(got)-1], engine[len(engine)-1]
	if (last.Output == nil) != (lastEngine.Output == nil) || (last.Output != nil && !last.Output.Halted && last.Output.Text != lastEngine.Output.Text) {
		t.Errorf("output %+v, the engine's %+v", last.Output, lastEngine.Output)
	}
}
