package offline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
)

// The simulated Gemini streams as the service does (see the recorded
// sse_*.sse examples): a text answer token by token over several events
// that join to the unary answer, a function call whole in one event, and
// the finishReason and the full usageMetadata only in the last event.
func TestGeminiStreamsTokenByToken(t *testing.T) {
	tour, _ := lessons.ByName("tour")
	t.Run("text", func(t *testing.T) {
		decode := func(ev []byte) geminiResponse {
			var r geminiResponse
			if err := json.Unmarshal(ev, &r); err != nil {
				t.Fatalf("event %s: %v", ev, err)
			}
			return r
		}
		const question = "What's the capital of France?"
		whole := decode(do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiURL, geminiBody(question)).body)
		events := sseEvents(t, do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiStreamURL, geminiBody(question)).body)
		answer := whole.Candidates[0].Content.Parts[0].Text
		if len(events) < 5 || len(events) != len(offline.TokenPieces(answer)) {
			t.Fatalf("%d events for %q, want one per token (%d)", len(events), answer, len(offline.TokenPieces(answer)))
		}
		var joined strings.Builder
		for i, raw := range events {
			ev := decode(raw)
			parts := ev.Candidates[0].Content.Parts
			if len(parts) != 1 || parts[0].Text == "" || parts[0].FunctionCall != nil {
				t.Errorf("event %d parts = %+v, want one text piece", i, parts)
			}
			joined.WriteString(parts[0].Text)
			last := i == len(events)-1
			if (ev.Candidates[0].FinishReason != "") != last || (ev.UsageMetadata.CandidatesTokenCount != 0) != last {
				t.Errorf("event %d of %d: finishReason %q, candidatesTokenCount %d; want both only in the last",
					i, len(events), ev.Candidates[0].FinishReason, ev.UsageMetadata.CandidatesTokenCount)
			}
		}
		if joined.String() != answer {
			t.Errorf("the events join to %q, want the unary answer %q", joined.String(), answer)
		}
		if u := decode(events[len(events)-1]).UsageMetadata; u != whole.UsageMetadata {
			t.Errorf("last event's usage %+v, want the unary reply's %+v", u, whole.UsageMetadata)
		}
	})
	t.Run("function call", func(t *testing.T) {
		events := sseEvents(t, do(t, backend.SimulatedTransport(offline.Config{}), "POST", geminiStreamURL, geminiBody(tour.Request)).body)
		if len(events) != 1 {
			t.Fatalf("%d events, want the call whole in one", len(events))
		}
		var ev struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						FunctionCall *struct {
							Name string `json:"name"`
						} `json:"functionCall"`
						ThoughtSignature string `json:"thoughtSignature"`
					} `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(events[0], &ev); err != nil {
			t.Fatal(err)
		}
		parts := ev.Candidates[0].Content.Parts
		if len(parts) != 1 || parts[0].FunctionCall == nil || parts[0].FunctionCall.Name != "list_files" || parts[0].ThoughtSignature == "" ||
			ev.Candidates[0].FinishReason != "STOP" {
			t.Errorf("event = %s, want the list_files call with its signature and STOP", events[0])
		}
	})
}
