// capture answers Gemini CLI (Gemini API) and opencode (chat completions) with a
// two-step script — one tool call, then a text — and writes every request and
// its answer to DIR/NNN.{method,url,headers,request,response}.
package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var (
	dir = os.Args[1]
	mu  sync.Mutex
	n   int
)

func save(r *http.Request, body []byte, resp []byte) {
	mu.Lock()
	defer mu.Unlock()
	n++
	base := filepath.Join(dir, fmt.Sprintf("%03d", n))
	var h bytes.Buffer
	for k, v := range r.Header {
		if strings.Contains(strings.ToLower(k), "key") || strings.EqualFold(k, "authorization") {
			v = []string{"(masked)"}
		}
		fmt.Fprintf(&h, "%s: %s\n", k, strings.Join(v, ", "))
	}
	os.WriteFile(base+".meta", []byte(r.Method+" "+r.URL.RequestURI()+"\n"+h.String()), 0o644)
	os.WriteFile(base+".request", body, 0o644)
	os.WriteFile(base+".response", resp, 0o644)
}

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var resp string
		switch {
		case strings.Contains(r.URL.Path, ":streamGenerateContent") || strings.Contains(r.URL.Path, ":generateContent"):
			if bytes.Contains(body, []byte("functionResponse")) {
				resp = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"The folder holds hello.py and README.md.\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9100,\"candidatesTokenCount\": 11,\"totalTokenCount\": 9111,\"cachedContentTokenCount\": 8192},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"cap-2\"}\r\n\r\n"
			} else if bytes.Contains(body, []byte("list_directory")) {
				resp = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"list_directory\",\"args\": {\"dir_path\": \".\"}}}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9050,\"candidatesTokenCount\": 8,\"totalTokenCount\": 9058},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"cap-1\"}\r\n\r\n"
			} else {
				resp = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"{\\\"reasoning\\\": \\\"simple\\\", \\\"model_choice\\\": \\\"flash\\\"}\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 100,\"candidatesTokenCount\": 10,\"totalTokenCount\": 110},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n"
			}
			w.Header().Set("Content-Type", "text/event-stream")
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			w.Header().Set("Content-Type", "text/event-stream")
			stream := func(chunks ...string) string {
				var b strings.Builder
				for _, c := range chunks {
					b.WriteString("data: " + c + "\n\n")
				}
				b.WriteString("data: [DONE]\n\n")
				return b.String()
			}
			switch {
			case bytes.Contains(body, []byte(`"role":"tool"`)):
				resp = stream(`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":"The folder holds "}}]}`,
					`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"content":"hello.py and README.md."},"finish_reason":"stop"}]}`,
					`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m1","choices":[],"usage":{"prompt_tokens":7300,"completion_tokens":9,"total_tokens":7309,"prompt_tokens_details":{"cached_tokens":7168}}}`)
			case bytes.Contains(body, []byte(`"tools"`)):
				resp = stream(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]}}]}`,
					`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"filePath\":"}}]}}]}`,
					`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \".\"}"}}]},"finish_reason":"tool_calls"}]}`,
					`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[],"usage":{"prompt_tokens":7200,"completion_tokens":12,"total_tokens":7212}}`)
			default:
				resp = stream(`{"id":"c0","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":"Listing the files"},"finish_reason":"stop"}]}`)
			}
		default:
			w.WriteHeader(404)
			resp = `{"error":"not found"}`
		}
		save(r, body, []byte(resp))
		io.WriteString(w, resp)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[2], nil))
}
