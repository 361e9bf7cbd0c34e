// Package tracefile reads a trace another tool wrote — a HAR file (browser
// devtools, mitmproxy, glassbox export --format har), an OTLP JSON trace
// file (the OpenTelemetry collector's file exporter), Gemini CLI's
// telemetry outfile — and gives its steps one at a time, the steps of
// glassbox's own loop as loop/outside builds them from a foreign agent's
// calls: HTTP exchanges for HAR, calls known by their messages for the
// other two. The kind is told from the content. Reading streams: a huge
// file costs the memory of one entry or batch, not of the file.
// `glassbox open` (ui/open) is its front end; docs/standards.md,
// "Reading other tools' traces", says what each kind gives.
package tracefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/har"
	"github.com/glassbox-dev/glassbox/providers/spans"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Kinds of trace file.
const (
	HAR       = "har"
	OTLP      = spans.OTLP
	GeminiCLI = spans.GeminiCLI
)

// What a HAR file may lack (Reader.Missing), beside spans' sentences.
const (
	NoResponseBodies = "This trace has no response bodies: the tool that saved it left them out, so what the model answered is not known."
	NoModelCall      = "This HAR file holds no model call glassbox can read (Gemini, OpenAI-compatible or Ollama)."
)

// ErrUnknownKind: the file is none of the kinds glassbox reads.
var ErrUnknownKind = sentence.Errorf("glassbox reads HAR 1.2, OTLP JSON and Gemini CLI telemetry files")

// sniffBytes is how much of the file's start is looked at to tell its kind.
const sniffBytes = 1 << 20

// Options configure a Reader. The zero value works.
type Options struct {
	// Secrets are masked wherever they appear in a HAR entry.
	Secrets []string
	// Codecs read the calls; nil means every registered dialect's.
	Codecs wire.Codecs
}

// Reader gives a trace file's steps one at a time.
type Reader struct {
	kind    string
	b       *outside.Builder
	now     time.Time
	har     *har.Reader
	spans   *spans.Reader
	codecs  wire.Codecs
	mask    *providers.Masker
	steps   []loop.Transition
	err     error
	calls   int // model calls read
	skipped int // HAR entries that are no model call
	noBody  bool
}

// Open tells the kind of the trace file r holds from its start and
// returns a Reader of its steps.
func Open(r io.Reader, opt Options) (*Reader, error) {
	if opt.Codecs == nil {
		opt.Codecs = backend.Wire()
	}
	br := bufio.NewReaderSize(r, 64<<10)
	kind, err := sniff(br)
	if err != nil {
		return nil, err
	}
	tr := &Reader{kind: kind, codecs: opt.Codecs, mask: providers.NewMasker(opt.Secrets...)}
	tr.b = outside.New(outside.Options{Codecs: opt.Codecs, Source: "open", Backend: "file", Now: func() time.Time { return tr.now }})
	if kind == HAR {
		tr.har = har.NewReader(br)
		tr.har.Secrets = opt.Secrets
	} else {
		tr.spans = spans.NewReader(br, kind, opt.Codecs)
	}
	return tr, nil
}

// Kind is the file's kind: HAR, OTLP or GeminiCLI.
func (r *Reader) Kind() string { return r.kind }

// Creator is the tool that wrote a HAR file and its version, once read
// ("" for other kinds, or when the file does not say).
func (r *Reader) Creator() string {
	if r.har == nil {
		return ""
	}
	name, version := r.har.Creator()
	if version != "" {
		name += " " + version
	}
	return name
}

// Skipped counts the HAR entries that are no model call (a page, a
// script): they make no step.
func (r *Reader) Skipped() int { return r.skipped }

// Missing says what the file does not carry, as far as it has been read
// (all of it once Next returned io.EOF): sentences of the catalog.
func (r *Reader) Missing() []string {
	if r.spans != nil {
		return r.spans.Missing()
	}
	var out []string
	if r.noBody {
		out = append(out, NoResponseBodies)
	}
	return out
}

// Next returns the file's next step, or io.EOF after the last one of a
// file that is whole. Any other error is final and says what is wrong
// with the file; the steps before it stand.
func (r *Reader) Next() (loop.Transition, error) {
	for len(r.steps) == 0 {
		if r.err != nil {
			return loop.Transition{}, r.err
		}
		r.steps, r.err = r.read()
	}
	t := r.steps[0]
	r.steps = r.steps[1:]
	return t, nil
}

// read makes the steps of the file's next call.
func (r *Reader) read() ([]loop.Transition, error) {
	if r.spans != nil {
		c, err := r.spans.Next()
		if err != nil {
			return nil, err
		}
		r.calls++
		r.now = c.Started
		r.masked(c)
		return r.b.Call(outside.Call{Request: c.Request, Response: c.Response, Status: c.Status, Duration: c.Duration}), nil
	}
	e, err := r.har.Next()
	if errors.Is(err, io.EOF) && r.calls == 0 {
		return nil, sentence.Errorf("%w: %s", har.ErrNotHAR, NoModelCall)
	}
	if err != nil {
		return nil, err
	}
	x := e.Exchange
	if _, _, ok := r.codecs.Detect(x.Method, x.URL); !ok {
		r.skipped++
		return nil, nil
	}
	r.calls++
	if len(x.ResponseBody) == 0 && x.Status != 0 {
		r.noBody = true
	}
	r.now = e.Started
	return r.b.Exchange(x), nil
}

// masked masks the secrets wherever a call's texts hold them, as the HAR
// reader masks an entry.
func (r *Reader) masked(c spans.Call) {
	if r.mask.Empty() {
		return
	}
	m := r.mask
	req := c.Request
	req.System = m.Mask(req.System)
	for i := range req.Messages {
		msg := &req.Messages[i]
		msg.Text, msg.Thought = m.Mask(msg.Text), m.Mask(msg.Thought)
		r.maskCalls(msg.ToolCalls)
		if msg.Result != nil {
			res := *msg.Result
			res.Content = m.Mask(res.Content)
			msg.Result = &res
		}
	}
	if resp := c.Response; resp != nil {
		resp.Text, resp.Thought = m.Mask(resp.Text), m.Mask(resp.Thought)
		r.maskCalls(resp.ToolCalls)
		if resp.Error != nil {
			resp.Error.Message = m.Mask(resp.Error.Message)
		}
	}
}

func (r *Reader) maskCalls(calls []history.ToolCall) {
	for i := range calls {
		calls[i].Args = r.mask.MaskJSON(calls[i].Args)
	}
}

// sniff tells a trace file's kind by the first fields of its first object.
func sniff(br *bufio.Reader) (string, error) {
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(head)) == 0 {
		return "", sentence.Errorf("%w; this file is empty", ErrUnknownKind)
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", sentence.Errorf("%w; this file is not a JSON object", ErrUnknownKind)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if kind, ok := kindOf(tok); ok {
			return kind, nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return "", sentence.Errorf("%w; this file is JSON of another kind (its first object has no \"log\", \"resourceSpans\" or span of the OpenTelemetry JS SDK)", ErrUnknownKind)
}

// kindOf is the kind a top-level field names.
func kindOf(tok json.Token) (string, bool) {
	switch tok {
	case "log":
		return HAR, true
	case "resourceSpans", "resourceLogs", "resourceMetrics":
		return OTLP, true
	case "_spanContext", "hrTime", "hrTimeObserved", "scopeMetrics":
		return GeminiCLI, true
	}
	return "", false
}
