package har

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/internal/budget"
)

// MaxEntryBytes bounds one entry of a HAR file being read: memory stays
// bounded by it however large the file. A real model call's entry is at
// most a few MiB (glassbox reads at most 8 MiB of a reply).
const MaxEntryBytes = 64 << 20

// Errors a reader returns, wrapped with where it happened.
var (
	// ErrNotHAR: the file is JSON (or not) but not an HTTP Archive.
	ErrNotHAR = sentence.Errorf("not a HAR file")
	// ErrTruncated: the file ends in the middle.
	ErrTruncated = sentence.Errorf("the HAR file is cut off")
	// ErrEntryTooLarge: one entry is larger than the reader's bound.
	ErrEntryTooLarge = sentence.Errorf("a HAR entry is larger than glassbox reads")
)

// Entry is one exchange read from a HAR file, masked (providers.Redact):
// credential headers and parameters by name, and the secrets the Reader
// was given. A glassbox-written file also gives back what HAR has no
// field for (the chunks' arrival, the step).
type Entry struct {
	Exchange providers.Exchange
	// Started is the entry's startedDateTime (zero when it does not parse).
	Started time.Time
	Meta    Meta
	// Index counts the entries from 1, for messages.
	Index int
}

// Reader reads a HAR file's entries one at a time (Next), never holding
// more than one entry. It is tolerant of what browsers and mitmproxy
// write: extra fields, pages, HTTP/2 pseudo-headers, base64 bodies,
// timings of -1, entries before the creator.
type Reader struct {
	// Secrets are masked wherever they appear in an entry.
	Secrets []string
	// Max bounds one entry (MaxEntryBytes when 0).
	Max int64

	in      *budget.Reader
	dec     *json.Decoder
	started bool
	inArray bool
	done    bool
	n       int
	version string
	creator harCreator
	err     error
}

// NewReader reads the HAR file r holds.
func NewReader(r io.Reader) *Reader {
	b := &budget.Reader{R: r}
	dec := json.NewDecoder(b)
	dec.UseNumber()
	return &Reader{in: b, dec: dec}
}

// Creator is the tool that wrote the file and its version, once Next has
// read past them ("" when the file does not say).
func (r *Reader) Creator() (name, version string) { return r.creator.Name, r.creator.Version }

// Version is the file's HAR version, once read.
func (r *Reader) Version() string { return r.version }

// Next returns the next entry, or io.EOF after the last one of a file that
// is whole. Any other error is final: a file that is not HAR, one cut off,
// an entry that is too large or damaged.
func (r *Reader) Next() (Entry, error) {
	if r.err != nil {
		return Entry{}, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
	}
	return e, err
}

func (r *Reader) next() (Entry, error) {
	r.in.Reset(r.limit())
	if !r.started {
		r.started = true
		if err := r.open(); err != nil {
			return Entry{}, err
		}
	}
	for !r.done {
		if r.inArray {
			if !r.dec.More() {
				if err := r.expectDelim(']'); err != nil {
					return Entry{}, err
				}
				r.inArray = false
				continue
			}
			return r.entry()
		}
		if err := r.logField(); err != nil {
			return Entry{}, err
		}
	}
	return Entry{}, io.EOF
}

func (r *Reader) limit() int64 {
	if r.Max > 0 {
		return r.Max
	}
	return MaxEntryBytes
}

// open reads up to the log object's first field: {"log":{ — skipping any
// other top-level field before it.
func (r *Reader) open() error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.notHAR(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return sentence.Errorf("%w: it is JSON, but not an object with a \"log\"", ErrNotHAR)
	}
	for r.dec.More() {
		key, err := r.key()
		if err != nil {
			return err
		}
		if key == "log" {
			return r.expectDelim('{')
		}
		if err := r.skip(); err != nil {
			return err
		}
	}
	return sentence.Errorf("%w: its JSON object has no \"log\"", ErrNotHAR)
}

