package anatomy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// geminiCLI is one of Gemini CLI's two captured calls (providers/wire/
// testdata/agents/README.md).
func geminiCLI(t *testing.T, n string) providers.Exchange {
	t.Helper()
	dir := filepath.Join("..", "wire", "testdata", "agents", "geminicli")
	read := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n+ext))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return providers.Exchange{Method: "POST", URL: "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		Status: 200, ResponseHeaders: map[string][]string{"Content-Type": {"text/event-stream"}},
		RequestBody: read(".request.json"), ResponseBody: read(".response")}
}

func call(t *testing.T, x providers.Exchange) anatomy.Call {
	t.Helper()
	c, ok, err := anatomy.FromExchange(backend.Wire(), x)
	if !ok || err != nil {
		t.Fatalf("not read: %v", err)
	}
	return c
}

// A call's anatomy: the parts add up to the body, every token figure says
// where it comes from, and the estimate is reconciled with the count the
// provider reported.
func TestCallAnatomy(t *testing.T) {
	x := geminiCLI(t, "002")
	c := call(t, x)
	bytes, tokens := 0, 0
	for _, p := range c.Parts {
		bytes += p.Len()
		tokens += p.Tokens
		if (p.Kind == wire.KindFraming || p.Kind == wire.KindSettings) && p.Tokens != 0 {
			t.Errorf("%s part estimated at %d tokens", p.Kind, p.Tokens)
		}
	}
	if bytes != len(x.RequestBody) || c.Bytes != bytes || tokens != c.Estimated.N {
		t.Fatalf("parts add up to %d bytes, %d tokens; body %d, call %d bytes %d tokens", bytes, tokens, len(x.RequestBody), c.Bytes, c.Estimated.N)
	}
	kinds := map[wire.SegmentKind]anatomy.Total{}
	sum := 0
	for _, k := range c.Kinds {
		kinds[k.Kind] = k
		sum += k.Bytes
	}
	if sum != c.Bytes || kinds[wire.KindTool].Parts != 16 || kinds[wire.KindSystem].Parts != 1 || kinds[wire.KindInput].Parts != 1 || kinds[wire.KindModelCall].Parts != 1 {
		t.Fatalf("kinds %+v", c.Kinds)
	}
	if c.Estimated.Source != anatomy.Estimated || c.Estimated.Rule != anatomy.EstimateRule {
		t.Fatalf("estimate %+v", c.Estimated)
	}
	if c.Reported == nil || c.Reported.N != 9100 || c.Reported.Source != anatomy.Reported || c.Reported.Field != "usageMetadata.promptTokenCount" || c.Reported.Rule != "" {
		t.Fatalf("reported %+v", c.Reported)
	}
	if *c.Difference != 9100-c.Estimated.N {
		t.Fatalf("difference %d", *c.Difference)
	}
	if c.Cached == nil || c.Cached.N != 8192 || c.Cached.Field != "usageMetadata.cachedContentTokenCount" {
		t.Fatalf("cached %+v", c.Cached)
	}
	if s := c.Summary(); s.Parts != nil || len(s.Kinds) != len(c.Kinds) {
		t.Fatal("the summary keeps the parts")
	}
}

// Gemini CLI's second call appends its call and the result to the first:
// everything before is kept, the provider's cached count beside it.
func TestBetweenAppends(t *testing.T) {
	one, two := call(t, geminiCLI(t, "001")), call(t, geminiCLI(t, "002"))
	ch := anatomy.Between(one, two)
	if ch.BreaksAt != nil || ch.Changed.Parts != 0 || ch.Removed != 0 {
		t.Fatalf("the cache breaks: %+v", ch)
	}
	if ch.Kept.Parts != 1+16+1 || ch.Appended.Parts != 2 || ch.Cached == nil || ch.Cached.N != 8192 {
		t.Fatalf("kept %+v appended %+v cached %+v", ch.Kept, ch.Appended, ch.Cached)
	}
	if ch.Kept.Bytes+ch.Appended.Bytes >= two.Bytes {
		t.Fatalf("kept and appended add up to %d of %d bytes: framing and settings are no part of the prompt", ch.Kept.Bytes+ch.Appended.Bytes, two.Bytes)
	}
	g := anatomy.Growth([]anatomy.Call{one, two})
	if len(g) != 2 || g[1].Bytes <= g[0].Bytes || g[1].Estimated <= g[0].Estimated || g[1].Reported.N != 9100 {
		t.Fatalf("growth %+v", g)
	}
}

// A system prompt edited between two calls breaks the cache at its start:
// nothing is kept.
func TestBetweenEditedSystem(t *testing.T) {
	x := geminiCLI(t, "002")
	one := call(t, x)
	x.RequestBody = []byte(strings.Replace(string(x.RequestBody), "[Gemini CLI", "[An edited Gemini CLI", 1))
	two := call(t, x)
	ch := anatomy.Between(one, two)
	if ch.Kept.Parts != 0 || ch.BreaksAt == nil || ch.BreaksAt.Kind != wire.KindSystem || ch.Changed.Parts != 1+16+3 {
		t.Fatalf("%+v, breaks at %+v", ch, ch.BreaksAt)
	}
}

// Figures the offline simulation reported say so.
func TestSimulatedFigures(t *testing.T) {
	x := geminiCLI(t, "002")
	x.URL = "http://gemini.offline.invalid/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	c := call(t, x)
	if c.Reported.Rule != anatomy.SimulatedRule || !anatomy.Simulated(x.URL) || anatomy.Simulated("http://127.0.0.1/v1") {
		t.Fatalf("%+v", c.Reported)
	}
}
