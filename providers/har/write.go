package har

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/providers"
)

// Meta says where an exchange belongs: when its request was sent, and what
// it was in the run.
type Meta struct {
	// Started is when the request went on the wire (HAR's startedDateTime).
	Started time.Time
	// Kind is "model" for a model call, "mcp" for MCP over HTTP.
	Kind string
	// Run is the run's name in a comparison; Step and Iteration the step
	// of the session the exchange belongs to.
	Run             string
	Step, Iteration int
}

// Kinds of exchange (Meta.Kind).
const (
	KindModel = "model"
	KindMCP   = "mcp"
)

// timeFormat is startedDateTime as browsers write it: ISO 8601 with
// milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// Writer writes a HAR file one entry at a time. Close ends it; a file not
// closed is not valid HAR (and reading it says it is truncated).
type Writer struct {
	w   *bufio.Writer
	n   int
	err error
}

// NewWriter starts a HAR file on w, created by glassbox version version.
func NewWriter(w io.Writer, version string) *Writer {
	hw := &Writer{w: bufio.NewWriter(w)}
	creator, _ := json.Marshal(harCreator{Name: "glassbox", Version: version})
	hw.write(`{"log":{"version":"` + Version + `","creator":` + string(creator) + `,"pages":[],"entries":[`)
	return hw
}

func (w *Writer) write(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// Add writes one exchange.
func (w *Writer) Add(ex providers.Exchange, m Meta) error {
	b, err := marshal(entryOf(ex, m))
	if err != nil {
		return err
	}
	if w.n > 0 {
		w.write(",")
	}
	w.n++
	w.write("\n" + string(b))
	return w.err
}

// Close ends the file and flushes it.
func (w *Writer) Close() error {
	w.write("\n]}}\n")
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// marshal is json.Marshal without escaping <, > and & (bodies stay readable).
func marshal(v any) ([]byte, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(sb.String(), "\n")), nil
}

// ms is d in milliseconds, to the microsecond (truncated, so the parts
// of a time add up to it exactly).
func ms(d time.Duration) float64 { return float64(d/time.Microsecond) / 1e3 }

func entryOf(ex providers.Exchange, m Meta) entry {
	wait := max(ex.TTFB, 0).Truncate(time.Microsecond)
	receive := max(ex.Total.Truncate(time.Microsecond)-wait, 0)
	e := entry{
		StartedDateTime: m.Started.UTC().Format(timeFormat),
		Time:            ms(wait + receive),
		Request:         requestOf(ex),
		Response:        responseOf(ex),
		Timings:         timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: ms(wait), Receive: ms(receive)},
		Error:           ex.Err,
	}
	g := &glassboxEntry{Kind: m.Kind, Run: m.Run, Step: m.Step, Iteration: m.Iteration, Redacted: ex.Redacted, Divergence: ex.Divergence}
	for i, h := range ex.WireHeaders {
		if h.Added {
			g.Added = append(g.Added, i)
		}
	}
	if chunks := chunkRefs(ex); chunks != nil {
		g.Chunks = chunks
	}
	e.Glassbox = g
	return e
}

// chunkRefs are the chunks as lengths into the response body, when they
// add up to it (they do: both are the bytes as they arrived, masked).
func chunkRefs(ex providers.Exchange) []chunkRef {
	if len(ex.Chunks) == 0 {
		return nil
	}
	var refs []chunkRef
	total := 0
	for _, c := range ex.Chunks {
		refs = append(refs, chunkRef{Bytes: len(c.Data), Offset: int64(c.Offset), Start: int64(c.Start), Reads: c.Reads})
		total += len(c.Data)
	}
	if total != len(ex.ResponseBody) {
		return nil
	}
	return refs
}

func requestOf(ex providers.Exchange) request {
	r := request{
		Method: ex.Method, URL: ex.URL, HTTPVersion: "",
		Cookies: []cookie{}, Headers: requestHeaders(ex), QueryString: query(ex.URL),
		HeadersSize: -1, BodySize: int64(len(ex.RequestBody)),
	}
	if ex.RequestBody != nil || ex.Method == http.MethodPost {
		text, enc := bodyText(ex.RequestBody)
		r.PostData = &postData{MimeType: headerValue(ex.RequestHeaders, "Content-Type"), Params: []nameVal{}, Text: text, Encoding: enc}
	}
	return r
}

// requestHeaders are the header fields as written on the wire, in order,
// when the capture saw them; else the request's, by name.
func requestHeaders(ex providers.Exchange) []nameVal {
	if len(ex.WireHeaders) > 0 {
		out := make([]nameVal, 0, len(ex.WireHeaders))
		for _, h := range ex.WireHeaders {
			out = append(out, nameVal{Name: h.Name, Value: h.Value})
		}
		return out
	}
	return headerList(ex.RequestHeaders)
}

func headerList(h map[string][]string) []nameVal {
	out := []nameVal{}
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			out = append(out, nameVal{Name: name, Value: v})
		}
	}
	return out
}

func headerValue(h map[string][]string, name string) string {
	return http.Header(h).Get(name)
}

// query is the URL's parameters in the order they were sent.
func query(raw string) []nameVal {
	out := []nameVal{}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return out
	}
	for _, pair := range strings.Split(u.RawQuery, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, nameVal{Name: k, Value: v})
	}
	return out
}

// bodyText is a body as HAR text: itself when it is UTF-8, else base64.
func bodyText(b []byte) (text, encoding string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

func responseOf(ex providers.Exchange) response {
	r := response{
		Status: ex.Status, StatusText: http.StatusText(ex.Status), HTTPVersion: "",
		Cookies: []cookie{}, Headers: headerList(ex.ResponseHeaders), RedirectURL: "",
		HeadersSize: -1, BodySize: int64(len(ex.ResponseBody)),
	}
	if headerValue(ex.ResponseHeaders, "Content-Encoding") != "" {
		r.BodySize = -1 // the body was decoded; its size on the wire is not known
	}
	if l := headerValue(ex.ResponseHeaders, "Location"); l != "" {
		r.RedirectURL = l
	}
	text, enc := bodyText(ex.ResponseBody)
	mime := headerValue(ex.ResponseHeaders, "Content-Type")
	if mime == "" {
		mime = "x-unknown"
	}
	r.Content = content{Size: int64(len(ex.ResponseBody)), MimeType: mime, Text: text, Encoding: enc}
	return r
}