// logField reads one field of the log object; at its end, the rest of the
// file must close properly.
func (r *Reader) logField() error {
	if !r.dec.More() {
		if err := r.expectDelim('}'); err != nil { // log
			return err
		}
		for r.dec.More() { // top-level fields after log
			if _, err := r.key(); err != nil {
				return err
			}
			if err := r.skip(); err != nil {
				return err
			}
		}
		if err := r.expectDelim('}'); err != nil {
			return err
		}
		if _, err := r.dec.Token(); !errors.Is(err, io.EOF) {
			return sentence.Errorf("%w: something follows the HAR object", ErrNotHAR)
		}
		if r.n == 0 && r.version == "" {
			return sentence.Errorf("%w: its \"log\" has no version and no entries", ErrNotHAR)
		}
		r.done = true
		return nil
	}
	key, err := r.key()
	if err != nil {
		return err
	}
	switch key {
	case "version":
		return r.decode(&r.version, "log.version")
	case "creator":
		return r.decode(&r.creator, "log.creator")
	case "entries":
		if err := r.expectDelim('['); err != nil {
			return err
		}
		r.inArray = true
		return nil
	}
	return r.skip()
}

func (r *Reader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", r.cut(err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", sentence.Errorf("%w: a field name was expected", ErrNotHAR)
	}
	return s, nil
}

func (r *Reader) expectDelim(want json.Delim) error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.cut(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return sentence.Errorf("%w: %q was expected, found %v", ErrNotHAR, string(want), tok)
	}
	return nil
}

func (r *Reader) skip() error {
	var v json.RawMessage
	return r.decode(&v, "a field")
}

func (r *Reader) decode(v any, what string) error {
	if err := r.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return sentence.Errorf("%w: %s is not what HAR says it is (%v)", ErrNotHAR, what, err)
		}
		return r.cut(err)
	}
	return nil
}

// cut explains a read that failed: the budget ran out, the file ended, or
// the JSON is broken.
func (r *Reader) cut(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, budget.ErrOver):
		return sentence.Errorf("%w: entry %d is over %d MiB", ErrEntryTooLarge, r.n+1, r.limit()>>20)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return sentence.Errorf("%w after %d entries", ErrTruncated, r.n)
	case errors.As(err, &syn):
		return sentence.Errorf("%w: broken JSON at byte %d (%v)", ErrNotHAR, syn.Offset, err)
	}
	return err
}

func (r *Reader) notHAR(err error) error {
	if errors.Is(err, io.EOF) {
		return sentence.Errorf("%w: the file is empty", ErrNotHAR)
	}
	return sentence.Errorf("%w: it is not JSON", ErrNotHAR)
}

