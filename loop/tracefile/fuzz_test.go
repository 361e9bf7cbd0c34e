package tracefile_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/tracefile"
)

// FuzzOpen: whatever the bytes, opening and reading them ends in steps
// and io.EOF or a final error — never a panic, never a step off the loop's
// table, never a loop without end.
func FuzzOpen(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "geminicli", "telemetry.json"),
		filepath.Join("testdata", "geminicli", "otlp.jsonl"),
		filepath.Join("testdata", "glassbox", "tour.otlp.jsonl"),
		filepath.Join("testdata", "geminicli", "mitmproxy.har"),
		filepath.Join("..", "..", "providers", "har", "testdata", "devtools.har"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/3])
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"chat m","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"tool_call_response\",\"id\":\"x\"}]}]"}}]}]}]}]}`))
	f.Add([]byte(`{"hrTime":[1,2],"attributes":{"event.name":"gemini_cli.api_response","prompt_id":"p","response_text":"[{\"candidates\":[]}]"}}`))
	f.Add([]byte(`{"log":{"version":"1.2","entries":[{"request":{"method":"POST","url":"http://h/v1/chat/completions","postData":{"text":"{\"messages\":[]}"}},"response":{"status":200,"content":{"text":"data: [DONE]\n\n"}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := tracefile.Open(bytes.NewReader(data), tracefile.Options{})
		if err != nil {
			return
		}
		state := loop.WaitingForEvent
		for n := 0; ; n++ {
			s, err := r.Next()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			if s.From != state {
				t.Fatalf("step %d leaves %s; the last one entered %s", s.Seq, s.From, state)
			}
			if to, ok := loop.Target(s.From, s.Edge); !ok || to != s.To {
				t.Fatalf("step %d: %s --%s--> %s is not on the table", s.Seq, s.From, s.Edge, s.To)
			}
			state = s.To
			if n > 4*len(data)+100 {
				t.Fatalf("%d steps from %d bytes", n, len(data))
			}
		}
	})
}
