package gemini

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers"
)

// Replies that carry no usable content never become a silent empty answer:
// a blocked reply is a blocked error, a reply cut before any content or an
// empty one comes back Malformed. The bodies follow the documented
// candidate shape (resp_finishReason_MAX_TOKENS…, cookbook safety example)
// with the content taken out, as Gemini sends it when it withholds it.
func TestRepliesWithoutContent(t *testing.T) {
	tests := []struct {
		name, body string
		kind       providers.ErrorKind // an error of this kind, or
		malformed  string              // a Malformed reply containing this
		fault      string              // its Fault, for the loop's halt rule
		stop       providers.StopReason
		thoughts   int
	}{
		{
			name: "SAFETY, no content",
			body: `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}],"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},"modelVersion":"gemini-2.5-flash"}`,
			kind: providers.KindBlocked,
		},
		{
			name: "RECITATION, empty content",
			body: `{"candidates":[{"content":{"role":"model"},"finishReason":"RECITATION","index":0}],"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}`,
			kind: providers.KindBlocked,
		},
		{
			name:      "MAX_TOKENS spent on thinking",
			body:      `{"candidates":[{"content":{"parts":[{"text":"Let me think","thought":true}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":7,"totalTokenCount":107,"thoughtsTokenCount":100}}`,
			malformed: "cut off at the token limit (finishReason MAX_TOKENS) before it held any text or function call (the limit was spent on thinking)",
			fault:     "cut off at the token limit before any text or call (finishReason MAX_TOKENS)",
			stop:      providers.StopMaxTokens,
			thoughts:  100,
		},
		{
			name:      "STOP with nothing",
			body:      `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}`,
			malformed: "was empty (finishReason STOP)",
			fault:     "empty: no text and no function call (finishReason STOP)",
			stop:      providers.StopEndTurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeGemini(t, reply{body: tt.body})
			p := newTestProvider(t, f, Config{})
			resp, err := p.Call(context.Background(), userSays("hello"))
			if tt.kind != "" {
				var pe *providers.Error
				if !errors.As(err, &pe) || pe.Kind != tt.kind || !strings.Contains(pe.Message, "sent no content") {
					t.Fatalf("error = %v, want kind %s saying no content came", err, tt.kind)
				}
				if len(resp.Exchanges) != 1 {
					t.Errorf("exchanges = %d, want the reply kept", len(resp.Exchanges))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Malformed, tt.malformed) || resp.StopReason != tt.stop || resp.Fault != tt.fault {
				t.Errorf("Malformed %q, stop %q, fault %q; want %q, %q, %q", resp.Malformed, resp.StopReason, resp.Fault, tt.malformed, tt.stop, tt.fault)
			}
			if resp.Usage.ThoughtsTokens != tt.thoughts {
				t.Errorf("thoughts tokens = %d, want %d", resp.Usage.ThoughtsTokens, tt.thoughts)
			}
		})
	}
}
