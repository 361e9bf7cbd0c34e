// Package anatomy says what a model call's request is made of and what each
// part costs: its segments (package wire) with their bytes and tokens,
// between two calls what the second appends, what it keeps unchanged from
// the start (what a provider's prompt cache can reuse) and what changed
// above that (which breaks the cache), and over a run how the requests
// grow. Every token figure says where it comes from (Tokens.Source).
//
// No Go library kept by the project counts the tokens of these model
// families offline (the Gemini SDK's local tokenizer downloads its model
// on first use; Llama's and OpenAI's need theirs too), so a part's tokens
// are estimated by a stated rule (EstimateRule) and reconciled with the
// count the provider reported for the whole request, the difference shown.
package anatomy

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Source says where a token figure comes from.
type Source string

const (
	// Reported: the provider said so in its reply (Field names where).
	Reported Source = "reported"
	// Estimated: glassbox worked it out by a rule (Rule says which).
	Estimated Source = "estimated"
)

// EstimateRule is the rule of every estimate, a sentence a screen shows
// (ui/lang holds its Japanese).
const EstimateRule = "about one token per 4 ASCII characters, and one per other character, of the text in the part's JSON strings (keys and values, escapes decoded); framing and settings count none"

// SimulatedRule says what the offline simulation reports: it is no model,
// and counts a quarter of the request's bytes.
const SimulatedRule = "the offline simulation reports a quarter of the request's bytes; it has no tokenizer"

// Tokens is a token figure with where it comes from.
type Tokens struct {
	N      int    `json:"n"`
	Source Source `json:"source"`
	// Field, on a reported figure, is the reply's field that holds it
	// ("usageMetadata.promptTokenCount").
	Field string `json:"field,omitempty"`
	// Rule, on an estimate, is EstimateRule; on a figure the offline
	// simulation reported, SimulatedRule.
	Rule string `json:"rule,omitempty"`
}

// Part is one segment of a request with its cost.
type Part struct {
	wire.Segment
	// Tokens is the segment's estimate (EstimateRule).
	Tokens int `json:"tokens"`
}

// Total is what the parts of one kind add up to.
type Total struct {
	Kind   wire.SegmentKind `json:"kind"`
	Parts  int              `json:"parts"`
	Bytes  int              `json:"bytes"`
	Tokens int              `json:"tokens"`
}

// Call is the anatomy of one model call's request.
type Call struct {
	Family  string `json:"family"`
	Dialect string `json:"dialect,omitempty"`
	Model   string `json:"model,omitempty"`
	// Bytes is the body's size; the parts' bytes add up to it exactly.
	Bytes int `json:"bytes"`
	// Parts are the segments in the body's order (left out of a trace
	// record: Summary).
	Parts []Part `json:"parts,omitempty"`
	// Kinds are the parts' totals by kind, in wire.SegmentKinds order
	// (kinds with no part left out).
	Kinds []Total `json:"kinds"`
	// Estimated is the sum of the parts' estimates.
	Estimated Tokens `json:"estimated"`
	// Reported is the input tokens the provider reported for the call;
	// Difference is Reported minus Estimated. Both nil when it reported
	// none (no reply yet, an error, a server that does not count).
	Reported   *Tokens `json:"reported,omitempty"`
	Difference *int    `json:"difference,omitempty"`
	// Cached is the part of the input the provider served from its prompt
	// cache, when it reports it; Output the reply's tokens.
	Cached *Tokens `json:"cached,omitempty"`
	Output *Tokens `json:"output,omitempty"`

	units []unit // the prompt in the model's order, for Between
}

// Summary is the call without its parts: what a trace record carries,
// and what a front end keeps of every call of a long run. It keeps nothing
// of the prompt's pieces either, so it cannot be compared (Between) with
// another call: a Tracker keeps the whole of the last call for that.
func (c Call) Summary() Call {
	c.Parts, c.units = nil, nil
	return c
}

