package ollama

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseReply feeds the JSON-mode parser arbitrary model output. The seed
// corpus (testdata/fuzz/FuzzParseReply) holds the shapes real models write:
// fenced, prose-wrapped, two objects, braces inside strings, Japanese,
// truncated. Whatever the input, the parser must not panic and must keep its
// contract.
func FuzzParseReply(f *testing.F) {
	f.Add(`{"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a"}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		reply, step := ParseReply(raw)
		if step == nil {
			t.Fatal("ParseReply returned no ParseStep")
		}
		if step.Raw != raw {
			t.Fatalf("step.Raw = %q, want the input", step.Raw)
		}
		if step.Outcome == "" {
			t.Fatal("step.Outcome is empty")
		}

		// Either a reply or an error: never both, never neither.
		if (reply == nil) == (step.Error == "") {
			t.Fatalf("reply = %+v with error %q: want exactly one", reply, step.Error)
		}
		if reply == nil {
			if !strings.Contains(step.Outcome, step.Error) {
				t.Fatalf("Outcome %q does not carry the error %q", step.Outcome, step.Error)
			}
			return
		}

		// What was extracted is a piece of the input and a JSON object.
		if !strings.Contains(raw, step.Extracted) {
			t.Fatalf("Extracted %q is not part of the input", step.Extracted)
		}
		if !json.Valid([]byte(step.Extracted)) || jsonKind(json.RawMessage(step.Extracted)) != "object" {
			t.Fatalf("Extracted %q is not a JSON object", step.Extracted)
		}
		if reply.ToolCall != nil {
			if strings.TrimSpace(reply.ToolCall.Name) == "" {
				t.Fatal("accepted a tool call without a name")
			}
			if !json.Valid(reply.ToolCall.Input) || jsonKind(reply.ToolCall.Input) != "object" {
				t.Fatalf("tool call input %q is not a JSON object", reply.ToolCall.Input)
			}
			if reply.Response != "" {
				t.Fatalf("a tool call also carries the response %q", reply.Response)
			}
		}

		// The extracted object alone parses to the same reply: the
		// tolerance lives only in the extraction.
		again, step2 := ParseReply(step.Extracted)
		if again == nil {
			t.Fatalf("the extracted object %q does not parse on its own: %s", step.Extracted, step2.Error)
		}
		if again.Thought != reply.Thought || again.Response != reply.Response || !reflect.DeepEqual(again.ToolCall, reply.ToolCall) {
			t.Fatalf("re-parsing the extracted object gave %+v, want %+v", again, reply)
		}
	})
}
