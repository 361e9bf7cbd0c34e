package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const generatePath = "/v1beta/models/gemini-2.5-flash:generateContent"

func recorded(url, body string, status int, response ...string) Exchange {
	ex := Exchange{
		Method:          "POST",
		URL:             url,
		RequestBody:     []byte(body),
		Status:          status,
		ResponseHeaders: map[string][]string{"Content-Type": {"application/json"}},
		ResponseBody:    []byte(strings.Join(response, "")),
	}
	if len(response) > 1 {
		for _, r := range response {
			ex.Chunks = append(ex.Chunks, Chunk{Data: []byte(r)})
		}
	}
	return ex
}

// replayClient puts the capture on top of the replay, as glassbox does.
func replayClient(c *Cassette) (*http.Client, *ReplayTransport, *[]Exchange) {
	replay := NewReplayTransport(c)
	capture := NewTransport(replay, testKey)
	var seen []Exchange
	capture.OnExchange = func(ex Exchange) { seen = append(seen, ex) }
	return &http.Client{Transport: capture}, replay, &seen
}

func post(t *testing.T, client *http.Client, url, body string) (*http.Response, string, error) {
	t.Helper()
	req := newRequest(t, context.Background(), http.MethodPost, url, body)
	req.Header.Set("x-goog-api-key", testKey)
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b), nil
}

