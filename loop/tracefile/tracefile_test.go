package tracefile_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/loop/tracefile"
	"github.com/glassbox-dev/glassbox/providers/har"
	"github.com/glassbox-dev/glassbox/providers/spans"
)

// steps reads every step of the file at path.
func steps(t *testing.T, path string) ([]loop.Transition, *tracefile.Reader) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := tracefile.Open(f, tracefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []loop.Transition
	for {
		s, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r
		}
		if err != nil {
			t.Fatalf("after %d steps: %v", len(out), err)
		}
		out = append(out, s)
	}
}

// edges lists the steps' edges, an inferred one marked with *.
func edges(ts []loop.Transition) string {
	var out []string
	for _, t := range ts {
		e := string(t.Edge)
		if t.Inferred != "" {
			e += "*"
		}
		out = append(out, e)
	}
	return strings.Join(out, " ")
}

const geminiCLIRun = "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered*"

// Gemini CLI's telemetry outfile (a real one; testdata/README.md): the
// loop of its run, with the conversation it logged, the system prompt and
// tools of its llm_call spans, its tool call and result, and the tokens.
func TestGeminiCLIOutfile(t *testing.T) {
	got, r := steps(t, filepath.Join("testdata", "geminicli", "telemetry.json"))
	checkGeminiCLIRun(t, got)
	if r.Kind() != tracefile.GeminiCLI {
		t.Errorf("kind %q", r.Kind())
	}
	if m := r.Missing(); len(m) != 1 || m[0] != spans.NoBytes {
		t.Errorf("missing %q: the file has prompts, replies, system, tools and tokens; it has no bytes", m)
	}
	if len(got[1].Exchanges)+len(got[2].Exchanges) != 0 {
		t.Error("a trace of messages has no exchanges to show")
	}
}

// The same agent exporting over OTLP/HTTP, written as the collector's file
// exporter writes: its logs (resourceLogs) give the same steps.
func TestGeminiCLIOverOTLP(t *testing.T) {
	got, r := steps(t, filepath.Join("testdata", "geminicli", "otlp.jsonl"))
	checkGeminiCLIRun(t, got)
	if r.Kind() != tracefile.OTLP {
		t.Errorf("kind %q", r.Kind())
	}
}

// The same agent's HTTP, saved by mitmproxy 8.1.1 (its har_dump script)
// between Gemini CLI and the server: the loop read from the bytes, each
// call's exchange on its steps.
func TestGeminiCLIThroughMitmproxy(t *testing.T) {
	got, r := steps(t, filepath.Join("testdata", "geminicli", "mitmproxy.har"))
	checkGeminiCLIRun(t, got)
	if len(got[1].Exchanges) != 1 || len(got[2].Exchanges) != 1 || got[2].Exchanges[0].Status != 200 {
		t.Errorf("the call's exchange is not on its steps: %d, %d", len(got[1].Exchanges), len(got[2].Exchanges))
	}
	if r.Kind() != tracefile.HAR || !strings.HasPrefix(r.Creator(), "mitmproxy") || len(r.Missing()) != 0 {
		t.Errorf("kind %q, creator %q, missing %q", r.Kind(), r.Creator(), r.Missing())
	}
}

func checkGeminiCLIRun(t *testing.T, got []loop.Transition) {
	t.Helper()
	if e := edges(got); e != geminiCLIRun {
		t.Fatalf("edges\n got %s\nwant %s", e, geminiCLIRun)
	}
	if ev := got[0].Event; ev.Source != "open" || !strings.HasSuffix(ev.Data, "list the files here") {
		t.Errorf("event %+v", ev)
	}
	call := got[2].LLM
	if call.Provider != "gemini" || call.Model != "gemini-2.5-flash" || call.Backend != "file" || call.Usage.InputTokens != 9050 ||
		len(call.ToolCalls) != 1 || call.ToolCalls[0].Name != "list_directory" || call.HTTPStatus != 200 {
		t.Errorf("the call %+v", call)
	}
	ran := got[4]
	if !strings.Contains(ran.Result.Content, "hello.py (12 bytes)") || ran.Tool.ID != call.ToolCalls[0].ID || ran.Inferred != outside.InferredRun {
		t.Errorf("the tool's result %+v (call id %q)", ran, call.ToolCalls[0].ID)
	}
	final := got[7]
	if final.LLM.Text != "The folder holds hello.py and README.md." || final.LLM.Usage.CachedTokens != 8192 || got[6].Edit != nil {
		t.Errorf("the answer %+v", final.LLM)
	}
}

