package history

import (
	"encoding/json"
	"testing"
)

func TestCanonicalArgs(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"key order", `{"path":"a","content":"x"}`, `{"content":"x","path":"a"}`},
		{"white space", `{ "path" : "a" }`, `{"path":"a"}`},
		{"nested", `{"o":{"b":1,"a":2}}`, `{"o":{"a":2,"b":1}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := ToolCall{Name: "x", Args: json.RawMessage(tc.a)}.CanonicalArgs()
			b := ToolCall{Name: "x", Args: json.RawMessage(tc.b)}.CanonicalArgs()
			if a != b {
				t.Fatalf("%s != %s", a, b)
			}
		})
	}
	if a, b := (ToolCall{Args: json.RawMessage(`{"path":"a"}`)}).CanonicalArgs(), (ToolCall{Args: json.RawMessage(`{"path":"b"}`)}).CanonicalArgs(); a == b {
		t.Fatal("different arguments compare equal")
	}
	if got := (ToolCall{Args: json.RawMessage(` not json `)}).CanonicalArgs(); got != "not json" {
		t.Fatalf("invalid JSON = %q, want it trimmed and unchanged", got)
	}
}

func TestLogIsACheckpointedAppendOnlyList(t *testing.T) {
	var l Log
	if l.Len() != 0 || l.Messages() != nil {
		t.Fatal("a new log is not empty")
	}
	l.Append(Message{Role: RoleUser, Text: "1"}, Message{Role: RoleAssistant, Text: "2"})
	checkpoint := l.Len()
	l.Append(Message{Role: RoleUser, Text: "3"})
	earlier := l.Upto(checkpoint)
	if len(earlier) != 2 || earlier[1].Text != "2" {
		t.Fatalf("Upto(%d) = %+v", checkpoint, earlier)
	}
	// A view of the past cannot grow into the present.
	earlier = append(earlier, Message{Text: "x"})
	if l.Messages()[2].Text != "3" {
		t.Fatal("appending to a checkpoint view overwrote the log")
	}
	if got := len(l.Upto(99)); got != 3 {
		t.Fatalf("Upto beyond the end = %d messages", got)
	}
	if l.Upto(-1) != nil {
		t.Fatal("Upto(-1) is not empty")
	}
	before := l.Messages()
	l.Truncate(1)
	if l.Len() != 1 || l.Messages()[0].Text != "1" {
		t.Fatalf("after Truncate(1): %+v", l.Messages())
	}
	l.Append(Message{Text: "fork"})
	if before[1].Text != "2" || before[2].Text != "3" {
		t.Fatalf("a view taken before the fork changed: %+v", before)
	}
	var nilLog *Log
	if nilLog.Len() != 0 || nilLog.Upto(3) != nil {
		t.Fatal("a nil log is not empty")
	}
}

func TestJSONSchema(t *testing.T) {
	s := ToolSpec{Name: "t", Params: []ParamSpec{
		{Name: "path", Type: TypeString, Description: "p", Required: true},
		{Name: "tags", Type: TypeArray, Description: "t"},
	}}
	b, err := json.Marshal(s.JSONSchema())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"path":{"description":"p","type":"string"},"tags":{"description":"t","items":{"type":"string"},"type":"array"}},"required":["path"],"type":"object"}`
	if string(b) != want {
		t.Fatalf("schema\n got %s\nwant %s", b, want)
	}
}
