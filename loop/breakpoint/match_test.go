package breakpoint

import (
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// steps of one iteration of the write-file lesson, as the engine records
// them, and a tap's request about to be forwarded.
var (
	geminiURL = "https://generativelanguage.googleapis.invalid/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	body      = []byte(strings.Repeat("x", 40_001))

	reply = loop.Transition{Seq: 3, From: loop.AwaitingLLMResponse, To: loop.CheckingPolicy, Edge: loop.EdgeToolCall, Iteration: 1,
		LLM: &loop.LLMRecord{Provider: "gemini", Usage: providers.Usage{InputTokens: 9214, OutputTokens: 30},
			ToolCalls: []history.ToolCall{{ID: "1", Name: "read_file"}, {ID: "2", Name: "write_file"}}},
		Exchanges: []providers.Exchange{{Method: "POST", URL: geminiURL, RequestBody: body}}}
	unreported = loop.Transition{Seq: 3, From: loop.AwaitingLLMResponse, To: loop.DeliveringOutput, Edge: loop.EdgeFinalAnswer,
		LLM:       &loop.LLMRecord{Provider: "llama"},
		Exchanges: []providers.Exchange{{URL: "http://127.0.0.1:11434/api/chat", RequestBody: []byte("0123456789")}}}
	check = loop.Transition{Seq: 4, From: loop.CheckingPolicy, To: loop.AwaitingUserConfirmation, Edge: loop.EdgeConfirmRequired,
		Tool: &history.ToolCall{Name: "write_file"}, Decision: &loop.Decision{Verdict: loop.RequireConfirm, Rule: "confirm-writes"}}
	deny = loop.Transition{Seq: 4, From: loop.CheckingPolicy, To: loop.RecordingError, Edge: loop.EdgeDeny,
		Tool: &history.ToolCall{Name: "read_file"}, Decision: &loop.Decision{Verdict: loop.DenyVerdict, Rule: "path-outside-workspace"}}
	assembled = loop.Transition{Seq: 2, From: loop.AssemblingContext, To: loop.AwaitingLLMResponse, Edge: loop.EdgeContextReady}
	// A tap's request about to be forwarded: the exchange has its request only.
	forwarded = loop.Transition{Seq: 2, From: loop.AssemblingContext, To: loop.AwaitingLLMResponse, Edge: loop.EdgeContextReady,
		Exchanges: []providers.Exchange{{Method: "POST", URL: "http://127.0.0.1:4000/v1/chat/completions", RequestBody: []byte(strings.Repeat("y", 1001))}}}
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		step       Step
		want       bool
	}{
		{"state entered", "state=CHECKING_POLICY", Step{Transition: reply}, true},
		{"state left is not entered", "state=AWAITING_LLM_RESPONSE", Step{Transition: reply}, false},
		{"edge", "edge=tool_call", Step{Transition: reply}, true},
		{"other edge", "edge=final_answer", Step{Transition: reply}, false},
		{"tool the reply asks for", "tool=write_file", Step{Transition: reply}, true},
		{"tool the reply asks for, second of two", "tool=read_file", Step{Transition: reply}, true},
		{"tool the reply does not ask for", "tool=execute_command", Step{Transition: reply}, false},
		{"tool of the call checked", "tool=write_file", Step{Transition: check}, true},
		{"tool glob", "tool~=write_*", Step{Transition: check}, true},
		{"tool glob no match", "tool~=exec*", Step{Transition: check}, false},
		{"tool = is not a glob", "tool=write_*", Step{Transition: check}, false},
		{"no tool on the step", "tool~=*", Step{Transition: assembled}, false},
		{"verdict", "verdict=REQUIRE_USER_CONFIRMATION", Step{Transition: check}, true},
		{"verdict deny", "verdict=DENY", Step{Transition: deny}, true},
		{"verdict on a step without decision", "verdict=DENY", Step{Transition: reply}, false},
		{"tool and verdict on one step", "tool=write_file,verdict=REQUIRE_USER_CONFIRMATION", Step{Transition: check}, true},
		{"tool and verdict, the verdict differs", "tool=read_file,verdict=ALLOW", Step{Transition: deny}, false},
		{"tool on the reply, verdict not yet", "tool=write_file,verdict=REQUIRE_USER_CONFIRMATION", Step{Transition: reply}, false},
		{"dialect by name", "dialect=gemini", Step{Transition: check, Dialect: "gemini"}, true},
		{"dialect of another run", "dialect=gemini", Step{Transition: check, Dialect: "llama"}, false},
		{"dialect alias", "dialect=ollama", Step{Transition: check, Dialect: "llama"}, true},
		{"provider name matches every tool mode", "dialect=llama", Step{Transition: check, Dialect: "llama:native"}, true},
		{"tool mode named", "dialect=llama:native", Step{Transition: check, Dialect: "llama:native"}, true},
		{"tool mode named, other mode", "dialect=llama:native", Step{Transition: check, Dialect: "llama"}, false},
		{"tool mode alias", "dialect=ollama:native", Step{Transition: check, Dialect: "ollama:native"}, true},
		{"dialect from the llm record", "dialect=ollama", Step{Transition: unreported}, true},
		{"mode unknown from the llm record", "dialect=llama:native", Step{Transition: unreported}, false},
		{"dialect unknown", "dialect=gemini", Step{Transition: check}, false},
		{"tokens reported", "tokens>9000", Step{Transition: reply}, true},
		{"tokens reported, under", "tokens>9214", Step{Transition: reply}, false},
		{"tokens >=", "tokens>=9214", Step{Transition: reply}, true},
		{"tokens <", "tokens<10k", Step{Transition: reply}, true},
		{"tokens <=", "tokens<=9213", Step{Transition: reply}, false},
		{"tokens estimated", "tokens>2", Step{Transition: unreported}, true},
		{"tokens estimated, under", "tokens>3", Step{Transition: unreported}, false},
		{"tokens of a request not yet sent", "tokens>250", Step{Transition: forwarded}, true},
		{"tokens without a model call", "tokens>=0", Step{Transition: check}, false},
		{"bytes", "bytes>40k", Step{Transition: reply}, true},
		{"bytes under", "bytes>40.001k", Step{Transition: reply}, false},
		{"bytes without a model call", "bytes>=0", Step{Transition: assembled}, false},
		{"bytes of a request", "bytes>1k", Step{Transition: forwarded}, true},
		{"path glob", "path~=*:streamGenerateContent", Step{Transition: reply}, true},
		{"path has no query", "path~=*alt=sse*", Step{Transition: reply}, false},
		{"path exact", "path=/api/chat", Step{Transition: unreported}, true},
		{"path of a request", "path=/v1/chat/completions", Step{Transition: forwarded}, true},
		{"path without a model call", "path~=*", Step{Transition: check}, false},
		{"all of several", "edge=tool_call,tool~=write_*,dialect=gemini,bytes>40k,tokens>9k", Step{Transition: reply, Dialect: "gemini"}, true},
		{"one of several fails", "edge=tool_call,tool~=write_*,dialect=gemini,bytes>40k,tokens>10k", Step{Transition: reply, Dialect: "gemini"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if _, got := b.Match(tc.step); got != tc.want {
				t.Errorf("%s on %s %s: %v, want %v", tc.expr, tc.step.From, tc.step.Edge, got, tc.want)
			}
		})
	}
}

