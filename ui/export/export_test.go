package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/headless"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMain lets this test binary serve as the sandbox helper, as the built
// glassbox does (the lessons that run a command need it).
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	os.Exit(m.Run())
}

// lessonSession runs an offline lesson headless, as `glassbox run --offline
// --lesson NAME` does, into a session file in a temporary folder, with
// answers for its confirmations and questions, and returns the file.
func lessonSession(t testing.TB, lesson, answers string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	l, ok := lessons.ByName(lesson)
	if !ok {
		t.Fatalf("no lesson %s", lesson)
	}
	c := agentrun.Defaults(true)
	c.Offline, c.Lesson, c.Request, c.Version = true, lesson, l.Request, "test"
	c.Session = filepath.Join(dir, lesson+".jsonl")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	person := headless.NewPerson(strings.NewReader(answers), io.Discard)
	runs, err := agentrun.OpenAll(context.Background(), c, func(name string) loop.Person { return person.For(name) })
	if err != nil {
		t.Fatal(err)
	}
	headless.Run(context.Background(), runs, l.Request, headless.Options{}, io.Discard, io.Discard)
	if err := agentrun.CloseAll(runs); err != nil {
		t.Fatal(err)
	}
	return c.Session
}

func render(t *testing.T, path string, opt Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, path, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// stable replaces what differs from run to run — times, durations, sizes,
// the SDK's version string — so a page can be compared with its golden file.
func stable(s string) string {
	for _, r := range []struct{ re, with string }{
		{`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`, "TIME"},
		{`\d+ ms`, "N ms"},
		{`p50 [\d.]+ s`, "p50 N ms"},
		{`max [\d.]+ s`, "max N ms"},
		{`\d+ (B|KB)\b`, "N KB"},
		{`(latency|whole call|after) \d+ ms`, "$1 N ms"},
		{`gl-go/go[\d.]+`, "gl-go/goVERSION"},
		{`Date: [^\n<]* GMT`, "Date: DATE"},
		{`google-genai-sdk/[\d.]+`, "google-genai-sdk/VERSION"},
		{`"(latency_ms|total_ms|duration_ms)":\d+`, `"$1":N`},
		{`&#34;(latency_ms|total_ms|duration_ms)&#34;:\d+`, `&#34;$1&#34;:N`},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui/export -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; run go test ./ui/export -update and read the diff.\n--- got ---\n%s", name, got)
	}
}

// The write-file lesson, approved: a page of step 5 (the person's approval)
// and of the whole session, in both formats, against golden files.
func TestGoldenWriteFileLesson(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"write-file-step3.md", Options{Step: 3, Format: Markdown}},
		{"write-file-step3.html", Options{Step: 3, Format: HTML}},
		{"write-file-whole.md", Options{Format: Markdown}},
		{"write-file-whole.html", Options{Format: HTML}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, stable(render(t, path, tc.opt)))
		})
	}
}