// Of is the anatomy of a request body read by req (wire), with what its
// reply reported (resp may be nil). simulated says the reply came from
// glassbox's offline simulation, whose counts are not a model's.
func Of(req *wire.Request, body []byte, resp *wire.Response, simulated bool) Call {
	c := Call{Family: req.Family, Dialect: req.Dialect, Model: req.Model, Bytes: len(body), Parts: make([]Part, len(req.Segments))}
	totals := map[wire.SegmentKind]*Total{}
	sum := 0
	var sc scan // one pass over the body: a part may begin inside a string
	for i, s := range req.Segments {
		a, o := sc.feed(body[s.Start:s.End])
		n := (a+3)/4 + o
		if s.Kind == wire.KindFraming || s.Kind == wire.KindSettings {
			n = 0
		}
		c.Parts[i] = Part{Segment: s, Tokens: n}
		sum += n
		t := totals[s.Kind]
		if t == nil {
			t = &Total{Kind: s.Kind}
			totals[s.Kind] = t
		}
		t.Parts++
		t.Bytes += s.Len()
		t.Tokens += n
	}
	for _, k := range wire.SegmentKinds {
		if t := totals[k]; t != nil {
			c.Kinds = append(c.Kinds, *t)
		}
	}
	c.Estimated = Tokens{N: sum, Source: Estimated, Rule: EstimateRule}
	c.units = units(req, body, c.Parts)
	if resp != nil && resp.Usage != nil && resp.Error == nil {
		c.reported(resp.Usage, simulated)
	}
	return c
}

// reported fills in what the provider counted, with the field it is in.
func (c *Call) reported(u *wire.Usage, simulated bool) {
	in, out, cached := fields(c.Family)
	rep := func(n int, field string) *Tokens {
		t := &Tokens{N: n, Source: Reported, Field: field}
		if simulated {
			t.Rule = SimulatedRule
		}
		return t
	}
	c.Reported, c.Output = rep(u.Input, in), rep(u.Output, out)
	d := u.Input - c.Estimated.N
	c.Difference = &d
	if u.CachedReported {
		c.Cached = rep(u.Cached, cached)
	}
}

// fields names where each family reports input, output and cached tokens.
func fields(family string) (in, out, cached string) {
	switch family {
	case "gemini":
		return "usageMetadata.promptTokenCount", "usageMetadata.candidatesTokenCount", "usageMetadata.cachedContentTokenCount"
	case "openai":
		return "usage.prompt_tokens", "usage.completion_tokens", "usage.prompt_tokens_details.cached_tokens"
	case "ollama":
		return "prompt_eval_count", "eval_count", ""
	}
	return "", "", ""
}

// FromExchange reads an exchange — request and reply — with the codec
// that knows its path. ok is false when the exchange is no model call
// glassbox can read (err says why when its body is at fault).
func FromExchange(codecs wire.Codecs, x providers.Exchange) (c Call, ok bool, err error) {
	codec, route, known := codecs.Detect(x.Method, x.URL)
	if !known || route != wire.ModelCall {
		return Call{}, false, nil
	}
	req, err := codec.OutlineRequest(x.URL, x.RequestBody)
	if err != nil {
		return Call{}, false, err
	}
	var resp *wire.Response
	if x.Status != 0 || len(x.ResponseBody) > 0 || len(x.Chunks) > 0 {
		resp = codec.DecodeResponse(req, x)
	}
	return Of(req, x.RequestBody, resp, Simulated(x.URL)), true, nil
}

// Simulated says a call went to glassbox's offline simulation (or a
// replay of one): its address is under the reserved .offline.invalid
// domain.
func Simulated(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && strings.HasSuffix(u.Hostname(), ".offline.invalid")
}

// scan counts the characters inside JSON strings, piece after piece of
// one body: a segment may begin or end inside a string (JSON mode's tool
// paragraphs are pieces of the system message's text), so whether it is
// in a string carries over from the piece before.
type scan struct {
	in     bool // inside a string
	escape int  // bytes of an escape still to skip (it began in the piece before)
}

