package outside_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers"
)

// agentExchange reads one exchange a real agent made (captured in
// providers/wire/testdata/agents; its README says how).
func agentExchange(t *testing.T, agent, n string) providers.Exchange {
	t.Helper()
	dir := filepath.Join("..", "..", "providers", "wire", "testdata", "agents", agent)
	file := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n+ext))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	meta := file(".meta")
	sc := bufio.NewScanner(bytes.NewReader(meta))
	sc.Scan()
	method, target, _ := strings.Cut(sc.Text(), " ")
	return providers.Exchange{
		Method: method, URL: "http://127.0.0.1:8080" + target, Status: 200,
		ResponseHeaders: map[string][]string{"Content-Type": {"text/event-stream"}},
		RequestBody:     file(".request.json"), ResponseBody: file(".response"),
		TTFB: 40 * time.Millisecond, Total: 90 * time.Millisecond,
	}
}

func feed(b *outside.Builder, xs ...providers.Exchange) []loop.Transition {
	var out []loop.Transition
	for _, x := range xs {
		out = append(out, b.Exchange(x)...)
	}
	return out
}

// Gemini CLI's run, as a tap sees it: its request, its call, the tool it
// ran itself (inferred), the result in its next request, its answer.
func TestGeminiCLIRun(t *testing.T) {
	b := outside.New(outside.Options{Source: "tap", Backend: "tap"})
	got := feed(b, agentExchange(t, "geminicli", "001"), agentExchange(t, "geminicli", "002"))
	want := "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"
	if e := edges(got); e != want {
		t.Fatalf("edges\n got %s\nwant %s", e, want)
	}
	if ev := got[0].Event; ev.Source != "tap" || !strings.HasSuffix(ev.Data, "list the files here") || len(got[0].Added) != 1 {
		t.Fatalf("event %+v, added %d", ev, len(got[0].Added))
	}
	call := got[2]
	if call.LLM == nil || call.LLM.Provider != "gemini" || call.LLM.Model != "gemini-2.5-flash" || call.LLM.Backend != "tap" ||
		len(call.LLM.ToolCalls) != 1 || call.LLM.StopReason != "tool_use" || call.LLM.Usage.InputTokens != 9050 || len(call.Exchanges) != 1 {
		t.Fatalf("llm record %+v", call.LLM)
	}
	if len(got[1].Exchanges) != 1 || got[1].Exchanges[0].Status != 0 || len(got[1].Exchanges[0].RequestBody) == 0 {
		t.Fatalf("context_ready carries %d exchanges; the request alone is wanted", len(got[1].Exchanges))
	}
	ran := got[4]
	if ran.Tool.Name != "list_directory" || !strings.Contains(ran.Result.Content, "hello.py (15 bytes)") ||
		ran.Inferred != outside.InferredRun || got[3].Decision.Rule != outside.AgentRule {
		t.Fatalf("the run step %+v", ran)
	}
	if p := ran.Pending; len(p) != 1 || p[0].Status != loop.CallDone || p[0].Result == nil {
		t.Fatalf("pending %+v", p)
	}
	final := got[7]
	if final.LLM.Usage.CachedTokens != 8192 || final.LLM.Text != "The folder holds hello.py and README.md." || got[8].Output.Text != final.LLM.Text {
		t.Fatalf("final %+v", final.LLM)
	}
	if final.HistoryLen != 4 || got[6].HistoryLen != 3 {
		t.Fatalf("history lengths %d, %d", got[6].HistoryLen, final.HistoryLen)
	}
	if h := b.History(); len(h) != 4 || h[3].Text != final.LLM.Text || b.State() != loop.WaitingForEvent {
		t.Fatalf("history %d messages, state %s", len(h), b.State())
	}
	if got[6].Edit != nil {
		t.Fatalf("the second request continues the first; an edit was reported: %s", got[6].Edit.Summary())
	}
}

// opencode's run: a title call with no tools (a conversation of its own),
// then the agent's loop. The second conversation starts afresh: no edit.
func TestOpencodeRun(t *testing.T) {
	b := outside.New(outside.Options{})
	got := feed(b, agentExchange(t, "opencode", "001"), agentExchange(t, "opencode", "002"), agentExchange(t, "opencode", "003"))
	want := "new_event context_ready final_answer delivered* new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"
	if e := edges(got); e != want {
		t.Fatalf("edges\n got %s\nwant %s", e, want)
	}
	for _, s := range got {
		if s.Edit != nil {
			t.Fatalf("step %d reports an edit: %s", s.Seq, s.Edit.Summary())
		}
	}
	if got[4].Event.Data != `"list the files here"` || got[6].LLM.Provider != "openai" {
		t.Fatalf("event %+v, provider %s", got[4].Event, got[6].LLM.Provider)
	}
	if r := got[8].Result; r == nil || !strings.Contains(r.Content, `print("hello")`) || got[8].Tool.ID != "call_1" {
		t.Fatalf("result %+v", r)
	}
}

// A request whose history was edited (here: the tool's result rewritten
// before it went) says so on its context_ready, where the edit is.
func TestEditedHistory(t *testing.T) {
	first, second := agentExchange(t, "geminicli", "001"), agentExchange(t, "geminicli", "002")
	b := outside.New(outside.Options{})
	feed(b, first, second)
	// The same run again, the agent now sending an older result rewritten.
	third := second
	third.RequestBody = bytes.Replace(second.RequestBody, []byte("hello.py (15 bytes)"), []byte("hello.py (99 bytes)"), 1)
	third.ResponseBody = first.ResponseBody // it calls again
	got := b.Exchange(third)
	if e := edges(got); e != "new_event context_ready tool_call" {
		t.Fatalf("edges %s", e)
	}
	edit := got[1].Edit
	if edit == nil || len(edit.Messages) != 2 || edit.Messages[0].N != 3 || edit.Messages[0].Change != "changed" || !strings.Contains(edit.Messages[0].Diff, "99 bytes") {
		t.Fatalf("edit %+v", edit)
	}
	if got[0].Event.Type != "resent" {
		t.Fatalf("event %+v: the request carries no new message", got[0].Event)
	}
}