// What a handout must hold at a step: the diagram with the edge taken, the
// tool call and the security layer's decision, History so far, the raw
// payload with the key masked — checked on their own, beside the goldens.
func TestStepPageHoldsTheStep(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	md := render(t, path, Options{Step: 4, Format: Markdown})
	for _, want := range []string{
		"step 4 of 10",
		"CHECKING_POLICY ─confirm_required→ AWAITING_USER_CONFIRMATION",
		"last: CHECKING_POLICY ─confirm_required─▶", // the diagram's edge line
		"▶AWAITING_USER_CONFIRMATION",               // the current state marked
		"REQUIRE_USER_CONFIRMATION — rule changes-need-approval",
		"### History as of this step",
		"`user`", "Create a file farewell.py",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("step 4 lacks %q:\n%s", want, md)
		}
	}
	if h := render(t, path, Options{Step: 4, Format: HTML}); !strings.Contains(h, "<mark>▶AWAITING_USER_CONFIRMATION</mark>") {
		t.Errorf("the HTML diagram does not highlight the current state:\n%s", h)
	}
	if strings.Contains(md, "Raw HTTP exchange") {
		t.Error("a policy step shows a payload it did not make")
	}
	llm := render(t, path, Options{Step: 3, Format: Markdown})
	for _, want := range []string{"#### Raw HTTP exchange 1: `POST http://gemini.offline.invalid/", "X-Goog-Api-Key: [REDACTED]", "```json\n{\n  \"contents\""} {
		if !strings.Contains(llm, want) {
			t.Errorf("step 3 lacks %q", want)
		}
	}
	// History at step 3 has the model's call, not yet its result.
	if !strings.Contains(llm, "→ write_file") || strings.Contains(llm, "← result of write_file") {
		t.Errorf("History at step 3 is not as of step 3:\n%s", llm)
	}
	whole := render(t, path, Options{Format: Markdown})
	if !strings.Contains(whole, "← result of write_file: wrote 109 bytes") || strings.Count(whole, "### Step ") != 10 || !strings.Contains(whole, "| 6 | `EXECUTING_TOOL` | `tool_success` | `RECORDING_RESULT` |") {
		t.Errorf("the whole session lacks its steps, timeline or final History:\n%s", whole)
	}
}

