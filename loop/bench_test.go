package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// instantProvider alternates a tool call and a final answer, with no I/O.
type instantProvider struct{ n int }

func (p *instantProvider) Name() string  { return "instant" }
func (p *instantProvider) Model() string { return "instant" }
func (p *instantProvider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	p.n++
	if p.n%2 == 1 {
		return &providers.Response{Message: history.Message{Role: history.RoleAssistant,
			ToolCalls: []history.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}}}}, nil
	}
	return &providers.Response{Message: history.Message{Role: history.RoleAssistant, Text: "done"}}, nil
}

// benchEngine is an engine with an instant provider and tool and no
// iteration limit worth the name.
func benchEngine(b *testing.B) *Engine {
	b.Helper()
	read := &fakeTool{name: "read_file", result: tools.Result{Content: "text"}}
	reg, err := tools.NewRegistry(read)
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Config{Provider: &instantProvider{}, Tools: reg, Person: &scriptedPerson{}, Workspace: sandbox{}, MaxIterations: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkStep measures the engine's own cost per transition (target under
// 100 µs, docs/architecture.md, "Performance targets"): an instant provider and tool, so only the state
// machine, the policy and the history are timed.
func BenchmarkStep(b *testing.B) {
	benchSteps(b, benchEngine(b))
}

// benchSteps times e.Step, queueing a request whenever the loop is idle.
func benchSteps(b *testing.B, e *Engine) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Step(ctx); errors.Is(err, ErrIdle) {
			e.Submit(Event{Source: "bench", Type: "user_input", Data: "read a.txt"})
		} else if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicyHostile decides each hostile command of
// TestHostileInputsAreDecided with the built-in policy: time and
// allocations per decision (the target is 100 ms and 64 MiB).
func BenchmarkPolicyHostile(b *testing.B) {
	p := DefaultPolicy()
	spec := &history.ToolSpec{Params: []history.ParamSpec{{Name: "command"}}, Attrs: history.Attributes{ChangesFiles: true, ReachesOut: true}}
	for name, src := range hostileCommands() {
		args, _ := json.Marshal(map[string]string{"command": src})
		call := history.ToolCall{Name: "execute_command", Args: args}
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Check(call, spec, sandbox{})
			}
		})
	}
}