// glassbox's own spans (--otlp-content), as the collector's file exporter
// writes them, show the run's own steps again: the same edges (the agent's
// steps inferred from outside), tool calls, results and answer.
func TestGlassboxOTLPFile(t *testing.T) {
	got, r := steps(t, filepath.Join("testdata", "glassbox", "tour.otlp.jsonl"))
	if r.Kind() != tracefile.OTLP {
		t.Errorf("kind %q", r.Kind())
	}
	want := readTrace(t, filepath.Join("testdata", "glassbox", "tour.trace.jsonl"))
	sameSteps(t, got, want)
}

// sameSteps compares an opened file's steps with the run that made it.
func sameSteps(t *testing.T, got, want []loop.Transition) {
	t.Helper()
	if strings.ReplaceAll(edges(got), "*", "") != edges(want) {
		t.Fatalf("edges\n got %s\nwant %s", edges(got), edges(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Iteration != w.Iteration || (w.Tool == nil) != (g.Tool == nil) || (w.Result == nil) != (g.Result == nil) {
			t.Fatalf("step %d: got %+v\nwant %+v", w.Seq, g, w)
		}
		if w.Tool != nil && (g.Tool.Name != w.Tool.Name || g.Tool.CanonicalArgs() != w.Tool.CanonicalArgs()) {
			t.Errorf("step %d: tool %+v, want %+v", w.Seq, g.Tool, w.Tool)
		}
		if w.Result != nil && g.Result.Content != w.Result.Content {
			t.Errorf("step %d: result %q, want %q", w.Seq, g.Result.Content, w.Result.Content)
		}
		if w.LLM != nil && (g.LLM.Text != w.LLM.Text || g.LLM.Model != w.LLM.Model || g.LLM.Usage.InputTokens != w.LLM.Usage.InputTokens ||
			g.LLM.Usage.OutputTokens != w.LLM.Usage.OutputTokens || len(g.LLM.ToolCalls) != len(w.LLM.ToolCalls)) {
			t.Errorf("step %d: llm %+v\nwant %+v", w.Seq, g.LLM, w.LLM)
		}
		if w.Output != nil && g.Output.Text != w.Output.Text {
			t.Errorf("step %d: output %q, want %q", w.Seq, g.Output.Text, w.Output.Text)
		}
	}
}

func readTrace(t *testing.T, path string) []loop.Transition {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []loop.Transition
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr loop.Transition
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Edge != "" {
			out = append(out, tr)
		}
	}
	return out
}

// HAR files saved by Chromium's DevTools and by Playwright (made by those
// tools; providers/har/testdata/README.md): a Gemini call answered, then
// one refused with HTTP 400.
func TestBrowserHARs(t *testing.T) {
	want := "new_event context_ready final_answer delivered* new_event context_ready llm_failure reported*"
	for _, name := range []string{"devtools.har", "playwright.har"} {
		t.Run(name, func(t *testing.T) {
			got, r := steps(t, filepath.Join("..", "..", "providers", "har", "testdata", name))
			if e := edges(got); e != want {
				t.Fatalf("edges\n got %s\nwant %s", e, want)
			}
			if got[2].LLM.Text != "The capital of Wyoming is **Cheyenne**.\n" || len(got[1].Exchanges) != 1 || got[6].LLM.HTTPStatus != 400 {
				t.Errorf("the answer %+v, the failure %+v", got[2].LLM, got[6].LLM)
			}
			if r.Kind() != tracefile.HAR || r.Creator() == "" || len(r.Missing()) != 0 {
				t.Errorf("kind %q, creator %q, missing %q", r.Kind(), r.Creator(), r.Missing())
			}
		})
	}
}

// A file of another kind, an empty one, one cut off: a clear error that
// names what glassbox reads or what is wrong, never a panic; the steps
// read before a break stand.
func TestBadFiles(t *testing.T) {
	outfile, err := os.ReadFile(filepath.Join("testdata", "geminicli", "telemetry.json"))
	if err != nil {
		t.Fatal(err)
	}
	otlp, err := os.ReadFile(filepath.Join("testdata", "glassbox", "tour.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	devtools, err := os.ReadFile(filepath.Join("..", "..", "providers", "har", "testdata", "devtools.har"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data string
		open       error // at Open
		read       error // at Next
	}{
		{name: "empty", data: "", open: tracefile.ErrUnknownKind},
		{name: "Go source", data: "package main\n", open: tracefile.ErrUnknownKind},
		{name: "JSON array", data: "[1, 2]", open: tracefile.ErrUnknownKind},
		{name: "package.json", data: `{"name": "x", "version": "1.0.0"}`, open: tracefile.ErrUnknownKind},
		{name: "HAR cut off", data: string(devtools[:len(devtools)/2]), read: har.ErrTruncated},
		{name: "HAR with no model call", data: `{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "http://example.test/index.html"}, "response": {"status": 200}}]}}`, read: har.ErrNotHAR},
		{name: "outfile cut off", data: string(outfile[:len(outfile)-200]), read: spans.ErrTruncated},
		{name: "OTLP cut off", data: string(otlp[:len(otlp)/2]), read: spans.ErrTruncated},
		{name: "OTLP with no call", data: `{"resourceMetrics": []}`, read: spans.ErrNotSpans},
		{name: "OTLP then garbage", data: string(otlp) + "\nnot json", read: spans.ErrNotSpans},
		{name: "OTLP of the wrong shape", data: `{"resourceSpans": {"a": 1}}`, read: spans.ErrNotSpans},
		{name: "outfile then OTLP", data: string(outfile) + string(otlp), read: spans.ErrNotSpans},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tracefile.Open(strings.NewReader(tc.data), tracefile.Options{})
			if tc.open != nil {
				if !errors.Is(err, tc.open) {
					t.Fatalf("open: %v, want %v", err, tc.open)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				_, err = r.Next()
				if err != nil {
					break
				}
				n++
			}
			if !errors.Is(err, tc.read) {
				t.Fatalf("after %d steps: %v, want %v", n, err, tc.read)
			}
			if _, again := r.Next(); again == nil || again.Error() != err.Error() {
				t.Errorf("the error is not final: %v", again)
			}
		})
	}
}

// A HAR file saved from a browser holds the page too: entries that are no
// model call make no step and are counted; a model call whose response
// body the tool left out is named as missing.
func TestHARWithPagesAndNoBodies(t *testing.T) {
	file := `{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
{"startedDateTime": "2026-11-28T18:00:00Z", "request": {"method": "GET", "url": "http://127.0.0.1:8080/index.html"}, "response": {"status": 200, "content": {"text": "<html></html>"}}},
{"startedDateTime": "2026-11-28T18:00:01Z", "request": {"method": "POST", "url": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
  "postData": {"mimeType": "application/json", "text": "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}"}},
 "response": {"status": 200, "content": {"size": 120, "mimeType": "application/json"}}},
{"startedDateTime": "2026-11-28T18:00:02Z", "request": {"method": "GET", "url": "http://127.0.0.1:8080/favicon.ico"}, "response": {"status": 404}}]}}`
	r, err := tracefile.Open(strings.NewReader(file), tracefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []loop.Transition
	for {
		s, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if e := edges(got); e != "new_event context_ready llm_failure reported*" {
		t.Fatalf("edges %s", e)
	}
	if r.Skipped() != 2 {
		t.Errorf("skipped %d entries, want the page and the icon", r.Skipped())
	}
	if m := r.Missing(); len(m) != 1 || m[0] != tracefile.NoResponseBodies {
		t.Errorf("missing %q", m)
	}
}