// feed counts the ASCII and other characters of b's strings.
func (s *scan) feed(b []byte) (ascii, other int) {
	i := min(s.escape, len(b))
	s.escape -= i
	quote, slash := -1, -1 // the next '"' and '\\' at or after i, once looked for
	next := func(c byte, at, from int) int {
		if at >= from {
			return at
		}
		if k := bytes.IndexByte(b[from:], c); k >= 0 {
			return from + k
		}
		return len(b)
	}
	for i < len(b) {
		quote = next('"', quote, i)
		if !s.in {
			s.in, i = quote < len(b), quote+1 // outside a string: only its opening quote matters
			continue
		}
		slash = next('\\', slash, i)
		end := min(quote, slash)
		a, o := countRun(b[i:end])
		ascii, other = ascii+a, other+o
		switch {
		case end >= len(b):
			i = end
		case end == quote:
			s.in, i = false, end+1
		default: // an escape: one character
			a, o, n := escaped(b[end:])
			ascii, other = ascii+a, other+o
			i = end + n
			if i > len(b) {
				s.escape, i = i-len(b), len(b)
			}
		}
	}
	return ascii, other
}

// escaped counts the escape at the start of b (a backslash) and says how
// long it is: \uXXXX is one character, ASCII or not by its code.
func escaped(b []byte) (ascii, other, n int) {
	if len(b) >= 6 && b[1] == 'u' {
		if r, err := strconv.ParseUint(string(b[2:6]), 16, 16); err == nil && r < utf8.RuneSelf {
			return 1, 0, 6
		}
		return 0, 1, 6
	}
	return 1, 0, 2
}

// countRun counts the ASCII characters and the others of plain UTF-8 text,
// eight bytes at a time while they are all ASCII.
func countRun(r []byte) (ascii, other int) {
	i := 0
	for ; i+8 <= len(r); i += 8 {
		if binary.LittleEndian.Uint64(r[i:])&0x8080808080808080 == 0 {
			ascii += 8
			continue
		}
		a, o := countBytes(r[i : i+8])
		ascii, other = ascii+a, other+o
	}
	a, o := countBytes(r[i:])
	return ascii + a, other + o
}

func countBytes(r []byte) (ascii, other int) {
	for _, c := range r {
		switch {
		case c < utf8.RuneSelf:
			ascii++
		case utf8.RuneStart(c):
			other++
		}
	}
	return ascii, other
}

// unit is one piece of the prompt in the order the model reads it —
// the system instructions, each tool, each message — with a fingerprint
// of its bytes.
type unit struct {
	Kind    wire.SegmentKind
	Label   string
	Message int
	Tool    int
	Bytes   int
	Tokens  int
	sum     uint64
}

// units lays the request out in the model's order: system first (all of
// it, JSON mode's tool paragraphs aside), then the tools, then the
// messages, whatever order the body wrote them in.
func units(req *wire.Request, body []byte, parts []Part) []unit {
	out := make([]unit, 1, 1+len(req.Tools)+len(req.Messages))
	out[0] = unit{Kind: wire.KindSystem, Message: -1, Tool: -1}
	var sys maphash.Hash
	sys.SetSeed(seed)
	for _, p := range parts {
		if p.Kind == wire.KindTool {
			out = append(out, unit{Kind: wire.KindTool, Label: p.Label, Message: -1, Tool: p.Tool, Bytes: p.Len(), Tokens: p.Tokens, sum: fingerprint(body[p.Start:p.End])})
		}
	}
	first := len(out)
	for i := range req.Messages {
		out = append(out, unit{Message: i, Tool: -1})
	}
	for _, p := range parts {
		b := body[p.Start:p.End]
		switch {
		case p.Kind == wire.KindSystem:
			sys.Write(b)
			out[0].Bytes += p.Len()
			out[0].Tokens += p.Tokens
		case p.Kind != wire.KindTool && p.Message >= 0 && p.Message < len(req.Messages):
			m := &out[first+p.Message]
			if m.Kind == "" {
				m.Kind, m.Label = p.Kind, p.Label
			}
			m.Bytes += p.Len()
			m.Tokens += p.Tokens
			m.sum = m.sum*1099511628211 ^ fingerprint(b)
		}
	}
	if out[0].Bytes == 0 {
		return out[1:]
	}
	out[0].sum = sys.Sum64()
	return out
}

// seed keys the fingerprints: two calls are compared within one process.
var seed = maphash.MakeSeed()

func fingerprint(b []byte) uint64 { return maphash.Bytes(seed, b) }
