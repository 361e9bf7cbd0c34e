package providers

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// CassetteVersion is the cassette format this glassbox writes and reads.
const CassetteVersion = 1

// A cassette is a JSONL file of recorded HTTP exchanges (`--record FILE`,
// `--replay FILE`). The first line is a CassetteHeader; every further line is
// one Exchange, already redacted. Bodies and chunks are written as JSON
// strings when they are valid UTF-8 (so a cassette can be read and edited by
// hand) and as {"base64":"..."} otherwise.

// CassetteHeader is the first line of a cassette: what was recorded, and how.
type CassetteHeader struct {
	Version  int    `json:"glassbox_cassette"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	ToolMode string `json:"tool_mode"`
	// Mode is how the calls were made: ModeUnary (--stream=false) or
	// ModeStream. A cassette written before glassbox recorded it has none;
	// Cassette.Mode reads it from the exchanges.
	Mode       string    `json:"mode,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
}

// The modes a model call is made in.
const (
	ModeUnary  = "unary"  // one request, one JSON body
	ModeStream = "stream" // the reply streamed: server-sent events or NDJSON
)

// ModeOf is the mode of calls made with o.
func ModeOf(o CallOptions) string {
	if o.Unary {
		return ModeUnary
	}
	return ModeStream
}

// Mode is how the recorded calls were made: the header's word, or for a
// cassette that has none (recorded before glassbox wrote it), what its
// first answered model call shows — a streamed body (server-sent events,
// NDJSON) or a single JSON one. "" when no exchange tells.
func (c *Cassette) Mode() string {
	if c.Header.Mode != "" {
		return c.Header.Mode
	}
	for _, x := range c.Exchanges {
		if x.Status != http.StatusOK {
			continue
		}
		ct := strings.ToLower(http.Header(x.ResponseHeaders).Get("Content-Type"))
		switch {
		case strings.Contains(ct, "text/event-stream"), strings.Contains(ct, "ndjson"):
			return ModeStream
		case strings.Contains(ct, "json"):
			return ModeUnary
		}
	}
	return ""
}

// Cassette is a loaded recording.
type Cassette struct {
	Header    CassetteHeader
	Exchanges []Exchange
}

// LoadCassette reads the cassette at path.
func LoadCassette(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, sentence.Errorf("cannot open cassette %s: %w", path, err)
	}
	defer f.Close()

	// bufio.Reader rather than Scanner: a line holds a whole response body
	// and may be far longer than Scanner's 64 KiB limit.
	r := bufio.NewReader(f)
	c := &Cassette{}
	lineNo := 0
	sawHeader := false
	for {
		line, readErr := r.ReadBytes('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return nil, sentence.Errorf("cannot read cassette %s: %w", path, readErr)
		}
		if len(line) > 0 {
			lineNo++
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			// blank lines (and the end of the file) carry nothing
		case !sawHeader:
			h, err := parseCassetteHeader(path, line)
			if err != nil {
				return nil, err
			}
			c.Header = h
			sawHeader = true
		default:
			var ex exchangeJSON
			if err := json.Unmarshal(line, &ex); err != nil {
				return nil, sentence.Errorf("cassette %s: line %d is not a complete exchange (%v); the recording may have been cut off there — delete that line or record again with --record", path, lineNo, err)
			}
			c.Exchanges = append(c.Exchanges, ex.exchange())
		}
		if readErr != nil { // io.EOF
			break
		}
	}
	if !sawHeader {
		return nil, sentence.Errorf("%s is empty, so it is not a glassbox cassette; record one with --record %s", path, path)
	}
	return c, nil
}

func parseCassetteHeader(path string, line []byte) (CassetteHeader, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil || probe["glassbox_cassette"] == nil {
		return CassetteHeader{}, sentence.Errorf("%s is not a glassbox cassette: its first line should be a header like {\"glassbox_cassette\":%d,...}; record one with --record", path, CassetteVersion)
	}
	var h CassetteHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return CassetteHeader{}, sentence.Errorf("%s has a damaged cassette header (%v); record it again with --record", path, err)
	}
	if h.Version != CassetteVersion {
		return CassetteHeader{}, sentence.Errorf("%s is a version %d cassette, but this glassbox reads version %d; record it again with --record", path, h.Version, CassetteVersion)
	}
	return h, nil
}

