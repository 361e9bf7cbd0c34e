package spans

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers/internal/budget"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Reader reads a trace file's model calls one at a time (Next), holding
// one batch of the file and the calls waiting for their other half.
type Reader struct {
	kind    string
	in      *budget.Reader
	dec     *json.Decoder
	queue   []Record
	batches int
	eof     bool
	err     error
	calls   *interpreter
}

// NewReader reads the file r holds, of kind OTLP or GeminiCLI; codecs
// read the messages Gemini CLI logs in its API's own shape.
func NewReader(r io.Reader, kind string, codecs wire.Codecs) *Reader {
	b := &budget.Reader{R: r}
	dec := json.NewDecoder(b)
	dec.UseNumber()
	return &Reader{kind: kind, in: b, dec: dec, calls: newInterpreter(codecs)}
}

// Missing says what the file does not carry, as far as it has been read
// (all of it once Next returned io.EOF): Missing sentences, in their order.
func (r *Reader) Missing() []string { return r.calls.missing(r.eof) }

// Next returns the next model call, or io.EOF after the last one of a file
// that is whole. Any other error is final.
func (r *Reader) Next() (Call, error) {
	for {
		if c, ok := r.calls.next(r.eof); ok {
			return c, nil
		}
		if r.err != nil {
			return Call{}, r.err
		}
		if r.eof {
			if r.calls.count == 0 {
				r.err = sentence.Errorf("%w: %s", ErrNotSpans, NoModelCall)
				return Call{}, r.err
			}
			return Call{}, io.EOF
		}
		if len(r.queue) == 0 {
			if err := r.read(); err != nil {
				r.err = err
			}
			continue
		}
		rec := r.queue[0]
		r.queue = r.queue[1:]
		r.calls.add(rec)
	}
}

// read decodes the file's next batch into the queue.
func (r *Reader) read() error {
	r.in.Reset(MaxBatchBytes)
	if !r.dec.More() {
		if _, err := r.dec.Token(); err != nil && !errors.Is(err, io.EOF) {
			return cut(err, r.batches)
		}
		if r.batches == 0 {
			return sentence.Errorf("%w: the file is empty", ErrNotSpans)
		}
		r.eof = true
		return nil
	}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return cut(err, r.batches)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return sentence.Errorf("%w: batch %d is not a JSON object", ErrNotSpans, r.batches+1)
	}
	r.batches++
	var err error
	if r.kind == GeminiCLI {
		r.queue, err = jsRecords(raw)
	} else {
		r.queue, err = otlpRecords(raw)
	}
	if err != nil {
		return sentence.Errorf("%w: batch %d: %v", ErrNotSpans, r.batches, err)
	}
	return nil
}

func otlpRecords(raw json.RawMessage) ([]Record, error) {
	var b otlpBatch
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	if b.ResourceSpans == nil && b.ResourceLogs == nil && b.ResourceMetrics == nil {
		return nil, sentence.Errorf("it has no resourceSpans, resourceLogs or resourceMetrics")
	}
	return b.records(), nil
}

// jsObject is one object the OpenTelemetry JS SDK wrote to Gemini CLI's
// outfile: a span (ReadableSpan), a log record, or the metrics.
type jsObject struct {
	SpanContext   *jsContext      `json:"_spanContext"`
	Parent        *jsContext      `json:"parentSpanContext"`
	LogContext    *jsContext      `json:"spanContext"`
	Name          string          `json:"name"`
	Start         []json.Number   `json:"startTime"`
	End           []json.Number   `json:"endTime"`
	HRTime        []json.Number   `json:"hrTime"`
	Attributes    map[string]any  `json:"attributes"`
	Body          any             `json:"_body"`
	ScopeMetrics  json.RawMessage `json:"scopeMetrics"`
	Status        *jsStatus       `json:"status"`
	ResourceSpans json.RawMessage `json:"resourceSpans"`
}

type jsContext struct {
	TraceID string `json:"traceId"`
	SpanID  string `json:"spanId"`
}

type jsStatus struct {
	Code    json.Number `json:"code"`
	Message string      `json:"message"`
}

func jsRecords(raw json.RawMessage) ([]Record, error) {
	var o jsObject
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	switch {
	case o.SpanContext != nil:
		r := Record{Name: o.Name, TraceID: o.SpanContext.TraceID, SpanID: o.SpanContext.SpanID,
			Start: hrTime(o.Start), End: hrTime(o.End), Attrs: typed(o.Attributes)}
		if o.Parent != nil {
			r.ParentID = o.Parent.SpanID
		}
		if o.Status != nil {
			r.Error, r.Status = o.Status.Code == "2", o.Status.Message
		}
		return []Record{r}, nil
	case o.HRTime != nil:
		r := Record{Log: true, Start: hrTime(o.HRTime), Attrs: typed(o.Attributes)}
		r.End, r.Name = r.Start, str(r.Attrs, "event.name")
		if o.LogContext != nil {
			r.TraceID, r.SpanID = o.LogContext.TraceID, o.LogContext.SpanID
		}
		r.Body, _ = o.Body.(string)
		return []Record{r}, nil
	case o.ScopeMetrics != nil:
		return nil, nil // counters and histograms: no call in them
	case o.ResourceSpans != nil:
		return nil, sentence.Errorf("it is OTLP JSON, not Gemini CLI's outfile")
	}
	return nil, sentence.Errorf("it is no span, log record or metrics object of the OpenTelemetry JS SDK")
}

// hrTime reads the JS SDK's [seconds, nanoseconds].
func hrTime(t []json.Number) time.Time {
	if len(t) != 2 {
		return time.Time{}
	}
	s, err1 := strconv.ParseInt(string(t[0]), 10, 64)
	ns, err2 := strconv.ParseInt(string(t[1]), 10, 64)
	if err1 != nil || err2 != nil || s <= 0 {
		return time.Time{}
	}
	return time.Unix(s, ns).UTC()
}

// typed turns JSON numbers into int64 or float64, in place.
func typed(a map[string]any) map[string]any {
	for k, v := range a {
		a[k] = typedValue(v)
	}
	return a
}

func typedValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = typedValue(v[i])
		}
	}
	return v
}
