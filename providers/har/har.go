// Package har reads and writes HTTP Archive files (HAR 1.2,
// http://www.softwareishard.com/blog/har-12-spec/), the format browser
// devtools, mitmproxy and HTTP Toolkit save network traffic in, as
// providers.Exchange values: glassbox exports a run's model calls (and MCP
// over HTTP) as HAR for any network panel, and opens the HAR files other
// tools wrote.
//
// Writing keeps everything an exchange holds: the timings (send, wait =
// time to the first byte, receive), the headers as they went on the wire,
// the bodies as text, and — in the entry's _glassbox field, which other
// tools ignore as the format allows for names starting with "_" — what HAR
// has no field for: when each chunk of a streamed reply arrived, the
// redaction notes, a replay's divergence. Reading streams: one entry at a
// time, each bounded, so a huge file costs the memory of its largest entry;
// a truncated file, or one that is not HAR, is an error that says so.
package har

// Version is the HAR version glassbox writes and reads.
const Version = "1.2"

// The HAR 1.2 objects, as far as glassbox writes them. Every field the
// specification requires is present (with -1 or an empty list where the
// value is not known).

type harFile struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Pages   []struct{} `json:"pages"`
	Entries []entry    `json:"entries"`
	Comment string     `json:"comment,omitempty"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type entry struct {
	Pageref         string         `json:"pageref,omitempty"`
	StartedDateTime string         `json:"startedDateTime"`
	Time            float64        `json:"time"`
	Request         request        `json:"request"`
	Response        response       `json:"response"`
	Cache           struct{}       `json:"cache"`
	Timings         timings        `json:"timings"`
	ServerIPAddress string         `json:"serverIPAddress,omitempty"`
	Comment         string         `json:"comment,omitempty"`
	Error           string         `json:"_error,omitempty"`
	Glassbox        *glassboxEntry `json:"_glassbox,omitempty"`
}

type request struct {
	Method      string    `json:"method"`
	URL         string    `json:"url"`
	HTTPVersion string    `json:"httpVersion"`
	Cookies     []cookie  `json:"cookies"`
	Headers     []nameVal `json:"headers"`
	QueryString []nameVal `json:"queryString"`
	PostData    *postData `json:"postData,omitempty"`
	HeadersSize int64     `json:"headersSize"`
	BodySize    int64     `json:"bodySize"`
	Comment     string    `json:"comment,omitempty"`
}

type response struct {
	Status      int       `json:"status"`
	StatusText  string    `json:"statusText"`
	HTTPVersion string    `json:"httpVersion"`
	Cookies     []cookie  `json:"cookies"`
	Headers     []nameVal `json:"headers"`
	Content     content   `json:"content"`
	RedirectURL string    `json:"redirectURL"`
	HeadersSize int64     `json:"headersSize"`
	BodySize    int64     `json:"bodySize"`
	Comment     string    `json:"comment,omitempty"`
}

type cookie struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type nameVal struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Comment string `json:"comment,omitempty"`
}

type postData struct {
	MimeType string    `json:"mimeType"`
	Params   []nameVal `json:"params"`
	Text     string    `json:"text"`
	// Encoding is not in HAR 1.2's postData; glassbox writes "base64" for
	// a body that is not UTF-8 text, as mitmproxy and others do.
	Encoding string `json:"encoding,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

type content struct {
	Size        int64  `json:"size"`
	Compression *int64 `json:"compression,omitempty"`
	MimeType    string `json:"mimeType"`
	Text        string `json:"text,omitempty"`
	Encoding    string `json:"encoding,omitempty"`
	Comment     string `json:"comment,omitempty"`
}

// timings are in milliseconds; -1 where a phase does not apply or is not
// known. send, wait and receive are never -1.
type timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// glassboxEntry is what glassbox keeps of an exchange beyond HAR's fields.
type glassboxEntry struct {
	// Kind is "model" for a model call, "mcp" for MCP over HTTP.
	Kind string `json:"kind,omitempty"`
	// Run, Step and Iteration place the exchange in the session.
	Run       string `json:"run,omitempty"`
	Step      int    `json:"step,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Chunks are the streamed reply's pieces as they arrived: each one's
	// length in bytes of response.content.text, and when it was complete
	// (and began, when the network split it), in nanoseconds from the
	// moment the request was sent.
	Chunks []chunkRef `json:"chunks,omitempty"`
	// Added, when request.headers are the fields in the order the
	// transport wrote them, are the indexes of those it added itself (Host,
	// User-Agent, …) rather than the SDK.
	Added      []int    `json:"added_headers,omitempty"`
	Redacted   []string `json:"redacted,omitempty"`
	Divergence string   `json:"divergence,omitempty"`
}

type chunkRef struct {
	Bytes  int   `json:"bytes"`
	Offset int64 `json:"offset_ns"`
	Start  int64 `json:"start_ns,omitempty"`
	Reads  int   `json:"reads,omitempty"`
}
