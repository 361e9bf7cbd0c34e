package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// The wire examples in testdata/ are copies of ../shared/wire-examples:
// gemini_request.json is the cookbook's second function-calling turn,
// gemini_response_thought_signature.json a reply carrying a
// thoughtSignature, ollama_stream_toolcall.ndjson a streamed tool call.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const geminiURL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"

func geminiExchange(t testing.TB) providers.Exchange {
	return providers.Exchange{
		Method: "POST",
		URL:    geminiURL,
		RequestHeaders: map[string][]string{
			"Content-Type":   {"application/json"},
			"X-Goog-Api-Key": {providers.RedactedMark},
			"User-Agent":     {"google-genai-sdk/1.77.0 gl-go/go1.26"},
		},
		RequestBody:     readTestdata(t, "gemini_request.json"),
		Status:          200,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/json; charset=UTF-8"}, "Server-Timing": {"gfet4t7; dur=1234"}},
		ResponseBody:    readTestdata(t, "gemini_response_thought_signature.json"),
		TTFB:            812 * time.Millisecond,
		Total:           845 * time.Millisecond,
		Redacted:        []string{"header x-goog-api-key"},
	}
}

// ollamaStream splits the NDJSON fixture into one chunk per line, arriving
// 12 ms apart, as the capture records a stream.
func ollamaStream(t testing.TB) providers.Exchange {
	body := readTestdata(t, "ollama_stream_toolcall.ndjson")
	var chunks []providers.Chunk
	for i, l := range bytes.SplitAfter(body, []byte("\n")) {
		if len(l) > 0 {
			chunks = append(chunks, providers.Chunk{Offset: time.Duration(120+12*i) * time.Millisecond, Data: l})
		}
	}
	return providers.Exchange{
		Method:          "POST",
		URL:             "http://127.0.0.1:11434/api/chat",
		RequestBody:     []byte(`{"model":"llama3.1:8b","messages":[{"role":"user","content":"latest Ollama release?"}],"stream":true}`),
		Status:          200,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/x-ndjson"}},
		ResponseBody:    body,
		Chunks:          chunks,
		TTFB:            120 * time.Millisecond,
		Total:           150 * time.Millisecond,
	}
}

