// Package spans reads the trace files that agents' OpenTelemetry
// instrumentation writes — OTLP JSON (the OpenTelemetry collector's file
// exporter: resourceSpans, resourceLogs, resourceMetrics) and Gemini CLI's
// telemetry outfile (its `telemetry.outfile` setting: the OpenTelemetry JS
// SDK's span, log and metrics objects, pretty-printed one after another) —
// and gives the model calls they record, by their messages: the request
// and reply a codec would decode from the bytes (wire.Request,
// wire.Response), filled from the GenAI semantic conventions' attributes
// or from Gemini CLI's own api_request and api_response events.
//
// Reading streams: one batch (an OTLP line, one JS object) at a time, each
// bounded, so a huge file costs the memory of its largest batch and of the
// few calls waiting for their other half. A file cut off, or of another
// kind, is an error that says so. docs/standards.md, "Reading other
// tools' traces", lists the attributes read.
package spans

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers/internal/budget"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// MaxBatchBytes bounds one batch of a file being read (one OTLP JSON line,
// one object of Gemini CLI's outfile).
const MaxBatchBytes = 64 << 20

// Kinds of file (Reader.Kind).
const (
	OTLP      = "otlp"
	GeminiCLI = "gemini-cli"
)

// Errors a reader returns, wrapped with where it happened.
var (
	ErrNotSpans      = sentence.Errorf("not an OpenTelemetry trace file")
	ErrTruncated     = sentence.Errorf("the trace file is cut off")
	ErrBatchTooLarge = sentence.Errorf("a batch of the trace file is larger than glassbox reads")
)

// Record is one span or log record of a file, its attributes typed as the
// file typed them: string, int64, float64, bool, []any.
type Record struct {
	Log  bool
	Name string // the span's name; a log's event.name
	// TraceID and SpanID are hex; a log's are those of the span it was
	// written in ("" when none).
	TraceID, SpanID, ParentID string
	Start, End                time.Time
	Attrs                     map[string]any
	Body                      string
	// Error says the span's status is an error; Status is its message.
	Error  bool
	Status string
}

// Call is one model call a file records, by its messages: what a codec
// would decode from its bytes. outside.Call takes it as it is.
type Call struct {
	Request  *wire.Request
	Response *wire.Response // nil: the file holds no reply
	Status   int
	Started  time.Time
	Duration time.Duration
}

// Missing names what a file does not carry, for a screen to say ("this
// trace has no prompts"): sentences of the catalog (ui/lang).
const (
	NoBytes     = "This trace records messages, not HTTP: it has no request or response bodies, headers or timings of the wire."
	NoPrompts   = "This trace has no prompts: the messages sent to the model are not in it (Gemini CLI writes them with telemetry.logPrompts)."
	NoReplies   = "This trace has no replies: what the model answered is not in it."
	NoSystem    = "This trace has no system instructions."
	NoTools     = "This trace has no tool declarations."
	NoUsage     = "This trace has no token counts."
	NoModelCall = "This trace holds no model call glassbox can read (no GenAI inference span, no Gemini CLI api_request)."
)

// Missings lists every Missing sentence, for the catalog's test.
func Missings() []string {
	return []string{NoBytes, NoPrompts, NoReplies, NoSystem, NoTools, NoUsage, NoModelCall}
}

// str is the attribute k as a string ("" when absent or not a string).
func str(a map[string]any, k string) string {
	s, _ := a[k].(string)
	return s
}

// num is the attribute k as an integer: an int, a whole float, or a
// string of digits (OTLP JSON writes int64 as strings).
func num(a map[string]any, k string) (int64, bool) {
	switch v := a[k].(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), v == float64(int64(v))
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	}
	return 0, false
}

// cut explains a read that failed.
func cut(err error, batches int) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, budget.ErrOver):
		return sentence.Errorf("%w: batch %d is over %d MiB", ErrBatchTooLarge, batches+1, MaxBatchBytes>>20)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return sentence.Errorf("%w after %d batches", ErrTruncated, batches)
	case errors.As(err, &syn):
		return sentence.Errorf("%w: broken JSON at byte %d (%v)", ErrNotSpans, syn.Offset, err)
	}
	return err
}
