package har_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/har"
	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// captured are real exchanges: the offline simulation's Gemini and
// OpenAI-compatible servers answering the real SDKs, through the capture —
// streamed replies with their chunks, and a 429 then a retry's 200.
func captured(t *testing.T) []providers.Exchange {
	t.Helper()
	var out []providers.Exchange
	for _, name := range []string{"gemini", "openai", "llama"} {
		d, err := backend.For(name, "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := backend.Choose(context.Background(), backend.Options{Dialect: d, Offline: true, Env: backend.EnvFrom(func(string) string { return "" })})
		if err != nil {
			t.Fatal(err)
		}
		for _, lesson := range []string{"tour", "rate-limit"} {
			l, _ := lessons.ByName(lesson)
			resp, _ := b.Provider.Call(context.Background(), providers.Request{
				System:   "You are a test.",
				Messages: []history.Message{{Role: history.RoleUser, Text: l.RequestIn("en")}},
				Tools:    []history.ToolSpec{{Name: "list_files", Description: "list"}},
			})
			if resp == nil || len(resp.Exchanges) == 0 {
				t.Fatalf("%s %s: no exchange", name, lesson)
			}
			out = append(out, resp.Exchanges...)
		}
		b.Close()
	}
	return out
}

func write(t *testing.T, xs []providers.Exchange) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := har.NewWriter(&buf, "test")
	start := time.Date(2026, 11, 28, 9, 0, 0, 123e6, time.UTC)
	for i, x := range xs {
		if err := w.Add(x, har.Meta{Started: start.Add(time.Duration(i) * time.Second), Kind: har.KindModel, Step: i + 3, Iteration: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t *testing.T, data []byte) ([]har.Entry, error) {
	t.Helper()
	r := har.NewReader(bytes.NewReader(data))
	var out []har.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// TestWriteIsHAR12 checks what glassbox writes against HAR 1.2's
// structure: every object and field the specification requires, with its
// type; send, wait and receive never negative, and time their sum.
func TestWriteIsHAR12(t *testing.T) {
	xs := captured(t)
	data := write(t, xs)
	if errs := validate(data); len(errs) > 0 {
		t.Fatalf("not HAR 1.2:\n%s", strings.Join(errs, "\n"))
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Timings  map[string]float64
				Response struct {
					Status  int
					Content struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	saw429 := false
	for i, e := range doc.Log.Entries {
		if e.Response.Content.Text != string(xs[i].ResponseBody) {
			t.Errorf("entry %d: the response text is not the body as it arrived", i+1)
		}
		if e.Timings["wait"] != float64(xs[i].TTFB.Microseconds())/1000 {
			t.Errorf("entry %d: wait %v, want the time to the first byte %v", i+1, e.Timings["wait"], xs[i].TTFB)
		}
		saw429 = saw429 || e.Response.Status == 429
	}
	if !saw429 {
		t.Error("the rate-limit lesson's 429 is not among the entries")
	}
}

// TestRoundTrip: every exchange glassbox writes reads back the same —
// bodies, headers, status, timings to the microsecond, chunks with their
// arrival, the redaction notes — with the step it belongs to.
func TestRoundTrip(t *testing.T) {
	xs := captured(t)
	xs[0].WireHeaders = []providers.WireHeader{{Name: "Host", Value: "h", Added: true}, {Name: "Content-Type", Value: "application/json"}, {Name: "X-Goog-Api-Key", Value: providers.RedactedMark}}
	xs[0].RequestHeaders = map[string][]string{"Content-Type": {"application/json"}, "X-Goog-Api-Key": {providers.RedactedMark}}
	xs[0].Redacted = []string{"header x-goog-api-key"}
	got, err := readAll(t, write(t, xs))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(xs) {
		t.Fatalf("read %d entries, wrote %d", len(got), len(xs))
	}
	for i, e := range got {
		want := xs[i]
		want.TTFB, want.Total = want.TTFB.Truncate(time.Microsecond), want.Total.Truncate(time.Microsecond)
		gotEx := e.Exchange
		gotEx.TTFB, gotEx.Total = gotEx.TTFB.Truncate(time.Microsecond), gotEx.Total.Truncate(time.Microsecond)
		if diff := compare(want, gotEx); diff != "" {
			t.Errorf("entry %d differs after the round trip: %s", i+1, diff)
		}
		if e.Meta.Kind != har.KindModel || e.Meta.Step != i+3 || e.Started.IsZero() || e.Index != i+1 {
			t.Errorf("entry %d meta = %+v started %v", i+1, e.Meta, e.Started)
		}
	}
}

// compare names the first field of an exchange that differs.
func compare(a, b providers.Exchange) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		if !reflect.DeepEqual(fa, fb) && !(emptyish(fa) && emptyish(fb)) {
			return fmt.Sprintf("%s: wrote %.200v, read %.200v", va.Type().Field(i).Name, fa, fb)
		}
	}
	return ""
}

func emptyish(v any) bool {
	rv := reflect.ValueOf(v)
	return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.Len() == 0
}

// TestReadBadInput: what is not a whole HAR file is a clear error, never
// a panic and never entries made up.
func TestReadBadInput(t *testing.T) {
	good := write(t, captured(t)[:2])
	cassette := `{"glassbox_cassette":1,"provider":"gemini"}` + "\n" + `{"method":"POST"}` + "\n"
	for _, tc := range []struct {
		name string
		data string
		want error
		read int // entries before the error
	}{
		{"empty", "", har.ErrNotHAR, 0},
		{"not JSON", "GET / HTTP/1.1\r\n", har.ErrNotHAR, 0},
		{"a JSON array", "[1,2]", har.ErrNotHAR, 0},
		{"JSON without log", `{"traces":[]}`, har.ErrNotHAR, 0},
		{"a cassette", cassette, har.ErrNotHAR, 0},
		{"an OTLP file", `{"resourceSpans":[{"scopeSpans":[]}]}`, har.ErrNotHAR, 0},
		{"entries not a list", `{"log":{"version":"1.2","entries":{}}}`, har.ErrNotHAR, 0},
		{"entry without request", `{"log":{"version":"1.2","entries":[{"startedDateTime":"x"}]}}`, har.ErrNotHAR, 0},
		{"cut in the header", string(good[:20]), har.ErrTruncated, 0},
		{"cut in the second entry", string(good[:len(good)*3/4]), har.ErrTruncated, 1},
		{"cut before the end", string(good[:len(good)-4]), har.ErrTruncated, 2},
		{"trailing garbage", string(good) + "{}", har.ErrNotHAR, 2},
		{"bad base64", `{"log":{"version":"1.2","entries":[{"request":{"method":"GET","url":"http://x/"},"response":{"status":200,"content":{"text":"%%%","encoding":"base64"}}}]}}`, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, []byte(tc.data))
			if err == nil {
				t.Fatalf("no error after %d entries", len(got))
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if len(got) != tc.read {
				t.Errorf("%d entries before the error, want %d", len(got), tc.read)
			}
		})
	}
}

// An entry larger than the reader's bound is refused, not read.
func TestReadEntryTooLarge(t *testing.T) {
	x := captured(t)[0]
	x.ResponseBody = bytes.Repeat([]byte("a"), 2<<20)
	x.Chunks = nil
	r := har.NewReader(bytes.NewReader(write(t, []providers.Exchange{x})))
	r.Max = 1 << 20
	if _, err := r.Next(); !errors.Is(err, har.ErrEntryTooLarge) {
		t.Errorf("err = %v, want ErrEntryTooLarge", err)
	}
}

// A foreign file's credentials are masked as the capture masks its own.
func TestReadMasks(t *testing.T) {
	const key = "AIzaSyD-a-key-somebody-left-in-a-har-file"
	data := `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{"startedDateTime":"2026-11-28T09:00:00.000Z","time":12,
	"request":{"method":"POST","url":"https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?key=` + key + `","httpVersion":"http/2.0",
	"headers":[{"name":":authority","value":"generativelanguage.googleapis.com"},{"name":"x-goog-api-key","value":"` + key + `"},{"name":"content-type","value":"application/json"}],
	"queryString":[],"cookies":[],"headersSize":-1,"bodySize":2,"postData":{"mimeType":"application/json","text":"{}"}},
	"response":{"status":200,"statusText":"","httpVersion":"http/2.0","headers":[],"cookies":[],"content":{"size":2,"mimeType":"application/json","text":"{}"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0},
	"cache":{},"timings":{"blocked":-1,"dns":-1,"ssl":-1,"connect":-1,"send":0.5,"wait":10,"receive":1.5},"_priority":"High","_resourceType":"fetch"}]}}`
	got, err := readAll(t, []byte(data))
	if err != nil || len(got) != 1 {
		t.Fatalf("read %d, %v", len(got), err)
	}
	ex := got[0].Exchange
	if strings.Contains(fmt.Sprint(ex), key) {
		t.Errorf("the key survived reading: %+v", ex)
	}
	if _, ok := ex.RequestHeaders[":authority"]; ok {
		t.Error("an HTTP/2 pseudo-header was read as a header")
	}
	if ex.TTFB != 10500*time.Microsecond || ex.Total != 12*time.Millisecond || ex.Status != 200 || string(ex.RequestBody) != "{}" {
		t.Errorf("read %+v", ex)
	}
}

// Reading a huge file holds one entry at a time: 1,000 entries of 128 KiB
// (an eighth of a GiB, never in memory at once) read with the heap far
// below the file's size.
func TestReadHugeFileBounded(t *testing.T) {
	x := captured(t)[0]
	x.ResponseBody = bytes.Repeat([]byte("x"), 128<<10)
	x.Chunks = nil
	pr, pw := io.Pipe()
	go func() {
		w := har.NewWriter(pw, "test")
		for i := 0; i < 1000; i++ {
			if err := w.Add(x, har.Meta{Started: time.Now()}); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Close())
	}()
	r := har.NewReader(pr)
	n := 0
	var peak uint64
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n%100 == 0 {
			peak = max(peak, heapInUse())
		}
	}
	if n != 1000 {
		t.Fatalf("read %d entries", n)
	}
	if peak > 32<<20 {
		t.Errorf("heap in use reached %d MiB reading a 128 MiB file", peak>>20)
	}
}

// TestReadOtherToolsHAR reads files other tools wrote (testdata/README.md):
// Chromium DevTools' "Save all as HAR" and Playwright's recorder. The
// Gemini call comes back whole — its request body, the streamed reply as
// the text that arrived, its status and timings — and the API key header
// is masked on the way in.
func TestReadOtherToolsHAR(t *testing.T) {
	for _, tc := range []struct{ file, creator string }{
		{"testdata/devtools.har", "WebInspector"},
		{"testdata/playwright.har", "Playwright"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := har.NewReader(f)
			var calls []har.Entry
			for {
				e, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(e.Exchange.URL, "/v1beta/models/") {
					calls = append(calls, e)
				}
			}
			if name, _ := r.Creator(); name != tc.creator || r.Version() != "1.2" {
				t.Errorf("creator %q version %q", name, r.Version())
			}
			if len(calls) != 2 {
				t.Fatalf("%d Gemini calls, want 2", len(calls))
			}
			stream, failed := calls[0].Exchange, calls[1].Exchange
			if stream.Method != "POST" || stream.Status != 200 || !strings.HasSuffix(stream.URL, ":streamGenerateContent?alt=sse") {
				t.Errorf("stream call: %s %s → %d", stream.Method, stream.URL, stream.Status)
			}
			var req struct{ Contents, Tools any }
			if err := json.Unmarshal(stream.RequestBody, &req); err != nil || req.Contents == nil || req.Tools == nil {
				t.Errorf("request body %q: %v", stream.RequestBody, err)
			}
			if n := strings.Count(string(stream.ResponseBody), "data: {"); n != 3 || !strings.Contains(string(stream.ResponseBody), "Cheyenne") {
				t.Errorf("the streamed reply has %d events: %q", n, stream.ResponseBody)
			}
			if got := http.Header(stream.RequestHeaders).Get("X-Goog-Api-Key"); got != providers.RedactedMark {
				t.Errorf("x-goog-api-key read as %q, want it masked", got)
			}
			if strings.Contains(fmt.Sprint(stream), "PLACEHOLDER") {
				t.Error("the key's value survived reading")
			}
			if stream.TTFB <= 0 || stream.Total < stream.TTFB+40*time.Millisecond || calls[0].Started.IsZero() {
				t.Errorf("timings: ttfb %v total %v started %v (the server streamed for at least 120 ms)", stream.TTFB, stream.Total, calls[0].Started)
			}
			if failed.Status != 400 || !strings.Contains(string(failed.ResponseBody), "INVALID_ARGUMENT") {
				t.Errorf("the failed call: %d %q", failed.Status, failed.ResponseBody)
			}
		})
	}
}