func TestLinesGolden(t *testing.T) {
	gemini := geminiExchange(t)
	retry := gemini
	retry.Status = 503
	retry.ResponseBody = []byte(`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`)
	ollama := ollamaStream(t)
	jsonMode := providers.Exchange{
		Method: "POST", URL: "http://127.0.0.1:11434/api/chat", Status: 200,
		RequestBody:  []byte(`{"model":"llama3.1:8b","format":"json","stream":false}`),
		ResponseBody: []byte(`{"model":"llama3.1:8b","message":{"role":"assistant","content":"Sure! {\"thought\":\"list first\",\"tool_call\":{\"name\":\"list_files\",\"input\":{\"path\":\".\"}}}"},"done":true}`),
	}
	parseOK := &providers.ParseStep{
		Raw:       "Sure! Here is the call:\n```json\n{\"thought\":\"list first\",\"tool_call\":{\"name\":\"list_files\",\"input\":{\"path\":\".\"}}}\n```",
		Extracted: `{"thought":"list first","tool_call":{"name":"list_files","input":{"path":"."}}}`,
		Outcome:   `tool_call list_files {"path":"."}`,
	}
	parseBad := &providers.ParseStep{
		Raw:       `I think I should {"thought": "read it", "tool_call": {"name": "read_file", "input": {"path": "a.go"}`,
		Extracted: `{"thought": "read it", "tool_call": {"name": "read_file", "input": {"path": "a.go"}`,
		Error:     "unexpected end of JSON input: the object is not closed",
		Outcome:   "unexpected end of JSON input: the object is not closed",
	}
	transport := providers.Exchange{
		Method: "POST", URL: geminiURL + "?key=" + providers.RedactedMark,
		RequestBody: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`),
		Err:         `Post "https://generativelanguage.googleapis.com/...": dial tcp: lookup generativelanguage.googleapis.com: no such host`,
		Redacted:    []string{"query key"},
	}
	invalid := providers.Exchange{
		Method: "POST", URL: "http://127.0.0.1:11434/api/chat", Status: 200,
		RequestBody:  []byte(`{"model": "llama3.1:8b", "messages": [`),
		ResponseBody: []byte("{\"message\": {\"content\": \"日本語のテキストが長く続いて折り返されるかを確認するための文章です。\"}, \"done\": tru"),
	}
	binary := providers.Exchange{
		Method: "GET", URL: "http://127.0.0.1:11434/api/version", Status: 502,
		ResponseBody: []byte("\x00\x01\x02bin\xff\xfe\x1b[31mred\x1b[0m\r\n\tline two\x7f\u0085end\n"),
	}
	sse := providers.Exchange{
		Method: "POST", URL: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", Status: 200,
		ResponseBody: []byte("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}]}}]}\r\n\r\ndata: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}]},\"finishReason\": \"STOP\"}]}\r\n\r\n"),
	}

	// A real stream: two lines in one read, a line split across two
	// reads, and a last line the stream never finished.
	tok := func(s string) string {
		return `{"model":"llama3.1:8b","message":{"role":"assistant","content":"` + s + `"},"done":false}` + "\n"
	}
	reads := []string{tok("The"), tok(" weather") + tok(" in"), tok(" Tokyo")[:30], tok(" Tokyo")[30:], `{"model":"llama3.1:8b","mess`}
	readsEx := providers.Exchange{Method: "POST", URL: "http://127.0.0.1:11434/api/chat", Status: 200,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/x-ndjson"}}}
	for i, r := range reads {
		readsEx.Chunks = append(readsEx.Chunks, providers.Chunk{Offset: time.Duration(100+10*i) * time.Millisecond, Data: []byte(r)})
		readsEx.ResponseBody = append(readsEx.ResponseBody, r...)
	}

	// Gemini's stream as the capture records it: one chunk per event, the
	// last event split across two reads.
	event := func(text, finish string) string {
		return `data: {"candidates": [{"content": {"parts": [{"text": "` + text + `"}],"role": "model"}` + finish + `}]}` + "\r\n\r\n"
	}
	eventsEx := providers.Exchange{Method: "POST", URL: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", Status: 200,
		ResponseHeaders: map[string][]string{"Content-Type": {"text/event-stream"}},
		Chunks: []providers.Chunk{
			{Offset: 210 * time.Millisecond, Data: []byte(event("The", ""))},
			{Offset: 230 * time.Millisecond, Data: []byte(event(" capital", ""))},
			{Offset: 262 * time.Millisecond, Data: []byte(event(" is Cheyenne.", `,"finishReason": "STOP"`)), Reads: 2, Start: 251 * time.Millisecond},
		}}
	for _, c := range eventsEx.Chunks {
		eventsEx.ResponseBody = append(eventsEx.ResponseBody, c.Data...)
	}

	// Request headers as Go's transport wrote them for the genai client.
	wired := gemini
	wired.WireHeaders = []providers.WireHeader{
		{Name: "Host", Value: "generativelanguage.googleapis.com", Added: true},
		{Name: "User-Agent", Value: "google-genai-sdk/1.77.0 gl-go/go1.26"},
		{Name: "Content-Length", Value: "1432", Added: true},
		{Name: "Content-Type", Value: "application/json"},
		{Name: "X-Goog-Api-Key", Value: providers.RedactedMark},
		{Name: "Accept-Encoding", Value: "gzip", Added: true},
	}

	tests := []struct {
		name  string
		v     View
		width int
	}{
		{"ollama_stream_reads", View{Exchanges: []providers.Exchange{readsEx}, Response: true}, 100},
		{"gemini_stream_events", View{Exchanges: []providers.Exchange{eventsEx}, Response: true}, 100},
		{"wire_headers", View{Exchanges: []providers.Exchange{wired}, Headers: true}, 80},
		{"gemini_request", View{Exchanges: []providers.Exchange{gemini}}, 80},
		{"gemini_request_headers", View{Exchanges: []providers.Exchange{gemini}, Headers: true}, 80},
		{"gemini_response_signature", View{Exchanges: []providers.Exchange{gemini}, Response: true}, 80},
		{"gemini_response_headers_narrow", View{Exchanges: []providers.Exchange{gemini}, Response: true, Headers: true}, 36},
		{"gemini_retry_exchange", View{Exchanges: []providers.Exchange{retry, gemini}, Index: 0, Response: true}, 60},
		{"ollama_stream", View{Exchanges: []providers.Exchange{ollama}, Response: true}, 80},
		{"ollama_stream_narrow", View{Exchanges: []providers.Exchange{ollama}, Response: true}, 40},
		{"parse_success", View{Exchanges: []providers.Exchange{jsonMode}, Response: true, Parse: parseOK}, 70},
		{"parse_failure", View{Exchanges: []providers.Exchange{jsonMode}, Response: true, Parse: parseBad}, 70},
		{"transport_error_request", View{Exchanges: []providers.Exchange{transport}, Headers: true}, 70},
		{"transport_error_response", View{Exchanges: []providers.Exchange{transport}, Response: true}, 70},
		{"invalid_json", View{Exchanges: []providers.Exchange{invalid}}, 50},
		{"invalid_json_japanese", View{Exchanges: []providers.Exchange{invalid}, Response: true}, 31},
		{"binary", View{Exchanges: []providers.Exchange{binary}, Response: true}, 50},
		{"sse_body", View{Exchanges: []providers.Exchange{sse}, Response: true}, 70},
		{"divergence", View{Exchanges: []providers.Exchange{jsonMode}, Divergence: "the request's messages[1].content differs from the cassette"}, 60},
		{"no_exchange", View{}, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := NewRenderer().Lines(theme.New(true), tt.v, tt.width)
			checkWidth(t, lines, tt.width)
			golden.RequireEqual(t, []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}

// checkWidth fails if any line is wider than width or holds a control
// character other than an SGR escape.
func checkWidth(t *testing.T, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := lipgloss.Width(l); w > width {
			t.Fatalf("line %d is %d cells wide (max %d): %q", i, w, width, l)
		}
		if s := ansi.Strip(l); strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }) {
			t.Fatalf("line %d holds a control character: %q", i, s)
		}
	}
}

// TestPrettyKeepsKeyOrder checks the printer re-indents the body's own
// tokens: same tokens, same order, and the result parses to the same value.
func TestPrettyKeepsKeyOrder(t *testing.T) {
	inputs := []string{
		`{"z":1,"a":{"y":[1,2.50,{"x":null}],"b":true},"m":"\u00e9\"q","e":[],"o":{}}`,
		`[]`,
		`[[[]]]`,
		string(readTestdata(t, "gemini_request.json")),
	}
	for i, in := range inputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var d document
			d.writeJSON(in, true, 0)
			var out strings.Builder
			for i, l := range d.lines {
				out.WriteString(strings.Repeat(" ", int(l.indent)))
				for _, s := range d.spansOf(i) {
					out.WriteString(s.text())
				}
				out.WriteByte('\n')
			}
			var want bytes.Buffer
			if err := json.Indent(&want, []byte(in), "", "  "); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != strings.TrimSpace(want.String()) {
				t.Errorf("pretty output differs from json.Indent:\n%s\nwant:\n%s", got, want.String())
			}
		})
	}
}

func TestLinesWidthBounds(t *testing.T) {
	gemini := geminiExchange(t)
	ollama := ollamaStream(t)
	wide := providers.Exchange{Method: "POST", URL: "http://x/日本語", Status: 200,
		ResponseBody: []byte(`{"text":"日本語のテキスト🙂👍🏽 e\u0301 ` + strings.Repeat("長い", 40) + `"}`)}
	deep := providers.Exchange{Method: "POST", URL: "http://x", Status: 200,
		ResponseBody: []byte(strings.Repeat("[", 300) + strings.Repeat("]", 300))}
	views := []View{
		{Exchanges: []providers.Exchange{gemini}, Headers: true},
		{Exchanges: []providers.Exchange{gemini}, Response: true, Headers: true, Divergence: "x"},
		{Exchanges: []providers.Exchange{ollama}, Response: true},
		{Exchanges: []providers.Exchange{wide}, Response: true},
		{Exchanges: []providers.Exchange{deep}, Response: true},
		{Exchanges: []providers.Exchange{gemini}, Index: 7, Response: true, Parse: &providers.ParseStep{Raw: "日本語\x00", Extracted: "{", Error: "bad"}},
		{Exchanges: []providers.Exchange{gemini}, Index: -3},
	}
	for i, v := range views {
		for _, width := range []int{-1, 0, 1, 2, 3, 5, 8, 13, 40, 80, 161, 500} {
			lines := NewRenderer().Lines(theme.New(false), v, width)
			if width <= 0 {
				if len(lines) != 0 {
					t.Errorf("view %d width %d: want no lines, got %d", i, width, len(lines))
				}
				continue
			}
			if len(lines) == 0 {
				t.Errorf("view %d width %d: no lines", i, width)
			}
			checkWidth(t, lines, width)
		}
	}
}

func TestLinesCache(t *testing.T) {
	r := NewRenderer()
	th := theme.New(true)
	v := View{Exchanges: []providers.Exchange{geminiExchange(t)}, Response: true}

	first := r.Lines(th, v, 80)
	same := r.Lines(th, v, 80)
	if &first[0] != &same[0] {
		t.Error("same inputs: want the cached slice")
	}

	// A copy of the View with the same exchange is still a hit.
	copied := View{Exchanges: append([]providers.Exchange(nil), v.Exchanges...), Response: true}
	if got := r.Lines(th, copied, 80); &got[0] != &first[0] {
		t.Error("same exchange bytes in a copied slice: want the cached slice")
	}

	narrow := r.Lines(th, v, 40)
	if &narrow[0] == &first[0] {
		t.Error("different width: want a new slice")
	}
	if len(narrow) <= len(first) {
		t.Errorf("narrower width should wrap into more lines: %d vs %d", len(narrow), len(first))
	}

	req := r.Lines(th, View{Exchanges: v.Exchanges}, 80)
	if &req[0] == &first[0] || strings.Join(req, "\n") == strings.Join(first, "\n") {
		t.Error("request view returned the response's lines")
	}

	// Flipping back to the response at 80 is still cached.
	if got := r.Lines(th, v, 80); &got[0] != &first[0] {
		t.Error("flipping back: want the cached slice")
	}

	// A theme that paints differently recomputes.
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	coloured := r.Lines(theme.New(false), v, 80)
	if &coloured[0] == &first[0] || coloured[1] == first[1] {
		t.Error("different theme: want repainted lines")
	}

	// New bytes in the same exchange slot recompute.
	changed := v
	changed.Exchanges = []providers.Exchange{v.Exchanges[0]}
	changed.Exchanges[0].ResponseBody = []byte(`{"changed":true}`)
	if got := r.Lines(th, changed, 80); &got[0] == &first[0] {
		t.Error("new body: want new lines")
	}
}

// A page already painted costs a lookup: the theme's brushes are found
// once per theme, colour profile and background, not on every call (each
// is a lipgloss Render); another background repaints.
func TestCachedLinesFindTheBrushesOnce(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	dark := lipgloss.HasDarkBackground()
	defer func() { lipgloss.SetColorProfile(termenv.Ascii); lipgloss.SetHasDarkBackground(dark) }()
	lipgloss.SetHasDarkBackground(true)
	r, th := NewRenderer(), theme.New(false)
	v := View{Exchanges: []providers.Exchange{geminiExchange(t)}, Response: true}
	first := r.Lines(th, v, 80)
	if n := testing.AllocsPerRun(100, func() { r.Lines(th, v, 80) }); n > 2 {
		t.Errorf("a cached page costs %v allocations: the brushes are found again", n)
	}
	lipgloss.SetHasDarkBackground(false)
	if light := r.Lines(th, v, 80); strings.Join(light, "\n") == strings.Join(first, "\n") {
		t.Error("a light background: want the lines painted in the light colours")
	}
}

// bigJSON builds a realistic ~1 MiB request body: a long conversation.
func bigJSON(tb testing.TB) []byte {
	var b bytes.Buffer
	b.WriteString(`{"contents":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","parts":[{"text":"message %d: please read main.go and explain what the loop does, step by step"}]},`, i)
		fmt.Fprintf(&b, `{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"main.go","limit":%d,"exact":true}}}]}`, i)
	}
	b.WriteString(`],"tools":[{"functionDeclarations":[{"name":"read_file"}]}]}`)
	if !json.Valid(b.Bytes()) {
		tb.Fatal("bigJSON is not valid")
	}
	return b.Bytes()
}

func TestLinesLargeBody(t *testing.T) {
	v := View{Exchanges: []providers.Exchange{{Method: "POST", URL: geminiURL, RequestBody: bigJSON(t)}}}
	lines := NewRenderer().Lines(theme.New(false), v, 80)
	if len(lines) < 10000 {
		t.Fatalf("1 MiB body gave only %d lines", len(lines))
	}
	checkWidth(t, lines[:2000], 80)
}

// Late in a long session one request is megabytes: the Renderer keeps the
// page of one large result at a time and no large document (a resize
// builds it again), and the small ones beside it, so flipping to the
// response and back to the same request costs no rebuild of the small side.
func TestLinesKeepsOneLargeResult(t *testing.T) {
	big := func(n int) providers.Exchange {
		body := bytes.Repeat([]byte(`{"a":1},`), n)
		body = append(append([]byte(`[`), body...), `{}]`...)
		return providers.Exchange{Method: "POST", URL: geminiURL, RequestBody: body, ResponseBody: []byte(`{"ok":true}`)}
	}
	r := NewRenderer()
	th := theme.New(true)
	first := View{Exchanges: []providers.Exchange{big(keepBytes / 6)}}
	second := View{Exchanges: []providers.Exchange{big(keepBytes/6 + 1)}}
	large := func() (docs, pages int) {
		for _, d := range r.documents {
			if d.key.size() > keepBytes {
				docs++
			}
		}
		for _, p := range r.pages {
			if p.key.content.size() > keepBytes {
				pages++
			}
		}
		return docs, pages
	}

	r.Lines(th, first, 80)
	resp := first
	resp.Response = true
	small := r.Lines(th, resp, 80)
	if d, p := large(); d != 0 || p != 1 {
		t.Fatalf("after a large request and its response: %d large documents, %d large pages; want 0 and 1", d, p)
	}
	if got := r.Lines(th, resp, 80); &got[0] != &small[0] {
		t.Error("the small response was not kept beside the large request")
	}
	r.Lines(th, second, 80)
	if d, p := large(); d != 0 || p != 1 {
		t.Fatalf("after a second large request: %d large documents, %d large pages; want 0 and 1", d, p)
	}
	if r.pages[0].key.content.requestBody != identify(second.Exchanges[0].RequestBody) {
		t.Error("the large page kept is not the latest")
	}
	again := r.Lines(th, second, 80)
	r.Lines(th, second, 60) // a resize: the document built again, a new page
	if d, p := large(); d != 0 || p != 1 {
		t.Fatalf("after a resize: %d large documents, %d large pages; want 0 and 1", d, p)
	}
	if got := r.Lines(th, second, 60); len(got) <= len(again) {
		t.Errorf("at 60 columns the request wraps into %d lines, at 80 into %d", len(got), len(again))
	}
}

func BenchmarkLinesCold(b *testing.B) {
	v := View{Exchanges: []providers.Exchange{{Method: "POST", URL: geminiURL, RequestBody: bigJSON(b)}}}
	th := theme.New(false)
	b.SetBytes(int64(len(v.Exchanges[0].RequestBody)))
	for b.Loop() {
		NewRenderer().Lines(th, v, 80)
	}
}

func BenchmarkLinesCached(b *testing.B) {
	v := View{Exchanges: []providers.Exchange{{Method: "POST", URL: geminiURL, RequestBody: bigJSON(b)}}}
	th := theme.New(false)
	r := NewRenderer()
	r.Lines(th, v, 80)
	for b.Loop() {
		r.Lines(th, v, 80)
	}
}

func BenchmarkLinesResize(b *testing.B) {
	v := View{Exchanges: []providers.Exchange{{Method: "POST", URL: geminiURL, RequestBody: bigJSON(b)}}}
	th := theme.New(false)
	r := NewRenderer()
	widths := []int{80, 81, 82, 83, 84, 85} // more than the Renderer keeps
	i := 0
	for b.Loop() {
		r.Lines(th, v, widths[i%len(widths)]) // the document is cached, the wrap is not
		i++
	}
}

// A single JSON document is pretty-printed whole even when it arrived in
// several reads; only streams of records are listed chunk by chunk.
func TestJSONReadInPiecesIsPrettyPrinted(t *testing.T) {
	body := []byte(`{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"}}]}`)
	ex := providers.Exchange{
		Method: "POST", URL: "http://x/v1beta/models/m:generateContent", Status: 200,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/json; charset=UTF-8"}},
		ResponseBody:    body,
		Chunks:          []providers.Chunk{{Offset: time.Millisecond, Data: body[:20]}, {Offset: 2 * time.Millisecond, Data: body[20:]}},
	}
	lines := NewRenderer().Lines(theme.New(true), View{Exchanges: []providers.Exchange{ex}, Response: true}, 80)
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "read in 2 pieces") || !strings.Contains(text, `"text": "hi"`) {
		t.Fatalf("want the body pretty-printed with a note of its pieces:\n%s", text)
	}
	if strings.Contains(text, "as they arrived") {
		t.Fatalf("a JSON document was listed as stream chunks:\n%s", text)
	}
}
