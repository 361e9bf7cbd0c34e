package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// A reply cut at the token limit reads as cut in the trace: a delivered
// text answer keeps stop_reason max_tokens and says so in the answer; a cut
// or stopped reply the provider marked malformed keeps its stop reason too.
func TestCutRepliesKeepTheirStopReason(t *testing.T) {
	cutText := reply{resp: &providers.Response{
		Message: history.Message{Text: "Tokyo is"}, StopReason: providers.StopMaxTokens, FinishReason: "length"}}
	f := newFixture(t, 0, cutText)
	_, ts := f.run(t, "weather?")
	llm := findLLM(t, ts, EdgeFinalAnswer)
	if llm.StopReason != "max_tokens" || llm.FinishReason != "length" {
		t.Errorf("stop_reason, finish_reason = %q, %q; want max_tokens, length", llm.StopReason, llm.FinishReason)
	}
	if got := f.outputs[0].Text; !strings.HasPrefix(got, "Tokyo is") || !strings.Contains(got, "cut off at the token limit: finish reason length") {
		t.Errorf("answer = %q, want it marked as cut", got)
	}

	for _, stop := range []providers.StopReason{providers.StopMaxTokens, providers.StopIncomplete} {
		bad := reply{resp: &providers.Response{Message: history.Message{Text: `{"name":`}, StopReason: stop, Malformed: "cut"}}
		f := newFixture(t, 0, bad, text("ok"))
		_, ts := f.run(t, "go")
		if llm := findLLM(t, ts, EdgeMalformedResponse); llm.StopReason != string(stop) {
			t.Errorf("malformed reply's stop_reason = %q, want %q", llm.StopReason, stop)
		}
	}
}

func findLLM(t *testing.T, ts []Transition, edge Edge) *LLMRecord {
	t.Helper()
	for _, tr := range ts {
		if tr.Edge == edge && tr.LLM != nil {
			return tr.LLM
		}
	}
	t.Fatalf("no %s transition with an LLM record", edge)
	return nil
}

// slowProvider fails every call after a pause of its own length.
type slowProvider struct {
	scriptedProvider
	pauses []time.Duration
}

func (p *slowProvider) Call(ctx context.Context, req providers.Request) (*providers.Response, error) {
	time.Sleep(p.pauses[min(p.calls, len(p.pauses)-1)])
	return p.scriptedProvider.Call(ctx, req)
}

// A failed call keeps each attempt's latency and the total, not only the
// last attempt's.
func TestFailureKeepsEveryAttemptsLatency(t *testing.T) {
	down := &providers.Error{Kind: providers.KindUnavailable, Status: 503, Message: "overloaded"}
	f := newFixture(t, 0)
	slow := &slowProvider{
		scriptedProvider: scriptedProvider{replies: []reply{{err: down}, {err: down}, {err: down}, {err: down}}},
		pauses:           []time.Duration{40 * time.Millisecond, 20 * time.Millisecond, 1 * time.Millisecond},
	}
	f.engine.cfg.Provider = slow
	edges, ts := f.run(t, "hi")
	if edges[2] != EdgeLLMFailure {
		t.Fatalf("edges %v", edges)
	}
	llm := ts[2].LLM
	if len(llm.Retries) != 3 || llm.Retries[0].LatencyMS < 40 || llm.Retries[1].LatencyMS < 20 {
		t.Fatalf("retries %+v, want each attempt's latency", llm.Retries)
	}
	if llm.TotalMS < 40+20+1+1 || llm.TotalMS < llm.LatencyMS {
		t.Errorf("total_ms = %d, want all four attempts (latency_ms %d is the last one)", llm.TotalMS, llm.LatencyMS)
	}
}
