package openai

import (
	"encoding/json"
	"strings"
	"testing"
)

// settle completes what go-openai writes, and nothing else: text a model
// or a tool wrote (inside JSON strings) cannot look like a message or a
// tool to it.
func TestSettleCompletesTheRequest(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"stream", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"tools":[{"function":{"name":"f","description":"d","parameters":{}},"type":"function"}],"stream_options":{"include_usage":true}}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0,"stream":true,"tools":[{"function":{"name":"f","description":"d","parameters":{}},"type":"function"}],"stream_options":{"include_usage":true}}`},
		{"unary", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false,"tools":[{"function":{"name":"f","description":"d","parameters":{}},"type":"function"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0,"tools":[{"function":{"name":"f","description":"d","parameters":{}},"type":"function"}]}`},
		{"unary without tools", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}`},
		{"empty contents", `{"model":"m","messages":[{"role":"assistant"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c"},{"role":"user"}],"stream":true}`,
			`{"model":"m","messages":[{"role":"assistant","content":""},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"","tool_call_id":"c"},{"role":"user","content":""}],"temperature":0,"stream":true}`},
		{"a tool without a description", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"tools":[{"function":{"name":"a\"b","parameters":{"properties":{"x":{"type":"string"}}}},"type":"function"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0,"stream":true,"tools":[{"function":{"name":"a\"b","description":"","parameters":{"properties":{"x":{"type":"string"}}}},"type":"function"}]}`},
		{"look-alikes inside strings", `{"model":"m","messages":[{"role":"user","content":"{\"role\":\"user\"} ],\"stream\":false, {\"function\":{\"name\":\"x\",\"parameters\":{}}}"}],"stream":true}`,
			`{"model":"m","messages":[{"role":"user","content":"{\"role\":\"user\"} ],\"stream\":false, {\"function\":{\"name\":\"x\",\"parameters\":{}}}"}],"temperature":0,"stream":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := settle([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("settle:\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
		})
	}
}

// A body go-openai did not write the way settle knows is refused with a
// reason, never sent without temperature 0.
func TestSettleRefusesAnUnknownBody(t *testing.T) {
	for _, in := range []string{`{"messages":[],"model":"m","stream":true}`, `{"model":"m","messages":[]}`, ``} {
		if _, err := settle([]byte(in)); err == nil || !strings.Contains(err.Error(), "go-openai wrote a request") {
			t.Errorf("settle(%s) = %v", in, err)
		}
	}
}