func TestReplayServesTheRecordingInOrder(t *testing.T) {
	c := &Cassette{Exchanges: []Exchange{
		recorded("https://generativelanguage.googleapis.com"+generatePath, `{"n":1}`, 200, `{"first":true}`),
		recorded("https://generativelanguage.googleapis.com"+generatePath, `{"n":2}`, 429, `{"error":{"code":429}}`),
	}}
	client, replay, seen := replayClient(c)

	// The host differs from the recording's: replay compares paths only.
	resp1, body1, err := post(t, client, "http://127.0.0.1:1"+generatePath, `{"n":1}`)
	if err != nil {
		t.Fatal(err)
	}
	resp2, body2, err := post(t, client, "http://127.0.0.1:1"+generatePath, `{"n": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp1.StatusCode != 200 || body1 != `{"first":true}` || resp2.StatusCode != 429 || body2 != `{"error":{"code":429}}` {
		t.Errorf("served %d %s then %d %s, want the recording in order", resp1.StatusCode, body1, resp2.StatusCode, body2)
	}
	if resp1.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type = %q, want the recorded header", resp1.Header.Get("Content-Type"))
	}
	if d := replay.Divergences(); len(d) != 0 {
		t.Errorf("Divergences = %q, want none (the bodies are the same JSON)", d)
	}
	if len(*seen) != 2 || (*seen)[1].Status != 429 {
		t.Errorf("the capture saw %d exchanges, want both replayed ones", len(*seen))
	}

	_, _, err = post(t, client, "http://127.0.0.1:1"+generatePath+"?alt=sse", `{"n":3}`)
	want := "the cassette has no recorded exchange #3 for POST " + generatePath + "?alt=sse: it holds 2"
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, want) {
		t.Errorf("third call error = %v, want a *providers.Error saying %q", err, want)
	}
	if d := replay.Divergences(); len(d) != 1 || !strings.Contains(d[0], "#3") {
		t.Errorf("Divergences = %q, want the missing exchange listed", d)
	}
}

func TestReplayStreamsRecordedChunksAsSeparateReads(t *testing.T) {
	pieces := []string{"data: {\"a\":1}\r\n\r\n", "data: {\"a\":2}\r\n\r\n", "data: {\"a\":3}\r\n\r\n"}
	c := &Cassette{Exchanges: []Exchange{recorded("https://x.test/s", "", 200, pieces...)}}
	resp, err := NewReplayTransport(c).RoundTrip(newRequest(t, context.Background(), http.MethodPost, "https://x.test/s", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	var reads []string
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			reads = append(reads, string(buf[:n]))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(reads, "|") != strings.Join(pieces, "|") {
		t.Errorf("reads = %q, want one per recorded chunk: %q", reads, pieces)
	}
}

func TestReplayFlagsDivergences(t *testing.T) {
	const recordedBody = `{"contents":[{"role":"user","parts":[{"text":"list files"}]},{"role":"model","parts":[{"text":"ok"}]}],"key":"[REDACTED]"}`
	base := "https://generativelanguage.googleapis.com"
	tests := []struct {
		name   string
		method string
		url    string
		body   string
		want   string // "" for no divergence
	}{
		{"identical", "POST", base + generatePath, recordedBody, ""},
		{"same JSON, other spacing and key order", "POST", base + generatePath,
			`{ "key": "anything", "contents": [ {"parts":[{"text":"list files"}], "role":"user"}, {"role":"model","parts":[{"text":"ok"}]} ] }`, ""},
		{"a redacted query parameter is ignored", "POST", base + generatePath + "?key=" + testKey, recordedBody, ""},
		{"another method", "PUT", base + generatePath, recordedBody, "request method differs from recording #1: sent PUT, recorded POST"},
		{"another model", "POST", base + "/v1beta/models/gemini-2.0-flash:generateContent", recordedBody,
			"request URL differs from recording #1: sent /v1beta/models/gemini-2.0-flash:generateContent, recorded " + generatePath},
		{"another query", "POST", base + generatePath + "?alt=sse", recordedBody,
			"request URL differs from recording #1: sent " + generatePath + "?alt=sse, recorded " + generatePath},
		{"different text", "POST", base + generatePath,
			`{"contents":[{"role":"user","parts":[{"text":"list files"}]},{"role":"model","parts":[{"text":"no"}]}],"key":"x"}`,
			"request body differs from recording #1 at contents[1].parts[0].text"},
		{"an extra message", "POST", base + generatePath,
			`{"contents":[{"role":"user","parts":[{"text":"list files"}]},{"role":"model","parts":[{"text":"ok"}]},{"role":"user"}],"key":"x"}`,
			"request body differs from recording #1 at contents[2]"},
		{"a new field", "POST", base + generatePath,
			`{"contents":[{"role":"user","parts":[{"text":"list files"}]},{"role":"model","parts":[{"text":"ok"}]}],"key":"x","tools":[]}`,
			"request body differs from recording #1 at tools"},
		{"not JSON at all", "POST", base + generatePath, `hello`,
			"request body differs from recording #1 (it is not JSON, and 5 bytes were sent where " + strconv.Itoa(len(recordedBody)) + " were recorded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := recorded(base+generatePath+"?key="+RedactedMark, recordedBody, 200, `{}`)
			if tt.name != "a redacted query parameter is ignored" {
				rec.URL = base + generatePath
			}
			client, replay, seen := replayClient(&Cassette{Exchanges: []Exchange{rec}})
			req := newRequest(t, context.Background(), tt.method, tt.url, tt.body)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()

			if string(body) != `{}` {
				t.Errorf("served %q, want the recorded response even when the request differs", body)
			}
			if got := resp.Header.Get(DivergenceHeader); got != "" {
				t.Errorf("the SDK sees the %s header %q; the capture should have taken it", DivergenceHeader, got)
			}
			if got := (*seen)[0].Divergence; got != tt.want {
				t.Errorf("Exchange.Divergence = %q, want %q", got, tt.want)
			}
			wantList := 0
			if tt.want != "" {
				wantList = 1
			}
			if got := replay.Divergences(); len(got) != wantList || (wantList == 1 && got[0] != tt.want) {
				t.Errorf("Divergences() = %q, want [%q]", got, tt.want)
			}
		})
	}
}

func TestReplayRepeatsARecordedTransportError(t *testing.T) {
	rec := Exchange{Method: "POST", URL: "https://x.test/p", Err: "dial tcp 1.2.3.4:443: connect: connection refused"}
	_, err := NewReplayTransport(&Cassette{Exchanges: []Exchange{rec}}).RoundTrip(newRequest(t, context.Background(), http.MethodPost, "https://x.test/p", ""))
	if err == nil || err.Error() != "dial tcp 1.2.3.4:443: connect: connection refused" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error = %v, want the recorded refusal, as a refusal", err)
	}
}

func TestReplayHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	replay := NewReplayTransport(&Cassette{Exchanges: []Exchange{recorded("https://x.test/p", "", 200, "{}")}})
	_, err := replay.RoundTrip(newRequest(t, ctx, http.MethodPost, "https://x.test/p", ""))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	// The cancelled request did not use up the recording.
	resp, err := replay.RoundTrip(newRequest(t, context.Background(), http.MethodPost, "https://x.test/p", ""))
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("next call = %v, %v; want the recorded 200", resp, err)
	}
}

// A body edited by hand in the cassette is what gets served, even though the
// stale chunks of the recording are still there.
func TestReplayServesAHandEditedBody(t *testing.T) {
	rec := recorded("https://x.test/s", "", 200, `{"text":"old"}`)
	rec.ResponseBody = []byte(`{"text":"edited by the instructor"}`)
	c := &Cassette{Exchanges: []Exchange{rec}}
	resp, err := NewReplayTransport(c).RoundTrip(newRequest(t, context.Background(), http.MethodPost, "https://x.test/s", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"text":"edited by the instructor"}` {
		t.Fatalf("served %s", got)
	}
}

// A failure recorded while the body arrived replays as that body, in its
// reads, then the same kind of failure at the same point.
func TestReplayCutsTheBodyWhereTheRecordingWasCut(t *testing.T) {
	for _, tt := range []struct {
		err  string
		kind error
	}{
		{"the response body was cut off: unexpected EOF", io.ErrUnexpectedEOF},
		{"the response body was cut off: read tcp 127.0.0.1:5->127.0.0.1:6: read: connection reset by peer", syscall.ECONNRESET},
	} {
		rec := recorded("https://x.test/s", "", 200, "a\n", "b\n")
		rec.Err = tt.err
		resp, err := NewReplayTransport(&Cassette{Exchanges: []Exchange{rec}}).RoundTrip(newRequest(t, context.Background(), http.MethodPost, "https://x.test/s", ""))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("RoundTrip = %v, %v; want the recorded 200", resp, err)
		}
		got, err := io.ReadAll(resp.Body)
		if string(got) != "a\nb\n" || !errors.Is(err, tt.kind) || "the response body was cut off: "+err.Error() != tt.err {
			t.Errorf("body %q, error %v; want both lines, then %v", got, err, tt.kind)
		}
	}
}