// entryIn is an entry as read: lenient where tools differ.
type entryIn struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            json.Number `json:"time"`
	Request         *struct {
		Method   string    `json:"method"`
		URL      string    `json:"url"`
		Headers  []nameVal `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"postData"`
	} `json:"request"`
	Response *struct {
		Status  json.Number `json:"status"`
		Headers []nameVal   `json:"headers"`
		Content struct {
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
	Timings  map[string]json.Number `json:"timings"`
	Error    string                 `json:"_error"`
	Glassbox *glassboxEntry         `json:"_glassbox"`
}

func (r *Reader) entry() (Entry, error) {
	var in entryIn
	r.n++
	if err := r.decode(&in, fmt.Sprintf("entry %d", r.n)); err != nil {
		return Entry{}, err
	}
	if in.Request == nil || in.Request.Method == "" || in.Request.URL == "" {
		return Entry{}, sentence.Errorf("%w: entry %d has no request method or URL", ErrNotHAR, r.n)
	}
	ex, err := in.exchange()
	if err != nil {
		return Entry{}, sentence.Errorf("entry %d: %w", r.n, err)
	}
	e := Entry{Exchange: providers.Redact(ex, r.Secrets...), Index: r.n}
	e.Started, _ = time.Parse(time.RFC3339Nano, in.StartedDateTime)
	if g := in.Glassbox; g != nil {
		e.Meta = Meta{Kind: g.Kind, Run: g.Run, Step: g.Step, Iteration: g.Iteration}
	}
	e.Meta.Started = e.Started
	return e, nil
}

func (in entryIn) exchange() (providers.Exchange, error) {
	ex := providers.Exchange{Method: in.Request.Method, URL: in.Request.URL, Err: in.Error}
	ex.RequestHeaders, ex.WireHeaders = headersIn(in.Request.Headers, in.Glassbox)
	if pd := in.Request.PostData; pd != nil {
		body, err := decodeBody(pd.Text, pd.Encoding)
		if err != nil {
			return ex, sentence.Errorf("request body: %w", err)
		}
		ex.RequestBody = body
		if pd.MimeType != "" && ex.RequestHeaders["Content-Type"] == nil {
			if ex.RequestHeaders == nil {
				ex.RequestHeaders = map[string][]string{}
			}
			ex.RequestHeaders["Content-Type"] = []string{pd.MimeType}
		}
	}
	if resp := in.Response; resp != nil {
		status, _ := resp.Status.Int64()
		ex.Status = int(status)
		ex.ResponseHeaders, _ = headersIn(resp.Headers, nil)
		body, err := decodeBody(resp.Content.Text, resp.Content.Encoding)
		if err != nil {
			return ex, sentence.Errorf("response body: %w", err)
		}
		ex.ResponseBody = body
	}
	ex.TTFB, ex.Total = in.times()
	if g := in.Glassbox; g != nil {
		ex.Redacted, ex.Divergence = g.Redacted, g.Divergence
		ex.Chunks = chunksOf(ex.ResponseBody, g.Chunks)
	}
	return ex, nil
}

// headersIn reads a header list: HTTP/2 pseudo-headers (":authority")
// are left out. With glassbox's own marks, the list is the fields as the
// transport wrote them, and those it added are not the request's own.
func headersIn(list []nameVal, g *glassboxEntry) (map[string][]string, []providers.WireHeader) {
	if len(list) == 0 {
		return nil, nil
	}
	h := map[string][]string{}
	var wire []providers.WireHeader
	for i, nv := range list {
		if strings.HasPrefix(nv.Name, ":") {
			continue
		}
		added := g != nil && slices.Contains(g.Added, i)
		if g != nil && len(g.Added) > 0 {
			wire = append(wire, providers.WireHeader{Name: nv.Name, Value: nv.Value, Added: added})
		}
		if !added {
			name := http.CanonicalHeaderKey(nv.Name) // as the capture keys them
			h[name] = append(h[name], nv.Value)
		}
	}
	return h, wire
}

func decodeBody(text, encoding string) ([]byte, error) {
	switch strings.ToLower(encoding) {
	case "":
		if text == "" {
			return nil, nil
		}
		return []byte(text), nil
	case "base64":
		return base64.StdEncoding.DecodeString(text)
	}
	return nil, sentence.Errorf("content encoding %q is not one glassbox reads (base64 or none)", encoding)
}

// times are the time to the first byte (every phase before the response
// began: blocked, dns, connect, send, wait) and the whole, from HAR's
// milliseconds; -1 phases count nothing.
func (in entryIn) times() (ttfb, total time.Duration) {
	var before float64
	for _, k := range []string{"blocked", "dns", "connect", "send", "wait"} {
		if v, err := in.Timings[k].Float64(); err == nil && v > 0 {
			before += v
		}
	}
	ttfb = nanos(before)
	if t, err := in.Time.Float64(); err == nil && t >= 0 {
		total = nanos(t)
	} else {
		receive, _ := in.Timings["receive"].Float64()
		total = nanos(before + math.Max(receive, 0))
	}
	return ttfb, max(total, ttfb)
}

func nanos(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }

// chunksOf rebuilds the chunks from their lengths, when they add up to the
// body.
func chunksOf(body []byte, refs []chunkRef) []providers.Chunk {
	if len(refs) == 0 {
		return nil
	}
	total := 0
	for _, c := range refs {
		if c.Bytes < 0 {
			return nil
		}
		total += c.Bytes
	}
	if total != len(body) {
		return nil
	}
	out := make([]providers.Chunk, 0, len(refs))
	at := 0
	for _, c := range refs {
		out = append(out, providers.Chunk{Data: body[at : at+c.Bytes : at+c.Bytes], Offset: time.Duration(c.Offset), Start: time.Duration(c.Start), Reads: c.Reads})
		at += c.Bytes
	}
	return out
}