// hostile writes a session whose model text, tool result, decision, event
// and exchange carry markup, a fence breaker and a secret, by changing a
// real lesson's session file as an attacker with the file would.
func hostile(t *testing.T, secret string) string {
	t.Helper()
	path := lessonSession(t, "write-file", "y\n")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const evil = `</pre></code><script>alert(1)</script><img src=x onerror=alert(2)>` + "\n```\n<script>fence()</script>\n````` | pipe"
	q, _ := json.Marshal(evil + " " + secret)
	inner := strings.Trim(string(q), `"`)
	s := string(data)
	s = strings.ReplaceAll(s, "wrote 109 bytes to farewell.py", inner)
	s = strings.ReplaceAll(s, "writing files and running commands change the workspace", inner)
	s = strings.ReplaceAll(s, `"role":"user","text":"Create a file farewell.py`, `"role":"user","text":"`+inner+` Create a file farewell.py`)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	x, err := os.ReadFile(session.ExchangesFile(path))
	if err != nil {
		t.Fatal(err)
	}
	// A step's exchanges are found by offset and length, so the forgery
	// keeps every length: the SDK's user agent (a plain header value)
	// becomes markup and the secret, padded to the same size.
	ua := regexp.MustCompile(`google-genai-sdk/[^"]*`)
	xs := ua.ReplaceAllStringFunc(string(x), func(orig string) string {
		forged := "<script>x</script>" + secret
		if len(forged) > len(orig) {
			t.Fatalf("the user agent %q is too short to forge", orig)
		}
		return forged + strings.Repeat(" ", len(orig)-len(forged))
	})
	if xs == string(x) {
		t.Fatal("the exchanges file has no user agent to forge")
	}
	if err := os.WriteFile(session.ExchangesFile(path), []byte(xs), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A hostile session comes out inert: in HTML no element, attribute or
// script from the session reaches the page (parsed with a real HTML
// parser), and the secret is masked everywhere, though the file carried
// it in the clear.
func TestHostileSessionIsInertInHTML(t *testing.T) {
	const secret = "sk-forged-0123456"
	path := hostile(t, secret)
	for _, step := range []int{0, 1, 3, 6} {
		out := render(t, path, Options{Step: step, Format: HTML, Secrets: []string{secret}})
		if strings.Contains(out, secret) {
			t.Fatalf("step %d: the secret reached the page", step)
		}
		if step == 6 && !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatalf("step 6: the hostile result is not shown, escaped:\n%s", out)
		}
		doc, err := html.Parse(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				switch n.Data {
				case "script", "img", "iframe", "object", "link":
					t.Errorf("step %d: a <%s> element on the page", step, n.Data)
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") || a.Key == "src" || a.Key == "href" {
						t.Errorf("step %d: attribute %s=%q on <%s>", step, a.Key, a.Val, n.Data)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	}
}

// In Markdown the same session stays inside code: every fence closes where
// glassbox closed it, and no line of the session's text stands outside a
// code span or block, where a viewer would render it as HTML.
func TestHostileSessionIsInertInMarkdown(t *testing.T) {
	const secret = "sk-forged-0123456"
	path := hostile(t, secret)
	for _, step := range []int{0, 6} {
		out := render(t, path, Options{Step: step, Format: Markdown, Secrets: []string{secret}})
		if strings.Contains(out, secret) {
			t.Fatalf("step %d: the secret reached the page", step)
		}
		if !strings.Contains(out, "<script>alert(1)</script>") {
			t.Fatalf("step %d: the hostile text is not shown as it is", step)
		}
		outside := outsideCode(out)
		if strings.Contains(outside, "<script") || strings.Contains(outside, "<img") {
			t.Errorf("step %d: markup outside code:\n%s", step, outside)
		}
	}
}

// outsideCode is the Markdown text outside fenced blocks and code spans.
func outsideCode(md string) string {
	var b strings.Builder
	var fenceMark string
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fenceMark != "" {
			if strings.TrimRight(trimmed, " ") == fenceMark {
				fenceMark = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			n := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
			fenceMark = strings.Repeat("`", n)
			continue
		}
		// Drop code spans: a run of n backticks to the next run of exactly n.
		for {
			i := strings.Index(line, "`")
			if i < 0 {
				break
			}
			n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			delim := strings.Repeat("`", n)
			rest := line[i+n:]
			j := indexRun(rest, delim)
			if j < 0 {
				break
			}
			line = line[:i] + line[i+n+j+n:]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// indexRun finds a run of exactly len(delim) backticks.
func indexRun(s, delim string) int {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], delim)
		if j < 0 {
			return -1
		}
		at := i + j
		end := at + len(delim)
		if (at == 0 || s[at-1] != '`') && (end == len(s) || s[end] != '`') {
			return at
		}
		i = end
		for i < len(s) && s[i] == '`' {
			i++
		}
	}
	return -1
}

// A corrupt or forged file gives a clear error, never a panic and never a
// page.
func TestCorruptOrForgedSessionIsRefused(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(orig), "\n"), "\n")
	with := func(i int, line string) string {
		l := append([]string(nil), lines...)
		l[i] = line
		return strings.Join(l, "\n") + "\n"
	}
	step3 := -1
	for i, l := range lines {
		if strings.Contains(l, `"kind":"step","seq":3,`) {
			step3 = i
		}
	}
	tests := []struct {
		name, content, want string
	}{
		{"not a session", "hello\n", "does not start with a glassbox session header"},
		{"empty", "", "is empty"},
		{"garbage line", with(3, "{nope"), "not JSON"},
		{"an edge the machine lacks", with(step3, strings.Replace(lines[step3], `"edge":"tool_call"`, `"edge":"<script>x</script>"`, 1)), "not a transition of the state machine"},
		{"a state the machine lacks", with(step3, strings.Replace(lines[step3], `"to":"CHECKING_POLICY"`, `"to":"HACKED"`, 1)), "not a transition of the state machine"},
		{"a step that lies about its number", with(step3, strings.Replace(lines[step3], `"trace":{"seq":3`, `"trace":{"seq":999`, 1)), "says it is step 999"},
		{"exchanges out of range", with(step3, regexp.MustCompile(`"exchanges":\{"offset":\d+`).ReplaceAllString(lines[step3], `"exchanges":{"offset":99999999`)), "exchanges"},
		{"a trace that is not an object", with(step3, strings.Replace(lines[step3], `"trace":{`, `"trace":[{`, 1)), "corrupt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "forged.jsonl")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			// the forged file keeps the real one's exchanges beside it
			if x, err := os.ReadFile(session.ExchangesFile(path)); err == nil {
				os.MkdirAll(session.DataDir(p), 0o700)
				os.WriteFile(session.ExchangesFile(p), x, 0o600)
			}
			for _, f := range []Format{Markdown, HTML} {
				var b bytes.Buffer
				err := Write(&b, p, Options{Format: f, Step: 3})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%s: err = %v, want one saying %q", f, err, tc.want)
				}
				if b.Len() > 0 {
					t.Fatalf("%s: a page was written for a refused file", f)
				}
			}
		})
	}
}

