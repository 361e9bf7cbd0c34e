package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// A schema Ollama's native tool type can hold (type, properties with enum
// and items, required, a nested object without its own required).
const nativeFitSchema = `{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},` +
	`"lang":{"type":"string","enum":["en","ja"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"]}`

// A schema it cannot: minLength, a nested required, additionalProperties.
const nativeLossySchema = `{"type":"object","properties":{"query":{"type":"string","minLength":2},` +
	`"filter":{"type":"object","properties":{"lang":{"type":"string"}},"required":["lang"]}},"required":["query"],"additionalProperties":false}`

func schemaTool(schema string) []history.ToolSpec {
	return []history.ToolSpec{{Name: "docs__search", Description: "Search the docs.", Schema: json.RawMessage(schema)}}
}

func schemaRequest(tools []history.ToolSpec) providers.Request {
	return providers.Request{Tools: tools, Messages: []history.Message{{Role: history.RoleUser, Text: "search"}}}
}

// TestNativeToolSchemaGoesAsWritten: a schema the native tool type can hold
// reaches Ollama with the same meaning.
func TestNativeToolSchemaGoesAsWritten(t *testing.T) {
	f := newFakeOllama(t, streamLines(`{"model":"m","message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`))
	p := newProvider(t, f.srv.URL, ToolModeNative, false)
	if _, err := p.Call(context.Background(), schemaRequest(schemaTool(nativeFitSchema))); err != nil {
		t.Fatal(err)
	}
	_, body := f.lastBody(t)
	params := body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["parameters"]
	var want any
	_ = json.Unmarshal([]byte(nativeFitSchema), &want)
	if lost := lostKeywords(want, params, ""); len(lost) > 0 {
		got, _ := json.Marshal(params)
		t.Fatalf("parameters = %s; lost %v of %s", got, lost, nativeFitSchema)
	}
}

// TestNativeToolSchemaThatCannotBeCarriedIsRefused: what the native tool
// type would drop is named, nothing is sent, and JSON mode takes the same
// schema as written.
func TestNativeToolSchemaThatCannotBeCarriedIsRefused(t *testing.T) {
	f := newFakeOllama(t, streamLines(`{"model":"m","message":{"role":"assistant","content":"{\"thought\":\"t\",\"response\":\"ok\"}"},"done":true,"done_reason":"stop"}`))
	p := newProvider(t, f.srv.URL, ToolModeNative, false)
	_, err := p.Call(context.Background(), schemaRequest(schemaTool(nativeLossySchema)))
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != providers.KindBadRequest {
		t.Fatalf("err = %v, want a bad_request providers.Error", err)
	}
	for _, want := range []string{"tool docs__search cannot be described to Ollama", "/additionalProperties", "/properties/query/minLength", "/properties/filter/required", "--tool-mode json"} {
		if !strings.Contains(pe.Message, want) {
			t.Errorf("message %q does not say %q", pe.Message, want)
		}
	}
	if len(f.bodies) != 0 {
		t.Fatalf("a request was sent anyway: %s", f.bodies[0])
	}

	j := newProvider(t, f.srv.URL, ToolModeJSON, true)
	if _, err := j.Call(context.Background(), schemaRequest(schemaTool(nativeLossySchema))); err != nil {
		t.Fatal(err)
	}
	raw, body := f.lastBody(t)
	system := body["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(system, nativeLossySchema) {
		t.Errorf("the JSON-mode prompt does not carry the schema as written:\n%s", system)
	}
	if !strings.Contains(string(raw), `"input":`+nativeLossySchema) {
		t.Errorf("the reply schema does not hold the tool's schema as its input:\n%s", raw)
	}
	if !strings.Contains(system, `"input": {"query": "..."}`) {
		t.Errorf("the example call does not fill the schema's required property:\n%s", system)
	}
}