// TestHitMeasures: a hit says what the sizes were and where the token
// figure came from.
func TestHitMeasures(t *testing.T) {
	b, _ := Parse("tokens>9k,bytes>40k")
	h, ok := b.Match(Step{Transition: reply})
	if !ok || h.Tokens == nil || *h.Tokens != (Tokens{N: 9214, Source: Reported}) || h.Bytes == nil || *h.Bytes != 40_001 || h.Seq != 3 {
		t.Fatalf("hit = %+v, %v", h, ok)
	}
	b, _ = Parse("tokens>1")
	h, ok = b.Match(Step{Transition: unreported})
	if !ok || *h.Tokens != (Tokens{N: 3, Source: Estimated}) || h.Bytes != nil {
		t.Fatalf("hit on an unreported call = %+v, %v (10 bytes: 3 tokens by the rule)", h, ok)
	}
	if h, ok := OnState(loop.Halted).Match(Step{Transition: reply}); ok || h.Tokens != nil {
		t.Errorf("state=HALTED matched a reply: %+v", h)
	}
}

func TestTokensOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    loop.Transition
		want Tokens
		ok   bool
	}{
		{"reported", reply, Tokens{9214, Reported}, true},
		{"estimated: 10 bytes, rounded up", unreported, Tokens{3, Estimated}, true},
		{"estimated: a request not yet answered", forwarded, Tokens{251, Estimated}, true},
		{"no model call", check, Tokens{}, false},
	} {
		if got, ok := TokensOf(tc.t); got != tc.want || ok != tc.ok {
			t.Errorf("%s: TokensOf = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestEmptyNeverMatches: a breakpoint with no conditions matches nothing,
// nor does a condition on a key the language does not have.
func TestEmptyNeverMatches(t *testing.T) {
	if _, ok := (Breakpoint{}).Match(Step{Transition: reply}); ok {
		t.Error("an empty breakpoint matched")
	}
	if _, ok := (Breakpoint{Conds: []Cond{{Key: "colour", Op: Eq, Value: "red"}}}).Match(Step{Transition: reply}); ok {
		t.Error("an unknown key matched")
	}
	if _, ok := OnState(loop.CheckingPolicy).Match(Step{Transition: reply}); !ok {
		t.Error("OnState does not match the state it names")
	}
}
