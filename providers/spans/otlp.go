package spans

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// The OTLP JSON encoding (opentelemetry-proto's JSON mapping, as the
// collector's file exporter writes it: one ExportTraceServiceRequest,
// ExportLogsServiceRequest or ExportMetricsServiceRequest per line),
// as far as glassbox reads it. Integers may come as strings or numbers,
// enums as numbers or names, ids as hex (the specification) or base64
// (protobuf's own JSON mapping).

type otlpBatch struct {
	ResourceSpans   []otlpResourceSpans `json:"resourceSpans"`
	ResourceLogs    []otlpResourceLogs  `json:"resourceLogs"`
	ResourceMetrics json.RawMessage     `json:"resourceMetrics"`
}

type otlpResourceSpans struct {
	ScopeSpans []struct {
		Spans []otlpSpan `json:"spans"`
	} `json:"scopeSpans"`
}

type otlpResourceLogs struct {
	ScopeLogs []struct {
		LogRecords []otlpLog `json:"logRecords"`
	} `json:"scopeLogs"`
}

type otlpSpan struct {
	TraceID      string         `json:"traceId"`
	SpanID       string         `json:"spanId"`
	ParentSpanID string         `json:"parentSpanId"`
	Name         string         `json:"name"`
	Start        json.Number    `json:"startTimeUnixNano"`
	End          json.Number    `json:"endTimeUnixNano"`
	Attributes   []otlpKeyValue `json:"attributes"`
	Status       struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"status"`
}

type otlpLog struct {
	Time       json.Number    `json:"timeUnixNano"`
	Observed   json.Number    `json:"observedTimeUnixNano"`
	Body       *otlpValue     `json:"body"`
	Attributes []otlpKeyValue `json:"attributes"`
	TraceID    string         `json:"traceId"`
	SpanID     string         `json:"spanId"`
	EventName  string         `json:"eventName"`
}

type otlpKeyValue struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	String *string         `json:"stringValue"`
	Bool   *bool           `json:"boolValue"`
	Int    json.RawMessage `json:"intValue"`
	Double json.RawMessage `json:"doubleValue"`
	Array  *struct {
		Values []otlpValue `json:"values"`
	} `json:"arrayValue"`
	KVList *struct {
		Values []otlpKeyValue `json:"values"`
	} `json:"kvlistValue"`
	Bytes *string `json:"bytesValue"`
}

// value is v as Record.Attrs types it.
func (v otlpValue) value() any {
	switch {
	case v.String != nil:
		return *v.String
	case v.Bool != nil:
		return *v.Bool
	case len(v.Int) > 0:
		n, err := strconv.ParseInt(unquote(v.Int), 10, 64)
		if err != nil {
			return unquote(v.Int)
		}
		return n
	case len(v.Double) > 0:
		f, err := strconv.ParseFloat(unquote(v.Double), 64)
		if err != nil {
			return unquote(v.Double)
		}
		return f
	case v.Array != nil:
		out := make([]any, len(v.Array.Values))
		for i, e := range v.Array.Values {
			out[i] = e.value()
		}
		return out
	case v.KVList != nil:
		return attrsOf(v.KVList.Values)
	case v.Bytes != nil:
		return *v.Bytes
	}
	return nil
}

func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func attrsOf(kvs []otlpKeyValue) map[string]any {
	a := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		a[kv.Key] = kv.Value.value()
	}
	return a
}

// unixNano reads a time in nanoseconds since 1970 (zero when absent).
func unixNano(n json.Number) time.Time {
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || v <= 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

// hexID is an id as hex, whether the file wrote hex or base64.
func hexID(s string, size int) string {
	if len(s) == 2*size {
		if _, err := hex.DecodeString(s); err == nil {
			return s
		}
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == size {
		return hex.EncodeToString(b)
	}
	return s
}

// statusError says a span's status code is ERROR (2, or its name).
func statusError(code json.RawMessage) bool {
	s := unquote(code)
	return s == "2" || s == "STATUS_CODE_ERROR"
}

// records are a batch's spans and logs, each list in the order of its
// start.
func (b otlpBatch) records() []Record {
	var out []Record
	for _, rs := range b.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				out = append(out, Record{
					Name: s.Name, TraceID: hexID(s.TraceID, 16), SpanID: hexID(s.SpanID, 8), ParentID: hexID(s.ParentSpanID, 8),
					Start: unixNano(s.Start), End: unixNano(s.End), Attrs: attrsOf(s.Attributes),
					Error: statusError(s.Status.Code), Status: s.Status.Message,
				})
			}
		}
	}
	for _, rl := range b.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, l := range sl.LogRecords {
				out = append(out, l.record())
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Record) int { return a.Start.Compare(b.Start) })
	return out
}

func (l otlpLog) record() Record {
	r := Record{Log: true, TraceID: hexID(l.TraceID, 16), SpanID: hexID(l.SpanID, 8), Attrs: attrsOf(l.Attributes)}
	r.Start = unixNano(l.Time)
	if r.Start.IsZero() {
		r.Start = unixNano(l.Observed)
	}
	r.End = r.Start
	r.Name = l.EventName
	if r.Name == "" {
		r.Name = str(r.Attrs, "event.name")
	}
	if l.Body != nil {
		if s, ok := l.Body.value().(string); ok {
			r.Body = s
		}
	}
	return r
}
