package providers

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkMaskJSON is the Masker on a request body of a long conversation
// (64 KiB of JSON with escapes) that holds no secret: the common case, paid
// on every stored line.
func BenchmarkMaskJSON(b *testing.B) {
	var msgs []map[string]string
	for i := 0; len(msgs) < 400; i++ {
		msgs = append(msgs, map[string]string{"role": "user", "content": strings.Repeat("line of tool output\n", 8)})
	}
	doc, _ := json.Marshal(map[string]any{"messages": msgs})
	m := NewMasker("sk-live-Xq7Wm2Rb9Tz4Kp6Nd3Hs8Jv5")
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		m.MaskJSON(doc)
	}
}
