package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ReplayTransport serves a cassette's responses, in order, in place of the
// network (`--replay FILE`). Put it under the capture Transport
// (NewTransport(replay, ...)) so the SDK parses the recorded bytes as if they
// were live, and the glass box shows them as usual.
//
// Each incoming request is compared with the one recorded at the same
// position: method, URL path and query (host ignored, and credential
// parameters ignored since they were redacted), and the body as canonical
// JSON (where the recording says [REDACTED], anything matches). When they
// differ, the recorded response is served anyway and the difference is
// flagged, never hidden: it is kept in Divergences and sent to the capture
// Transport in the DivergenceHeader response header, which the capture moves
// into Exchange.Divergence.
type ReplayTransport struct {
	cassette *Cassette

	mu          sync.Mutex
	next        int // index of the next exchange to serve
	divergences []string
}

var _ http.RoundTripper = (*ReplayTransport)(nil)

// NewReplayTransport serves c's exchanges from the first.
func NewReplayTransport(c *Cassette) *ReplayTransport {
	if c == nil {
		c = &Cassette{}
	}
	return &ReplayTransport{cassette: c}
}

// StartAt makes exchange n (counted from 0) the next one served: a resumed
// session goes on where its run had got to in the cassette.
func (t *ReplayTransport) StartAt(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next = min(max(n, 0), len(t.cassette.Exchanges))
}

// Divergences lists, in order, every way the replayed requests differed from
// the recording.
func (t *ReplayTransport) Divergences() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.divergences)
}

// RoundTrip serves the next recorded response.
func (t *ReplayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}

	t.mu.Lock()
	n := t.next + 1 // recordings are numbered from 1 for people
	if t.next >= len(t.cassette.Exchanges) {
		msg := t.missing(n, req, body)
		t.divergences = append(t.divergences, msg)
		t.mu.Unlock()
		return nil, &Error{Kind: KindOther, Message: msg}
	}
	rec := t.cassette.Exchanges[t.next]
	t.next++
	divergence := compareRequest(n, req, body, rec)
	if divergence != "" {
		t.divergences = append(t.divergences, divergence)
	}
	t.mu.Unlock()

	if rec.Err != "" && rec.Status == 0 {
		// The recording failed before any response: fail the same way,
		// with an error of the same kind (a refusal stays a refusal).
		return nil, recordedFailure(rec.Err)
	}
	return replayResponse(req, rec, divergence), nil
}

// missing says why the cassette has no exchange #n for req: what differs
// between req and the recording — its path, its mode (streamed or unary),
// its model — or, when nothing does, that the run went further than the
// recording did.
func (t *ReplayTransport) missing(n int, req *http.Request, body []byte) string {
	c := t.cassette
	head := fmt.Sprintf("the cassette has no recorded exchange #%d for %s %s: it holds %d", n, req.Method, requestTarget(req.URL), len(c.Exchanges))
	var differs []string
	paths, known := recordedPaths(c, req)
	if !known && len(paths) > 0 {
		differs = append(differs, fmt.Sprintf("its path (the recording called %s)", strings.Join(paths, ", ")))
	}
	if sent, recorded := requestMode(req, body), c.Mode(); sent != "" && recorded != "" && sent != recorded {
		differs = append(differs, fmt.Sprintf("its mode (%s; the recording is %s)", sent, recorded))
	}
	if m := c.Header.Model; m != "" && !strings.Contains(req.URL.Path, m) && !bytes.Contains(body, []byte(`"model":"`+m+`"`)) {
		differs = append(differs, fmt.Sprintf("its model (the recording asked %s)", m))
	}
	dialect := c.Header.Provider
	if c.Header.ToolMode != "" {
		dialect += ", " + c.Header.ToolMode + " mode"
	}
	if len(differs) == 0 {
		return fmt.Sprintf("%s, so this run went further than the recording did (%s); record it again with --record", head, dialect)
	}
	return fmt.Sprintf("%s, recorded with %s: this request differs in %s; replay it as it was recorded, or record it again with --record",
		head, dialect, strings.Join(differs, " and in "))
}

