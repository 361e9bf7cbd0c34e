package gemini

import (
	"context"
	"testing"
)

// The tokens Gemini served from its prompt cache (cachedContentTokenCount)
// are kept with the usage.
func TestCachedTokens(t *testing.T) {
	f := newFakeGemini(t, reply{body: `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9100,"candidatesTokenCount":1,"totalTokenCount":9101,"cachedContentTokenCount":8192}}`})
	p := newTestProvider(t, f, Config{})
	resp, err := p.Call(context.Background(), userSays("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.CachedTokens != 8192 || resp.Usage.InputTokens != 9100 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}
