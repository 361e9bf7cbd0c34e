package anatomy_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// cpu is the process's CPU time so far: on a shared machine the wall
// time of a benchmark says as much about the neighbours as about the code.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bodies are 1 MiB requests of each family: a long conversation of a
// person's message, a model's call and the tool's result, over and over.
func bodies(size int) map[string]providers.Exchange {
	text := strings.Repeat("lorem ipsum ", 20)
	result := strings.Repeat(`line of a file, with \"quotes\"\n`, 12)
	turns := func(open, close string, turn func(i int) string) string {
		var b strings.Builder
		b.WriteString(open)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(turn(i))
		}
		b.WriteString(close)
		return b.String()
	}
	gemini := turns(`{"contents":[`, `],"systemInstruction":{"parts":[{"text":"Be helpful."}]},"tools":[{"functionDeclarations":[{"name":"read_file","parameters":{"type":"OBJECT"}}]}]}`, func(i int) string {
		return fmt.Sprintf(`{"role":"user","parts":[{"text":"message %d: %s"}]},{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"a%d.txt"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"%s"}}}]}`, i, text, i, result)
	})
	chat := func(prefix, call, tool string) string {
		return turns(prefix, `],"stream":true}`, func(i int) string {
			return fmt.Sprintf(`{"role":"user","content":"message %d: %s"},{"role":"assistant","content":"","tool_calls":[`+call+`]},`+tool, i, text, i, i, result)
		})
	}
	openai := chat(`{"model":"m","tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}],"messages":[{"role":"system","content":"Be helpful."},`,
		`{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a%d.txt\"}"}}`, `{"role":"tool","tool_call_id":"call_1","content":"%s"}`)
	ollama := chat(`{"model":"m","tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}],"messages":[{"role":"system","content":"Be helpful."},`,
		`{"id":"call_%d","function":{"index":0,"name":"read_file","arguments":{"path":"a%d.txt"}}}`, `{"role":"tool","tool_name":"read_file","content":"%s"}`)
	return map[string]providers.Exchange{
		"gemini": {Method: "POST", URL: "/v1beta/models/m:streamGenerateContent?alt=sse", RequestBody: []byte(gemini)},
		"openai": {Method: "POST", URL: "/v1/chat/completions", RequestBody: []byte(openai)},
		"ollama": {Method: "POST", URL: "/api/chat", RequestBody: []byte(ollama)},
	}
}

// BenchmarkSplit1MiB is issue 31's target: a 1 MiB request split into its
// parts, with their bytes and estimated tokens, in under 5 ms.
func BenchmarkSplit1MiB(b *testing.B) {
	for family, x := range bodies(1 << 20) {
		b.Run(family, func(b *testing.B) {
			b.SetBytes(int64(len(x.RequestBody)))
			start := cpu()
			for b.Loop() {
				c, ok, err := anatomy.FromExchange(backend.Wire(), x)
				if !ok || err != nil || c.Bytes != len(x.RequestBody) {
					b.Fatal(ok, err)
				}
			}
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