// recordedPaths are the methods and paths the cassette's exchanges called,
// each once; known says req's is among them.
func recordedPaths(c *Cassette, req *http.Request) (paths []string, known bool) {
	for _, x := range c.Exchanges {
		u, err := url.Parse(x.URL)
		if err != nil {
			continue
		}
		if x.Method == req.Method && u.EscapedPath() == req.URL.EscapedPath() {
			known = true
		}
		if p := x.Method + " " + u.EscapedPath(); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths, known
}

// requestMode is whether req asks for its reply streamed or whole, as far
// as it says: a stream's query (alt=sse) or path (streamGenerateContent),
// or the body's "stream"; "" when it does not say.
func requestMode(req *http.Request, body []byte) string {
	switch {
	case req.URL.Query().Get("alt") == "sse", strings.Contains(req.URL.Path, ":streamGenerateContent"):
		return ModeStream
	case strings.HasSuffix(req.URL.Path, ":generateContent"):
		return ModeUnary
	}
	var probe struct {
		Stream *bool `json:"stream"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Stream == nil {
		return ""
	}
	if *probe.Stream {
		return ModeStream
	}
	return ModeUnary
}

// bodyCutPrefix is how the capture Transport words a failure while the
// response body was being read; replay strips it, and the capture adds it
// again, so the replayed exchange reads as the recorded one.
const bodyCutPrefix = "the response body was cut off: "

// recordedFailure rebuilds a recorded transport failure as an error with the
// recorded text and the same kind underneath, so each SDK and provider
// classifies it as it did live: a refused connection (not retried), an
// unknown host, a reset or an unexpected EOF (retried), a timeout.
func recordedFailure(text string) error {
	text = strings.TrimPrefix(text, bodyCutPrefix)
	if limit := LimitFailure(text); limit != nil {
		return limit // a stall or a call too long fails the same way again
	}
	lower := strings.ToLower(text)
	var cause error
	switch {
	case strings.Contains(lower, "connection refused"):
		cause = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case strings.Contains(lower, "no such host"):
		cause = &net.DNSError{Err: "no such host", Name: dnsName(text), IsNotFound: true}
	case strings.Contains(lower, "connection reset"):
		cause = &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	case strings.Contains(lower, "broken pipe"):
		cause = &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	case strings.Contains(lower, "unexpected eof"):
		cause = io.ErrUnexpectedEOF
	case strings.Contains(lower, "timeout") || strings.Contains(lower, "deadline exceeded"):
		cause = &net.OpError{Op: "read", Net: "tcp", Err: timeoutError{}}
	}
	return &replayedFailure{text: text, cause: cause}
}

// replayedFailure reads as the recorded failure and unwraps to its kind.
type replayedFailure struct {
	text  string
	cause error // nil when the kind was not recognised
}

func (e *replayedFailure) Error() string { return e.text }
func (e *replayedFailure) Unwrap() error { return e.cause }

// timeoutError is a net.Error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// dnsName is the host a recorded "lookup HOST …: no such host" names.
func dnsName(text string) string {
	if _, after, ok := strings.Cut(text, "lookup "); ok {
		if host, _, ok := strings.Cut(after, " "); ok {
			return strings.TrimSuffix(host, ":")
		}
	}
	return ""
}

// requestTarget is the path and query of u, with credential parameters masked.
func requestTarget(u *url.URL) string {
	var ignored notes
	target := u.EscapedPath()
	if q := maskQuery(u.RawQuery, &ignored); q != "" {
		target += "?" + q
	}
	return target
}

// chunksMatchBody reports whether the recorded chunks still add up to the
// recorded body. An instructor who edits response_body in a cassette by hand
// gets the edited body served (as one read), not the stale chunks.
func chunksMatchBody(rec Exchange) bool {
	var joined []byte
	for _, c := range rec.Chunks {
		joined = append(joined, c.Data...)
	}
	return bytes.Equal(joined, rec.ResponseBody)
}

func replayResponse(req *http.Request, rec Exchange, divergence string) *http.Response {
	header := http.Header{}
	for name, values := range rec.ResponseHeaders {
		header[name] = slices.Clone(values)
	}
	if divergence != "" {
		header.Set(DivergenceHeader, divergence)
	}

	var end error // what the body ends with after its last byte
	if rec.Err != "" {
		end = recordedFailure(rec.Err) // cut while the body arrived
	}
	length := int64(len(rec.ResponseBody))
	reader := &chunkReader{end: end}
	if len(rec.Chunks) > 0 && chunksMatchBody(rec) {
		length = 0
		reader.ttfb, reader.total = rec.TTFB, rec.Total
		for _, c := range rec.Chunks {
			reader.chunks = append(reader.chunks, c.Data)
			reader.times = append(reader.times, Chunk{Offset: c.Offset, Reads: c.Reads, Start: c.Start})
			length += int64(len(c.Data))
		}
	} else if len(rec.ResponseBody) > 0 {
		reader.chunks = [][]byte{rec.ResponseBody}
	}
	var body io.ReadCloser = reader
	if end != nil {
		length = -1 // a cut body never reached a length
		header.Del("Content-Length")
	}
	if header.Get("Content-Length") != "" {
		// Redaction may have changed the length since it was recorded.
		header.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rec.Status, http.StatusText(rec.Status)),
		StatusCode:    rec.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: length,
		Request:       req,
	}
}

// chunkReader hands out recorded chunks one Read at a time, so a streamed
// response arrives in the same pieces it was recorded in, then ends as the
// recording did: at io.EOF, or with the recorded failure at the same point.
// Replay never sleeps: instead the capture takes the recorded times from the
// reader (recordedClock), so the glass box shows each chunk at the offset it
// had in the recording.
type chunkReader struct {
	chunks [][]byte
	times  []Chunk // when each chunk arrived in the recording (no data); nil when unknown
	ttfb   time.Duration
	total  time.Duration
	last   Chunk // the times of the chunk the last Read took from
	end    error // nil: io.EOF
}

var _ recordedClock = (*chunkReader)(nil)

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
		if len(r.times) > 0 {
			r.times = r.times[1:]
		}
	}
	if len(r.chunks) == 0 {
		if r.end != nil {
			return 0, r.end
		}
		return 0, io.EOF
	}
	if len(r.times) > 0 {
		r.last = r.times[0]
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

func (r *chunkReader) recordedTimes() (ttfb, total time.Duration, ok bool) {
	return r.ttfb, r.total, r.times != nil
}

func (r *chunkReader) recordedChunk() (Chunk, bool) {
	return r.last, r.times != nil
}

func (r *chunkReader) Close() error { return nil }

// compareRequest says, in one sentence, how req differs from recording #n,
// or returns "" when it matches.
func compareRequest(n int, req *http.Request, body []byte, rec Exchange) string {
	if req.Method != rec.Method {
		return fmt.Sprintf("request method differs from recording #%d: sent %s, recorded %s", n, req.Method, rec.Method)
	}
	recURL, err := url.Parse(rec.URL)
	if err != nil {
		return fmt.Sprintf("recording #%d has a URL that does not parse (%v), so the request could not be compared", n, err)
	}
	if !sameTarget(req.URL, recURL) {
		return fmt.Sprintf("request URL differs from recording #%d: sent %s, recorded %s", n, requestTarget(req.URL), requestTarget(recURL))
	}
	return compareBodies(n, body, rec.RequestBody)
}

// sameTarget compares path and query, ignoring the host (a replay may run
// against another base URL) and any parameter that was redacted.
func sameTarget(sent, recorded *url.URL) bool {
	if !matchesRedacted(sent.Path, recorded.Path) {
		return false
	}
	sentQ, recQ := sent.Query(), recorded.Query()
	for name, values := range recQ {
		if isSensitiveParam(name) || slices.Contains(values, RedactedMark) {
			delete(sentQ, name)
			delete(recQ, name)
		}
	}
	for name := range sentQ {
		if isSensitiveParam(name) {
			delete(sentQ, name)
		}
	}
	return sentQ.Encode() == recQ.Encode()
}

func compareBodies(n int, sent, recorded []byte) string {
	if len(bytes.TrimSpace(sent)) == 0 && len(bytes.TrimSpace(recorded)) == 0 {
		return ""
	}
	var sentV, recV any
	sentErr := json.Unmarshal(sent, &sentV)
	recErr := json.Unmarshal(recorded, &recV)
	if sentErr != nil || recErr != nil {
		if matchesRedacted(string(sent), string(recorded)) {
			return ""
		}
		return fmt.Sprintf("request body differs from recording #%d (it is not JSON, and %d bytes were sent where %d were recorded)", n, len(sent), len(recorded))
	}
	if path, differs := firstJSONDifference(sentV, recV, ""); differs {
		if path == "" {
			path = "the top level"
		}
		return fmt.Sprintf("request body differs from recording #%d at %s", n, path)
	}
	return ""
}

// firstJSONDifference walks two decoded JSON values in a fixed order (object
// keys sorted) and returns the path of the first place they differ, such as
// contents[3].parts[0].text.
func firstJSONDifference(sent, recorded any, path string) (string, bool) {
	switch rec := recorded.(type) {
	case map[string]any:
		s, ok := sent.(map[string]any)
		if !ok {
			return path, true
		}
		return firstObjectDifference(s, rec, path)
	case []any:
		s, ok := sent.([]any)
		if !ok {
			return path, true
		}
		for i := range min(len(s), len(rec)) {
			if p, differs := firstJSONDifference(s[i], rec[i], fmt.Sprintf("%s[%d]", path, i)); differs {
				return p, true
			}
		}
		if len(s) != len(rec) {
			return fmt.Sprintf("%s[%d]", path, min(len(s), len(rec))), true
		}
		return "", false
	case string:
		s, ok := sent.(string)
		if !ok || !matchesRedacted(s, rec) {
			return path, true
		}
		return "", false
	default: // numbers, booleans, null
		if sent != recorded {
			return path, true
		}
		return "", false
	}
}

// firstObjectDifference is firstJSONDifference of two objects: their keys
// (of either) in sorted order, a key only one has being a difference.
func firstObjectDifference(s, rec map[string]any, path string) (string, bool) {
	keys := make([]string, 0, len(rec)+len(s))
	for k := range rec {
		keys = append(keys, k)
	}
	for k := range s {
		if _, inRec := rec[k]; !inRec {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		sv, inSent := s[k]
		rv, inRec := rec[k]
		child := joinPath(path, k)
		if inSent != inRec {
			return child, true
		}
		if p, differs := firstJSONDifference(sv, rv, child); differs {
			return p, true
		}
	}
	return "", false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// matchesRedacted reports whether sent equals recorded, where each
// [REDACTED] in recorded stands for any text.
func matchesRedacted(sent, recorded string) bool {
	if !strings.Contains(recorded, RedactedMark) {
		return sent == recorded
	}
	pieces := strings.Split(recorded, RedactedMark)
	for i, p := range pieces {
		pieces[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile(`^(?s:` + strings.Join(pieces, `.*`) + `)$`)
	return err == nil && re.MatchString(sent)
}