// A reply that is an HTTP error, and a stream cut short, end the call as a
// failure; the same request sent again starts over.
func TestFailedReplies(t *testing.T) {
	x := agentExchange(t, "geminicli", "001")
	quota := x
	quota.Status = 429
	quota.ResponseHeaders = map[string][]string{"Content-Type": {"application/json"}}
	quota.ResponseBody = []byte(`{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}`)
	cut := x
	cut.ResponseBody = x.ResponseBody[:len(x.ResponseBody)/2]
	cut.Err = "unexpected EOF"
	b := outside.New(outside.Options{})
	got := feed(b, quota, cut, x)
	want := "new_event context_ready llm_failure reported* new_event context_ready llm_failure reported* new_event context_ready tool_call"
	if e := edges(got); e != want {
		t.Fatalf("edges\n got %s\nwant %s", e, want)
	}
	if m := got[2].Error.Message; m != "the service answered HTTP 429: RESOURCE_EXHAUSTED: Quota exceeded" || got[2].LLM.HTTPStatus != 429 {
		t.Fatalf("error %q", m)
	}
	if m := got[6].Error.Message; !strings.Contains(m, "cut off after 0 records") || !strings.Contains(m, "unexpected EOF") {
		t.Fatalf("error %q", m)
	}
	if got[4].Event.Type != "resent" || got[3].Output == nil || !got[3].Output.Halted {
		t.Fatalf("event %+v output %+v", got[4].Event, got[3].Output)
	}
}

// A call no dialect reads is shown as a call glassbox could not read —
// once the loop is idle, so the agent's loop in progress is not broken —
// and a read-only call makes no step.
func TestUnknownAndPassThroughCalls(t *testing.T) {
	unknown := providers.Exchange{Method: "POST", URL: "http://127.0.0.1:8080/v1/responses", Status: 200,
		RequestBody: []byte(`{"model":"x","input":"hi"}`), ResponseBody: []byte(`{"output":[]}`)}
	tags := providers.Exchange{Method: "GET", URL: "http://127.0.0.1:8080/api/tags", Status: 200, ResponseBody: []byte(`{"models":[]}`)}
	b := outside.New(outside.Options{})
	var got []loop.Transition
	got = append(got, b.Exchange(tags)...)
	got = append(got, b.Exchange(agentExchange(t, "geminicli", "001"))...)
	got = append(got, b.Exchange(unknown)...)
	if e := edges(got); e != "new_event context_ready tool_call" {
		t.Fatalf("mid-loop: %s", e)
	}
	got = append(got, b.Exchange(agentExchange(t, "geminicli", "002"))...)
	want := "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered* new_event context_ready llm_failure reported*"
	if e := edges(got); e != want {
		t.Fatalf("edges\n got %s\nwant %s", e, want)
	}
	failed := got[11]
	if failed.Error.Kind != "unread_call" || !strings.Contains(failed.Error.Message, "POST /v1/responses is not a model call") ||
		!strings.Contains(failed.Error.Message, "/api/chat") || failed.Exchanges[0].URL != unknown.URL {
		t.Fatalf("%+v", failed.Error)
	}
	if got[9].Event.Type != "unread_call" || got[9].Event.Data != "POST /v1/responses" {
		t.Fatalf("event %+v", got[9].Event)
	}
}

// Fed as a tap feeds them — each request as it arrives, each reply when it
// is done — the steps are the same as whole exchanges give, and a second
// call arriving while one is in flight is taken up after it.
func TestRequestsAsTheyArrive(t *testing.T) {
	one, two := agentExchange(t, "geminicli", "001"), agentExchange(t, "geminicli", "002")
	whole := feed(outside.New(outside.Options{}), one, two)

	b := outside.New(outside.Options{})
	var got []loop.Transition
	got = append(got, b.Request(one)...)
	if e := edges(got); e != "new_event context_ready" || b.State() != loop.AwaitingLLMResponse {
		t.Fatalf("after the request: %s, %s", e, b.State())
	}
	got = append(got, b.Response(one)...)
	got = append(got, b.Request(two)...)
	got = append(got, b.Response(two)...)
	if edges(got) != edges(whole) {
		t.Fatalf("as they arrive: %s\nwhole: %s", edges(got), edges(whole))
	}
	a, _ := json.Marshal(got)
	w, _ := json.Marshal(whole)
	if !bytes.Equal(stripTimes(a), stripTimes(w)) {
		t.Fatalf("the records differ:\n%s\n%s", a, w)
	}

	// Two calls in flight at once: the second waits for the first.
	b = outside.New(outside.Options{})
	got = nil
	got = append(got, b.Request(one)...)
	got = append(got, b.Request(two)...)
	got = append(got, b.Response(two)...)
	if e := edges(got); e != "new_event context_ready" {
		t.Fatalf("the second call's reply came first: %s", e)
	}
	got = append(got, b.Response(one)...)
	if edges(got) != edges(whole) {
		t.Fatalf("interleaved: %s", edges(got))
	}
}

// stripTimes blanks the "time" fields of marshalled records.
func stripTimes(b []byte) []byte {
	var v []map[string]any
	_ = json.Unmarshal(b, &v)
	for _, m := range v {
		delete(m, "time")
	}
	out, _ := json.Marshal(v)
	return out
}
