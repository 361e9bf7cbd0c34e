package loop

import (
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

func TestHealthOf(t *testing.T) {
	call := func(ms int64, retries int, in, out int) Transition {
		return Transition{From: AwaitingLLMResponse, To: CheckingPolicy, LLM: &LLMRecord{
			TotalMS: ms, LatencyMS: ms / 2, Retries: make([]Retry, retries), Usage: providers.Usage{InputTokens: in, OutputTokens: out}}}
	}
	fedBack := func(kind string) Transition {
		return Transition{From: CheckingPolicy, To: RecordingError, Error: &ErrorRecord{Kind: kind}}
	}
	tests := []struct {
		name  string
		ts    []Transition
		bytes int64
		want  string
		kinds string
	}{
		{"nothing yet", nil, 0, "0 calls · 0 retries · 0 failures fed back · tokens 0→0", ""},
		{"one call", []Transition{call(40, 0, 700, 40)}, 900, "1 call · 0 retries · 0 failures fed back · p50 40 ms · max 40 ms · tokens 700→40 · 900 B", ""},
		{"retries and failures", []Transition{
			call(1200, 2, 100, 10), fedBack("policy_denied"), call(3400, 0, 200, 20), fedBack("tool_failure"),
			fedBack("policy_denied"), call(800, 1, 300, 30),
			// a halt is not fed back: it goes to the event's source
			{From: AwaitingLLMResponse, To: Halted, Error: &ErrorRecord{Kind: "llm_failure"}},
		}, 48 << 10, "3 calls · 3 retries · 3 failures fed back · p50 1.2 s · max 3.4 s · tokens 600→60 · 48 KB", "policy_denied 2, tool_failure 1"},
		{"a single failure", []Transition{call(12_000, 1, 1, 1), fedBack("malformed_response")}, 3 << 20, "1 call · 1 retry · 1 failure fed back · p50 12 s · max 12 s · tokens 1→1 · 3.0 MB", "malformed_response 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := HealthOf(tc.ts)
			h.Bytes = tc.bytes
			if got := h.String(); got != tc.want {
				t.Errorf("String:\n got %s\nwant %s", got, tc.want)
			}
			if got := h.FailureKinds(); got != tc.kinds {
				t.Errorf("FailureKinds = %q, want %q", got, tc.kinds)
			}
		})
	}
}

func TestHealthP50IsTheLowerMedian(t *testing.T) {
	var ts []Transition
	for _, ms := range []int64{400, 100, 300, 200} {
		ts = append(ts, Transition{LLM: &LLMRecord{TotalMS: ms}})
	}
	if h := HealthOf(ts); h.P50 != 200*time.Millisecond || h.Max != 400*time.Millisecond {
		t.Fatalf("p50 %v max %v", h.P50, h.Max)
	}
	// Added one at a time, as a screen does, the health is the same at every step.
	var h Health
	for i, tr := range ts {
		h.Add(tr)
		if want := HealthOf(ts[:i+1]); h.String() != want.String() {
			t.Fatalf("after %d: %s, want %s", i+1, h, want)
		}
	}
	if h.P50 != 200*time.Millisecond {
		t.Fatalf("incremental p50 %v", h.P50)
	}
}