func TestStepOutOfRange(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	var b bytes.Buffer
	for _, step := range []int{11, 1000} {
		if err := Write(&b, path, Options{Step: step, Format: Markdown}); !errors.Is(err, ErrStep) || !strings.Contains(err.Error(), "has 10 steps") {
			t.Errorf("step %d: %v", step, err)
		}
	}
	if err := Step(path, 0, HTML, &b); !errors.Is(err, ErrStep) {
		t.Errorf("Step 0: %v", err)
	}
	if b.Len() > 0 {
		t.Error("a page was written")
	}
}

// StepFile is what the glass box's key calls: the step's page lands in the
// session's folder.
func TestStepFileWritesBesideTheSession(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	out, err := StepFile(path, 6, HTML)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(session.DataDir(path), "handouts", "step-6.html"); out != want {
		t.Fatalf("wrote %s, want %s", out, want)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "EXECUTING_TOOL ─tool_success→ RECORDING_RESULT") {
		t.Fatalf("%v: %s", err, data)
	}
	if _, err := StepFile(path, 99, HTML); !errors.Is(err, ErrStep) {
		t.Fatalf("step 99: %v", err)
	}
}

// Every bundled lesson's session exports in both formats, whole and at
// each step — the pages hold every edge the lessons take (retries, denials,
// malformed replies, halts).
func TestEveryLessonExports(t *testing.T) {
	for _, l := range lessons.All() {
		t.Run(l.Name, func(t *testing.T) {
			path := lessonSession(t, l.Name, "y\ny\ny\n1\ny\n")
			f, err := session.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			for step := 0; step <= len(f.Runs[0].Steps); step++ {
				for _, format := range []Format{Markdown, HTML} {
					if err := Write(io.Discard, path, Options{Step: step, Format: format}); err != nil {
						t.Fatalf("step %d %s: %v", step, format, err)
					}
				}
			}
		})
	}
}

// BenchmarkExport measures a page of the write-file lesson's session: one
// step, and the whole session, in each format.
func BenchmarkExport(b *testing.B) {
	path := lessonSession(b, "write-file", "y\n")
	for _, bc := range []struct {
		name string
		opt  Options
	}{
		{"step/md", Options{Step: 3, Format: Markdown}},
		{"step/html", Options{Step: 3, Format: HTML}},
		{"whole/md", Options{Format: Markdown}},
		{"whole/html", Options{Format: HTML}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(io.Discard, path, bc.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The handout's drawing of the state machine says the last transition
// whole, destination included, for every arc of the loop: the footer's
// lines wrap at the drawing's width and are never cut.
func TestHandoutDrawingSaysTheLastTransitionWhole(t *testing.T) {
	for _, l := range lang.All {
		for _, a := range loop.Table {
			d := drawDiagram(l, loop.Transition{From: a.From, Edge: a.Edge, To: a.To})
			if strings.Contains(d, "…") {
				t.Errorf("%s ─%s─▶ %s: the drawing is cut:\n%s", a.From, a.Edge, a.To, d)
			}
			last := d[strings.Index(d, l.T("last:")):]
			if words := strings.Fields(last); len(words) < 4 || words[3] != string(a.To) {
				t.Errorf("%s ─%s─▶ %s: the last transition reads %q", a.From, a.Edge, a.To, strings.Join(words, " "))
			}
			if want := diagram.Explain(l, a.To); a.To != loop.AssemblingContext && !strings.Contains(strings.Join(strings.Fields(d), ""), strings.Join(strings.Fields(want), "")) {
				t.Errorf("%s %s: the drawing does not say %q:\n%s", l, a.To, want, d)
			}
		}
	}
}
