package loop

import (
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// unusable is a reply the provider could not use, of the given kind.
func unusable(stop providers.StopReason, finish, fault string) reply {
	return reply{resp: &providers.Response{
		Message:    history.Message{Role: history.RoleAssistant, Text: "is is is"},
		StopReason: stop, FinishReason: finish, Fault: fault,
		Malformed: "Your last reply could not be used (" + fault + ").",
	}}
}

// The halt rule: the same kind of unusable reply twice in a row is not fed
// back a second time; the loop halts (llm_failure → HALTED) and names the
// cause and the last stop reason. Two different failures, or the same one
// with a usable reply between, are fed back as before.
func TestRepeatedFailureHalts(t *testing.T) {
	repeat := unusable(providers.StopIncomplete, "", "stopped by Ollama's repeat limit")
	empty := unusable(providers.StopEndTurn, "stop", "empty: no text and no tool call")
	read := calls(call("read_file", `{"path":"a"}`))
	fedBack := []Edge{EdgeMalformedResponse, EdgeObserved, EdgeContextReady}
	tests := []struct {
		name    string
		replies []reply
		want    []Edge
		says    []string // in the HALTED message; none: answered
	}{
		{"the repeat limit twice", []reply{repeat, repeat},
			seq(start, fedBack, []Edge{EdgeLLMFailure, EdgeReported}),
			[]string{"2 replies in a row were stopped by Ollama's repeat limit", "stopped feeding the failure back", "the last reply's stop reason: incomplete (finish reason -)"}},
		{"empty twice", []reply{empty, empty},
			seq(start, fedBack, []Edge{EdgeLLMFailure, EdgeReported}),
			[]string{"2 replies in a row were empty: no text and no tool call", "the last reply's stop reason: end_turn (finish reason stop)"}},
		{"no fault named: the same stop and finish reasons", []reply{unusable(providers.StopMaxTokens, "length", ""), unusable(providers.StopMaxTokens, "length", "")},
			seq(start, fedBack, []Edge{EdgeLLMFailure, EdgeReported}),
			[]string{"2 replies in a row were unusable the same way (stop reason max_tokens, finish reason length)"}},
		{"two different failures are both fed back", []reply{repeat, empty, text("done")},
			seq(start, fedBack, fedBack, []Edge{EdgeFinalAnswer, EdgeDelivered}), nil},
		{"a usable reply in between starts the count again", []reply{repeat, read, repeat, text("done")},
			seq(start, fedBack, []Edge{EdgeToolCall, EdgeAllow, EdgeToolSuccess, EdgeObserved, EdgeContextReady}, fedBack, []Edge{EdgeFinalAnswer, EdgeDelivered}), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 10, tc.replies...)
			edges, ts := f.run(t, "do it")
			if !slices.Equal(edges, tc.want) {
				t.Fatalf("edges\n got %v\nwant %v", edges, tc.want)
			}
			out := f.outputs[len(f.outputs)-1]
			if tc.says == nil {
				if out.Halted {
					t.Errorf("halted: %s", out.Text)
				}
				return
			}
			if !out.Halted || ts[len(ts)-2].Error == nil || ts[len(ts)-2].Error.Kind != KindRepeatedFailure {
				t.Fatalf("output %+v, error %+v; want HALTED by the repeated failure", out, ts[len(ts)-2].Error)
			}
			for _, s := range tc.says {
				if !strings.Contains(out.Text, s) {
					t.Errorf("HALTED message %q lacks %q", out.Text, s)
				}
			}
			if line := Human(ts[len(ts)-2]); !strings.Contains(line, "--llm_failure--> HALTED · stop_reason: ") || !strings.Contains(line, "repeated_failure: 2 replies in a row") {
				t.Errorf("human trace %q, want the stop reason and repeated_failure named", line)
			}
			if n := f.provider.calls; n != 2 && len(tc.replies) == 2 {
				t.Errorf("%d model calls, want 2: the second failure is not fed back", n)
			}
		})
	}
}

// Every HALTED message names the last stop reason: the iteration limit and
// a provider failure too.
func TestHaltedNamesTheLastStopReason(t *testing.T) {
	t.Run("iteration limit", func(t *testing.T) {
		f := newFixture(t, 1, calls(call("read_file", `{"path":"a"}`)))
		f.run(t, "do it")
		if out := f.outputs[0]; !out.Halted || !strings.Contains(out.Text, "the last reply's stop reason: tool_use (finish reason STOP)") {
			t.Errorf("HALTED message %q, want the last stop reason named", out.Text)
		}
	})
	t.Run("provider failure after a reply", func(t *testing.T) {
		f := newFixture(t, 5, calls(call("read_file", `{"path":"a"}`)), reply{err: &providers.Error{Kind: providers.KindAuth, Status: 401, Message: "bad key"}})
		f.run(t, "do it")
		if out := f.outputs[0]; !out.Halted || !strings.Contains(out.Text, "bad key; the last reply's stop reason: tool_use (finish reason STOP)") {
			t.Errorf("HALTED message %q, want the last stop reason named", out.Text)
		}
	})
	t.Run("provider failure before any reply", func(t *testing.T) {
		f := newFixture(t, 5, reply{err: &providers.Error{Kind: providers.KindAuth, Status: 401, Message: "bad key"}})
		f.run(t, "do it")
		if out := f.outputs[0]; !out.Halted || !strings.Contains(out.Text, "bad key; no reply came back for this request") {
			t.Errorf("HALTED message %q, want it to say no reply came", out.Text)
		}
	})
}
