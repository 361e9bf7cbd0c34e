// Package export writes handouts: a step of a saved session, or the whole
// session, as one self-contained page in Markdown or HTML — the state
// machine with the edge taken, History, the tool calls with the security
// layer's decisions, the raw HTTP payloads and the timings — so a learner
// can take their run home. It reads the session the way --resume and time
// travel do (loop.SessionTransitions) and masks everything once more on the
// way out.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// Format is the kind of page: Markdown or HTML.
type Format string

const (
	Markdown Format = "md"
	HTML     Format = "html"
)

// ParseFormat reads --format: md (or markdown), html or har.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "md", "markdown":
		return Markdown, nil
	case "html", "htm":
		return HTML, nil
	case "har":
		return HAR, nil
	}
	return "", sentence.Errorf("--format %q: want md, html or har", s)
}

// Ext is the file name extension of the format, with its dot.
func (f Format) Ext() string { return "." + string(f) }

// Options say what to export.
type Options struct {
	// Step is the step to export (1, 2, …); 0 exports the whole session.
	Step   int
	Format Format
	// Secrets are masked on the page wherever they appear, on top of the
	// masking the session was saved with (a session file is untrusted).
	Secrets []string
	// Lang is the language of the page's headings and labels (English when
	// empty). What the session holds — requests, replies, tool results,
	// payloads, state, edge, rule and tool names — is shown as it is.
	Lang lang.Lang
	// Version is glassbox's, for a HAR file's creator.
	Version string
}

// ErrStep: the step asked for is not in the session.
var ErrStep = sentence.Errorf("no such step")

