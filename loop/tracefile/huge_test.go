package tracefile_test

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/tracefile"
)

// lines is a file made as it is read: head, then n records made by rec,
// joined by sep, then tail. Nothing of it is held but the record being
// read.
type lines struct {
	head, sep, tail string
	n, i            int
	rec             func(i int) string
	buf             []byte
	done            bool
}

func (l *lines) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		switch {
		case l.done:
			return 0, io.EOF
		case l.i == 0 && l.head != "":
			l.buf, l.head = []byte(l.head), ""
		case l.i < l.n:
			s := l.rec(l.i)
			if l.i > 0 {
				s = l.sep + s
			}
			l.buf = []byte(s)
			l.i++
		default:
			l.buf, l.done = []byte(l.tail), true
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// pad is a prompt of about 32 KiB, different in each call.
func pad(i int) string {
	return fmt.Sprintf("call %d: %s", i, strings.Repeat("words of a long prompt ", 1400))
}

// A huge file is read in bounded memory: about 50 MiB of each kind —
// 1,600 model calls — costs the heap a few MiB at any time, not the file
// (under the race detector, which reads ten times slower, 400 calls —
// about 12.5 MiB of each — against a bound of 8 MiB).
func TestHugeFilesInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 150 MiB (18 MiB under -race)")
	}
	calls := 1600
	if raceEnabled {
		calls = 400
	}
	otlp := func(i int) string {
		in := fmt.Sprintf(`[{"role":"user","parts":[{"type":"text","content":%q}]}]`, pad(i))
		out := `[{"role":"assistant","parts":[{"type":"text","content":"ok"}],"finish_reason":"stop"}]`
		return fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"chat m","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[`+
			`{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.provider.name","value":{"stringValue":"openai"}},{"key":"gen_ai.request.model","value":{"stringValue":"m"}},`+
			`{"key":"gen_ai.input.messages","value":{"stringValue":%q}},{"key":"gen_ai.output.messages","value":{"stringValue":%q}}]}]}]}]}`,
			1795890692000000000+int64(i)*1000, 1795890692000000500+int64(i)*1000, in, out)
	}
	outfile := func(i int) string {
		req := fmt.Sprintf(`[{"role":"user","parts":[{"text":%q}]}]`, pad(i))
		resp := `[{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP"}]}]`
		return fmt.Sprintf("{\n  \"hrTime\": [1795889915, %d],\n  \"attributes\": {\"event.name\": \"gemini_cli.api_request\", \"prompt_id\": \"p%d\", \"model\": \"gemini-2.5-flash\", \"request_text\": %q}\n}\n"+
			"{\n  \"hrTime\": [1795889916, %d],\n  \"attributes\": {\"event.name\": \"gemini_cli.api_response\", \"prompt_id\": \"p%d\", \"model\": \"gemini-2.5-flash\", \"status_code\": 200, \"response_text\": %q}\n}", i, i, req, i, i, resp)
	}
	entry := func(i int) string {
		body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]}`, pad(i))
		resp := `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP"}]}`
		return fmt.Sprintf(`{"startedDateTime":"2026-11-28T18:00:00Z","time":1,"request":{"method":"POST","url":"https://generativelanguage.googleapis.com/v1beta/models/m:generateContent","headers":[],"postData":{"mimeType":"application/json","text":%q}},"response":{"status":200,"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"mimeType":"application/json","text":%q}},"timings":{"send":0,"wait":1,"receive":0}}`, body, resp)
	}
	for _, tc := range []struct {
		kind string
		file *lines
	}{
		{tracefile.OTLP, &lines{sep: "\n", tail: "\n", n: calls, rec: otlp}},
		{tracefile.GeminiCLI, &lines{sep: "\n", tail: "\n", n: calls, rec: outfile}},
		{tracefile.HAR, &lines{head: `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[`, sep: ",", tail: "]}}", n: calls, rec: entry}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			runtime.GC()
			r, err := tracefile.Open(tc.file, tracefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind() != tc.kind {
				t.Fatalf("kind %q", r.Kind())
			}
			var peak uint64
			var ms runtime.MemStats
			n := 0
			for {
				s, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %d steps: %v", n, err)
				}
				n++
				if s.LLM != nil && s.LLM.Text != "ok" {
					t.Fatalf("step %d: %+v", s.Seq, s.LLM)
				}
				if n%400 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
			}
			if n != 4*calls {
				t.Fatalf("%d steps, want %d", n, 4*calls)
			}
			bound, size := uint64(12<<20), "50 MiB"
			if raceEnabled {
				bound, size = 8<<20, "12.5 MiB"
			}
			t.Logf("peak heap after a collection: %.1f MiB", float64(peak)/(1<<20))
			if peak > bound {
				t.Errorf("the heap held %.1f MiB after a collection while reading about %s; bound %d MiB", float64(peak)/(1<<20), size, bound>>20)
			}
		})
	}
}