// Issue 29: when a replay runs out of recorded exchanges, the error says
// what differs between the request and the recording — its path, its mode
// (streamed or unary), its model — and only when nothing does, that the
// run went further than the recording did.
func TestReplayRunningOutSaysWhatDiffers(t *testing.T) {
	unary := Exchange{Method: "POST", URL: "http://gemini.offline.invalid/v1beta/models/gemini-2.5-flash:generateContent",
		Status: 200, ResponseHeaders: map[string][]string{"Content-Type": {"application/json; charset=UTF-8"}},
		RequestBody: []byte(`{"contents":[]}`), ResponseBody: []byte(`{"candidates":[]}`)}
	header := CassetteHeader{Provider: "gemini", Model: "gemini-2.5-flash"}
	send := func(tr *ReplayTransport, target, body string) error {
		req, _ := http.NewRequest("POST", "http://gemini.offline.invalid"+target, strings.NewReader(body))
		resp, err := tr.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, tc := range []struct {
		name, target, body string
		want, not          []string
	}{
		{"streamed where the recording was unary", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`,
			[]string{"no recorded exchange #2", "recorded with gemini", "its path (the recording called POST /v1beta/models/gemini-2.5-flash:generateContent)", "its mode (stream; the recording is unary)"},
			[]string{"went further"}},
		{"another model", "/v1beta/models/gemini-2.5-pro:generateContent", `{"contents":[]}`,
			[]string{"its path", "its model (the recording asked gemini-2.5-flash)"}, []string{"its mode (", "went further"}},
		{"the same call, one more time", "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[]}`,
			[]string{"this run went further than the recording did (gemini)"}, []string{"differs in"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewReplayTransport(&Cassette{Header: header, Exchanges: []Exchange{unary}})
			send(tr, tc.target, tc.body) // served, flagged if it differs
			err := send(tr, tc.target, tc.body)
			if err == nil {
				t.Fatal("a second call was served from a cassette of one")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("the error says %q:\n%v", w, err)
				}
			}
		})
	}
}