// Write writes the page of the session file at path to w.
func Write(w io.Writer, path string, opt Options) error {
	if opt.Format == HAR {
		return writeHAR(w, path, opt, opt.Version)
	}
	if opt.Format != Markdown && opt.Format != HTML {
		return sentence.Errorf("export: unknown format %q (want md, html or har)", opt.Format)
	}
	p, err := build(path, opt)
	if err != nil {
		return err
	}
	var buf bytes.Buffer // a page is written whole or not at all
	if opt.Format == HTML {
		err = writeHTML(&buf, p)
	} else {
		writeMarkdown(&buf, p)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Step writes one step of the session at sessionPath as a page: what a
// front end calls to hand out the step on screen. secrets are masked on
// the page (the run's own keys).
func Step(sessionPath string, step int, format Format, w io.Writer, secrets ...string) error {
	if step < 1 {
		return sentence.Errorf("%w: step %d (steps count from 1)", ErrStep, step)
	}
	return Write(w, sessionPath, Options{Step: step, Format: format, Secrets: secrets})
}

// StepFile writes one step of the session at sessionPath into the session's
// own folder (handouts/step-7.html beside its exchanges) and returns the
// file's path: a key in the glass box can write the step on screen without
// asking where. An existing handout of the same step is replaced.
func StepFile(sessionPath string, step int, format Format, secrets ...string) (string, error) {
	var buf bytes.Buffer
	if err := Step(sessionPath, step, format, &buf, secrets...); err != nil {
		return "", err
	}
	dir := filepath.Join(session.DataDir(sessionPath), "handouts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	out := filepath.Join(dir, fmt.Sprintf("step-%d%s", step, format.Ext()))
	tmp, err := os.CreateTemp(dir, ".handout-*")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return out, nil
}

// page is what both formats draw. Every string in it is text as it should
// read — masked and made printable — and not yet escaped for the format.
type page struct {
	Lang    string // the page's language code, <html lang="…">
	L       labels // its headings and labels in that language
	Title   string
	Session string // the session's id
	Started string
	Request string
	Health  string
	Whole   bool // the whole session, not one step
	Runs    []runPage
}

// runPage is one run of the session (two in a comparison).
type runPage struct {
	Name     string // the run's name in a comparison, "" otherwise
	About    string // "PROVIDER · MODEL · offline · lesson write-file"
	Steps    []stepPage
	Timeline []row       // whole session: one line per step
	Growth   *growthPage // how the requests grew, up to the last step shown
	History  []message   // as of the last step shown
	Total    int         // the run's number of steps
	Count    string      // Total, in words: "12 steps"
}

// row is one line of the whole session's timeline.
type row struct {
	Seq                   int
	From, Edge, To, Notes string
}

// stepPage is one transition.
type stepPage struct {
	Seq       int
	To        string // the state the step reached
	Arc       string // "AWAITING_LLM_RESPONSE ─tool_call→ CHECKING_POLICY"
	Iteration int
	Time      string
	Diagram   string
	Facts     []fact
	Calls     []call
	Anatomy   *anatomyPage // a model call's request, part by part
	Payloads  []payload
}

// Lit splits the diagram around the current state's name, so the HTML page
// can highlight it: before, the name with its ▶ mark, after. The mark
// alone says it in Markdown.
func (s stepPage) Lit() [3]string {
	i := strings.Index(s.Diagram, "▶"+s.To)
	if i < 0 {
		return [3]string{s.Diagram, "", ""}
	}
	j := i + len("▶"+s.To)
	return [3]string{s.Diagram[:i], s.Diagram[i:j], s.Diagram[j:]}
}

// fact is one labelled line or block of a step: the event, the model
// call, the tool, the decision, the result, the error, the output.
type fact struct {
	Label string
	Text  string
	Block bool // Text is a block (code), not a line
}

// call is one tool call of the step's iteration, with the security layer's
// decision on it.
type call struct {
	Name, Args               string
	Verdict, Rule, Reason    string
	Approval, Status, Result string
}

// payload is one raw HTTP exchange.
type payload struct {
	Title           string // "POST https://… → 200"
	Timing          string
	RequestHeaders  string
	RequestBody     string
	ResponseHeaders string
	ResponseBody    string
	Redacted        string
}

// message is one History entry.
type message struct {
	Role string
	Text string
}

// clean is the one way text from a session reaches a page: masked with the
// secrets and made printable.
type clean struct{ m *providers.Masker }

func (c clean) s(s string) string { return loop.Printable(c.m.Mask(s)) }

// build reads the session and lays out the page.
func build(path string, opt Options) (*page, error) {
	f, err := session.Read(path)
	if err != nil {
		return nil, err
	}
	c := clean{providers.NewMasker(opt.Secrets...)}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	l := opt.Lang
	p := &page{Lang: l.String(), L: labelsIn(l), Session: c.s(id), Started: f.Header.Started.UTC().Format(time.RFC3339), Request: c.s(f.Header.Request), Whole: opt.Step == 0}
	var all []loop.Transition
	steps := 0
	for _, rl := range f.Runs {
		steps = max(steps, len(rl.Steps))
	}
	if opt.Step > steps {
		return nil, sentence.Errorf("%w: step %d; %s has %d steps", ErrStep, opt.Step, path, steps)
	}
	for _, rl := range f.Runs {
		ts, err := loop.SessionTransitions(path, rl, false)
		if err != nil {
			return nil, err
		}
		if err := checkArcs(ts); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", session.ErrCorrupt, path, err)
		}
		all = append(all, ts...)
		rp, err := buildRun(l, path, rl, ts, opt.Step, c)
		if err != nil {
			return nil, err
		}
		p.Runs = append(p.Runs, rp)
	}
	h := loop.HealthOf(all)
	if h.Bytes, err = loop.SessionBytes(path); err != nil {
		return nil, err
	}
	p.Health = h.StringIn(l.F)
	if opt.Step > 0 {
		p.Title = l.F("glassbox handout: step %d of %d", opt.Step, steps)
	} else {
		p.Title = l.F("glassbox handout: a whole session, %d steps", steps)
	}
	return p, nil
}

// checkArcs refuses a transition the state machine does not have: the
// engine never takes one, so only a damaged or forged file holds it.
func checkArcs(ts []loop.Transition) error {
	for i, t := range ts {
		if t.Seq != i+1 {
			return sentence.Errorf("the record of step %d says it is step %d", i+1, t.Seq)
		}
		if to, ok := loop.Target(t.From, t.Edge); !ok || to != t.To {
			return sentence.Errorf("step %d: %s ─%s→ %s is not a transition of the state machine", t.Seq, loop.Printable(string(t.From)), loop.Printable(string(t.Edge)), loop.Printable(string(t.To)))
		}
	}
	return nil
}

func buildRun(l lang.Lang, path string, rl *session.RunLog, ts []loop.Transition, step int, c clean) (runPage, error) {
	info := rl.Info
	about := []string{backend.NameOf(info.Provider, info.ToolMode), info.Model, info.Backend}
	if info.Lesson != "" {
		about = append(about, l.F("lesson %s", info.Lesson))
	}
	rp := runPage{Name: c.s(info.Name), About: c.s(strings.Join(about, " · ")), Total: len(ts), Count: l.F("%d steps", len(ts))}
	first, last := 0, len(ts)
	if step > 0 {
		// One step; a run of a comparison that ended earlier has none.
		first, last = min(step-1, len(ts)), min(step, len(ts))
	}
	for _, t := range ts[:last] {
		for _, m := range t.Added {
			rp.History = append(rp.History, historyEntry(m, c))
		}
		if step == 0 {
			rp.Timeline = append(rp.Timeline, row{Seq: t.Seq, From: string(t.From), Edge: string(t.Edge), To: string(t.To), Notes: c.s(summary(l, t))})
		}
	}
	exchanges := loop.NewExchangeReader(path, 0) // one reader: the exchanges are stored as deltas
	anat, growth, err := runAnatomy(l, ts, last, func(i int) (*providers.Exchange, error) {
		xs, err := exchanges.Load(rl.Steps[i])
		if err != nil || len(xs) == 0 {
			return nil, err
		}
		x := c.m.Exchange(xs[len(xs)-1]) // the one that answered, masked as the page's payloads are
		return &x, nil
	}, c)
	if err != nil {
		return rp, err
	}
	rp.Growth = growth
	for i := first; i < last; i++ {
		sp, err := buildStep(l, exchanges, rl.Steps[i], ts[i], c)
		if err != nil {
			return rp, err
		}
		sp.Anatomy = anat[i]
		rp.Steps = append(rp.Steps, sp)
	}
	return rp, nil
}

func buildStep(l lang.Lang, exchanges *loop.ExchangeReader, rec session.Record, t loop.Transition, c clean) (stepPage, error) {
	sp := stepPage{
		Seq:       t.Seq,
		To:        string(t.To),
		Arc:       fmt.Sprintf("%s ─%s→ %s", t.From, t.Edge, t.To),
		Iteration: t.Iteration,
		Time:      t.Time.UTC().Format(time.RFC3339Nano),
		Diagram:   drawDiagram(l, t),
		Facts:     facts(l, t, c),
	}
	for _, pc := range t.Pending {
		sp.Calls = append(sp.Calls, callOf(pc, c))
	}
	xs, err := exchanges.Load(rec)
	if err != nil {
		return sp, err
	}
	for _, x := range xs {
		sp.Payloads = append(sp.Payloads, payloadOf(l, c.m.Exchange(x)))
	}
	return sp, nil
}

// drawDiagram is the glass box's own state-machine drawing at the step, as
// plain text: the current state marked ▶, the edge just taken and what
// happens in the state in the lines under it, in the handout's language l.
func drawDiagram(l lang.Lang, t loop.Transition) string {
	v := diagram.View{Current: t.To, LastFrom: t.From, LastEdge: t.Edge, Lang: l}
	// Rows to spare under the picture: the footer's lines wrap at this
	// width and are never cut ("last: ASSEMBLING_CONTEXT ─context_ready─▶"
	// and where it went); the blank rows left are trimmed below.
	lines := strings.Split(ansi.Strip(diagram.Render(theme.New(true), v, diagram.FullWidth, diagram.FullHeight+4)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// summary is the timeline's note on a step: what the model, the tool or
// the security layer did.
func summary(l lang.Lang, t loop.Transition) string {
	switch {
	case t.Event != nil:
		return fmt.Sprintf("%s %s: %s", t.Event.Source, t.Event.Type, oneLine(t.Event.Data, 60))
	case t.LLM != nil:
		s := fmt.Sprintf("stop_reason %s · ", t.LLM.StopReason) + l.F("tokens %d→%d · %d ms", t.LLM.Usage.InputTokens, t.LLM.Usage.OutputTokens, t.LLM.TotalMS)
		if n := len(t.LLM.Retries); n > 0 {
			s += " · " + l.F("%d retried", n)
		}
		return s
	case t.Decision != nil && t.Tool != nil:
		return fmt.Sprintf("%s → %s (%s)", t.Tool.Name, t.Decision.Verdict, t.Decision.Rule)
	case t.Error != nil:
		return fmt.Sprintf("%s: %s", t.Error.Kind, oneLine(t.Error.Message, 60))
	case t.Result != nil && t.Tool != nil:
		return l.F("%s → %s in %d ms", t.Tool.Name, map[bool]string{false: "ok", true: "error"}[t.Result.IsError], t.Result.DurationMS)
	case t.Output != nil:
		return l.F("to %s: %s", t.Output.Target, oneLine(t.Output.Text, 60))
	}
	return ""
}

// facts lists what the step's record carries, one labelled entry each.
func facts(l lang.Lang, t loop.Transition, c clean) []fact {
	var out []fact
	add := func(label, text string, block bool) { out = append(out, fact{label, c.s(text), block}) }
	if ev := t.Event; ev != nil {
		add(l.T("Event"), fmt.Sprintf("%s · %s", ev.Source, ev.Type), false)
		add(l.T("Event data"), ev.Data, true)
	}
	if r := t.LLM; r != nil {
		llmFacts(l, r, add)
	}
	if t.Edited {
		add(l.T("What-if"), l.T("a person replaced the context before it was sent"), false)
	}
	if tc := t.Tool; tc != nil {
		add(l.T("Tool"), tc.Name+" "+string(tc.Args), true)
	}
	if d := t.Decision; d != nil {
		add(l.T("Decision"), l.F("%s — rule %s: %s", d.Verdict, d.Rule, d.Reason), false)
	}
	if r := t.Result; r != nil {
		resultFacts(l, r, add)
	}
	if e := t.Error; e != nil {
		add(l.T("Error"), e.Kind, false)
		add(l.T("Error message"), e.Message, true)
	}
	if o := t.Output; o != nil {
		add(l.T("Output to"), o.Target, false)
		add(l.T("Output"), o.Text, true)
	}
	return out
}

// addFact records one labelled entry of a step's facts.
type addFact func(label, text string, block bool)

// llmFacts are the facts of a step's model call.
func llmFacts(l lang.Lang, r *loop.LLMRecord, add addFact) {
	add(l.T("Model call"), fmt.Sprintf("%s · %s · %s (%s)", r.Provider, r.Model, r.Backend, r.BackendReason), false)
	add(l.T("Stop reason"), l.F("%s (finish reason %s)", r.StopReason, r.FinishReason), false)
	add(l.T("Tokens"), l.F("%d in, %d out", r.Usage.InputTokens, r.Usage.OutputTokens), false)
	add(l.T("Timing"), l.F("latency %d ms, whole call %d ms, HTTP %d", r.LatencyMS, r.TotalMS, r.HTTPStatus), false)
	for _, a := range r.Retries {
		add(l.T("Retry"), l.F("attempt %d: %s (HTTP %d) after %d ms, waited %d ms", a.Attempt, a.Reason, a.Status, a.LatencyMS, a.WaitMS), false)
	}
	if r.Thought != "" {
		add(l.T("Thought"), r.Thought, true)
	}
	if r.Text != "" {
		add(l.T("Text"), r.Text, true)
	}
	for _, tc := range r.ToolCalls {
		add(l.T("Tool call"), tc.Name+" "+string(tc.Args), true)
	}
	for _, d := range r.Divergences {
		add(l.T("Divergence"), d, false)
	}
}

// resultFacts are the facts of a tool's result.
func resultFacts(l lang.Lang, r *loop.ResultRecord, add addFact) {
	state := "ok"
	if r.IsError {
		state = "error"
	}
	add(l.T("Result"), l.F("%s in %d ms", state, r.DurationMS), false)
	if r.Sandbox != "" {
		add(l.T("Sandbox"), r.Sandbox, false)
	}
	add(l.T("Result content"), r.Content, true)
}

func callOf(pc loop.PendingCall, c clean) call {
	out := call{Name: c.s(pc.Call.Name), Args: c.s(string(pc.Call.Args)), Status: c.s(string(pc.Status))}
	if d := pc.Decision; d != nil {
		out.Verdict, out.Rule, out.Reason = c.s(string(d.Verdict)), c.s(d.Rule), c.s(d.Reason)
	}
	if pc.Approval != nil {
		out.Approval = pc.Approval.String()
	}
	if r := pc.Result; r != nil {
		out.Result = c.s(fmt.Sprintf("%d ms: %s", r.DurationMS, oneLine(r.Content, 80)))
	}
	return out
}

// payloadOf lays out an exchange that Masker.Exchange has masked again.
func payloadOf(l lang.Lang, x providers.Exchange) payload {
	n := x.Records()
	p := payload{
		Title:           loop.Printable(fmt.Sprintf("%s %s → %d", x.Method, x.URL, x.Status)),
		Timing:          l.F("first byte after %d ms, whole response after %d ms, %s", x.TTFB.Milliseconds(), x.Total.Milliseconds(), plural(n, l.F("%d chunk", n), l.F("%d chunks", n))),
		RequestHeaders:  loop.Printable(headers(x.RequestHeaders)),
		RequestBody:     loop.Printable(pretty(x.RequestBody)),
		ResponseHeaders: loop.Printable(headers(x.ResponseHeaders)),
		ResponseBody:    loop.Printable(pretty(x.ResponseBody)),
		Redacted:        loop.Printable(strings.Join(x.Redacted, ", ")),
	}
	if x.Err != "" {
		p.Title = loop.Printable(l.F("%s %s → failed: %s", x.Method, x.URL, x.Err))
	}
	return p
}

func headers(h map[string][]string) string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		for _, v := range h[n] {
			fmt.Fprintf(&b, "%s: %s\n", n, v)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// pretty indents a JSON body; anything else (a stream of events, plain
// text) is shown as it came, its CRLF line ends (server-sent events use
// them) read as line ends.
func pretty(body []byte) string {
	var b bytes.Buffer
	if json.Valid(body) && json.Indent(&b, body, "", "  ") == nil {
		return b.String()
	}
	return strings.ReplaceAll(string(body), "\r\n", "\n")
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func historyEntry(m history.Message, c clean) message {
	var parts []string
	if m.Thought != "" {
		parts = append(parts, "(thought) "+m.Thought)
	}
	if m.Text != "" {
		parts = append(parts, m.Text)
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, "→ "+tc.Name+" "+string(tc.Args))
	}
	if r := m.Result; r != nil {
		state := "result"
		if r.IsError {
			state = "error"
		}
		parts = append(parts, fmt.Sprintf("← %s of %s: %s", state, r.Name, r.Content))
	}
	role := string(m.Role)
	if m.Feedback {
		role += " (the loop's feedback)"
	}
	return message{Role: c.s(role), Text: c.s(strings.Join(parts, "\n"))}
}

// oneLine is s on one line, cut to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