// CassetteWriter appends exchanges to a cassette file as they complete. It
// is safe for concurrent use; each exchange is written with a single write,
// so a crash leaves at most one torn last line.
type CassetteWriter struct {
	mu   sync.Mutex
	f    *os.File
	path string
	mask *Masker
	// conv masks the request bodies, each the last one and a little more.
	conv   *Conversation
	convMu sync.Mutex
}

// NewCassetteWriter creates (or truncates) the cassette at path and writes
// its header. A zero RecordedAt is set to now; Version is always
// CassetteVersion.
//
// secrets are masked in every exchange written (Masker.Exchange: each field,
// and a streamed body as the whole it reassembles into), over what the wire
// capture already masked.
func NewCassetteWriter(path string, h CassetteHeader, secrets ...string) (*CassetteWriter, error) {
	h.Version = CassetteVersion
	if h.RecordedAt.IsZero() {
		h.RecordedAt = time.Now().UTC().Truncate(time.Second)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, sentence.Errorf("cannot create cassette %s: %w", path, err)
	}
	mask := NewMasker(secrets...)
	w := &CassetteWriter{f: f, path: path, mask: mask, conv: mask.Conversation()}
	if err := w.writeLine(h); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Write appends one exchange.
func (w *CassetteWriter) Write(ex Exchange) error {
	w.convMu.Lock()
	ex = w.mask.ExchangeIn(ex, w.conv)
	w.convMu.Unlock()
	return w.writeLine(newExchangeJSON(ex))
}

func (w *CassetteWriter) writeLine(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return sentence.Errorf("cannot encode a line of cassette %s: %w", w.path, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return sentence.Errorf("cassette %s is already closed", w.path)
	}
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		return sentence.Errorf("cannot write to cassette %s: %w", w.path, err)
	}
	return nil
}

// Close closes the file; later writes fail.
func (w *CassetteWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return sentence.Errorf("cannot close cassette %s: %w", w.path, err)
	}
	return nil
}

// exchangeJSON is an Exchange as a cassette line: the same fields, with the
// bodies and chunks readable. encoding/json prefers the shallower field, so
// the fields declared here replace the embedded ones of the same name.
type exchangeJSON struct {
	exchangeFields
	RequestBody  textOrBytes `json:"request_body"`
	ResponseBody textOrBytes `json:"response_body"`
	Chunks       []chunkJSON `json:"chunks,omitempty"`
}

// exchangeFields has Exchange's fields but none of its methods.
type exchangeFields Exchange

type chunkJSON struct {
	Offset time.Duration `json:"offset_ns"`
	Data   textOrBytes   `json:"data"`
	Reads  int           `json:"reads,omitempty"`
	Start  time.Duration `json:"start_ns,omitempty"`
}

func newExchangeJSON(ex Exchange) exchangeJSON {
	out := exchangeJSON{
		exchangeFields: exchangeFields(ex),
		RequestBody:    ex.RequestBody,
		ResponseBody:   ex.ResponseBody,
	}
	for _, c := range ex.Chunks {
		out.Chunks = append(out.Chunks, chunkJSON{Offset: c.Offset, Data: c.Data, Reads: c.Reads, Start: c.Start})
	}
	return out
}

func (e exchangeJSON) exchange() Exchange {
	ex := Exchange(e.exchangeFields)
	ex.RequestBody = e.RequestBody
	ex.ResponseBody = e.ResponseBody
	ex.Chunks = nil
	for _, c := range e.Chunks {
		ex.Chunks = append(ex.Chunks, Chunk{Offset: c.Offset, Data: c.Data, Reads: c.Reads, Start: c.Start})
	}
	return ex
}

// textOrBytes is a body in a cassette: a JSON string when it is UTF-8 text,
// {"base64":"..."} when it is not.
type textOrBytes []byte

func (b textOrBytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return json.Marshal(string(b))
	}
	return json.Marshal(struct {
		Base64 []byte `json:"base64"`
	}{b})
}

func (b *textOrBytes) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		*b = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = []byte(s)
		return nil
	}
	var enc struct {
		Base64 string `json:"base64"`
	}
	if err := json.Unmarshal(data, &enc); err != nil {
		return sentence.Errorf("a body must be a string or {\"base64\":...}: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc.Base64)
	if err != nil {
		return sentence.Errorf("a base64 body does not decode: %w", err)
	}
	*b = raw
	return nil
}
