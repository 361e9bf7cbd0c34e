package history

import "testing"

func TestMarshalPlainKeepsCommandsReadable(t *testing.T) {
	v := map[string]string{"command": "ls && cat <a> | head"}
	b, err := MarshalPlain(v)
	if err != nil || string(b) != `{"command":"ls && cat <a> | head"}` {
		t.Fatalf("MarshalPlain = %s, %v", b, err)
	}
	b, err = MarshalPlainIndent(v, "  ")
	if err != nil || string(b) != "{\n  \"command\": \"ls && cat <a> | head\"\n}\n" {
		t.Fatalf("MarshalPlainIndent = %q, %v", b, err)
	}
}
