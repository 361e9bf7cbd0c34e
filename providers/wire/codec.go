package wire

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/glassbox-dev/glassbox/providers"
)

// Route says what a call to a path is for a codec.
type Route int

const (
	// NotMine: the codec's family has no such call.
	NotMine Route = iota
	// ModelCall: a model call, which the codec decodes.
	ModelCall
	// PassThrough: a read-only call an agent makes around its model calls
	// (listing models, asking the server's version): nothing to decode.
	PassThrough
)

// Codec reads one API family's calls. Each dialect's package builds its
// own and puts it on its dialect.Descriptor.
type Codec struct {
	// Family names the API family: "gemini", "openai", "ollama".
	Family string
	// Paths are the model calls' paths as the API documents them, for a
	// message that names what a tap understands.
	Paths []string
	// Route says what method and path (no query) are to this family.
	Route func(method, path string) Route
	// Request decodes a model call's body to depth; query is the URL's raw
	// query (Gemini's alt=sse). The codec cuts the segments with a Cutter
	// and ends with Finish.
	Request func(path, query string, body []byte, depth Depth) (*Request, error)
	// Response reads the reply to req (nil when the request could not be
	// read): the dialect's fields, Complete, and Error for an error body.
	Response func(req *Request, r Reply) *Response
	// Endpoint is the family's own service, where its calls go when
	// nothing else is said (glassbox tap's default upstream), read from
	// getenv where the family has a variable for it.
	Endpoint func(getenv func(string) string) string
	// BaseVar is the variable agents read for the family's address, and
	// BaseSuffix what follows the address in it: a tap at ADDR is reached
	// with BaseVar=http://ADDR+BaseSuffix.
	BaseVar, BaseSuffix string
}

// Reply is a response body as a codec reads it.
type Reply struct {
	Status int
	// Docs are the JSON documents the body carries: the body itself for a
	// unary reply or an error; for a stream, each NDJSON line or each SSE
	// event's data, in order.
	Docs [][]byte
	// Stream says the body came as records.
	Stream bool
	// Done says a server-sent event stream ended with "data: [DONE]".
	Done bool
}

// Codecs are the codecs of every registered dialect, one per family
// (providers/backend.Wire lists them).
type Codecs []Codec

// Detect finds the codec for a call by its method and its path, which may
// carry a query or be a whole URL. ok is false when no family knows the
// path (route is then NotMine).
func (cs Codecs) Detect(method, target string) (c Codec, route Route, ok bool) {
	path, _ := splitTarget(target)
	for _, c := range cs {
		if r := c.Route(method, path); r != NotMine {
			return c, r, true
		}
	}
	return Codec{}, NotMine, false
}

// Family is the codec of a family by name.
func (cs Codecs) Family(name string) (Codec, bool) {
	for _, c := range cs {
		if c.Family == name {
			return c, true
		}
	}
	return Codec{}, false
}

// Paths lists every family's model-call paths, for a message saying what
// is understood ("gemini: /v1beta/models/{model}:generateContent, …").
func (cs Codecs) Paths() []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Family+": "+strings.Join(c.Paths, ", "))
	}
	return out
}

// Depth says how much of a request a codec reads.
type Depth int

const (
	// Whole reads everything: the texts, the calls with their arguments,
	// the results.
	Whole Depth = iota
	// Outline reads what the segments need — the parts, the tools' names,
	// each message's role and whether it calls tools — and none of the
	// texts: an anatomy needs no more, and a long request is cut faster.
	Outline
)

// DecodeRequest decodes a model call's request body; target is its path
// (with the query) or whole URL. The segments are checked to cover the
// body exactly.
func (c Codec) DecodeRequest(target string, body []byte) (*Request, error) {
	return c.decode(target, body, Whole)
}

// OutlineRequest is DecodeRequest to depth Outline: the messages carry
// their roles, and their calls' names, but no text.
func (c Codec) OutlineRequest(target string, body []byte) (*Request, error) {
	return c.decode(target, body, Outline)
}

func (c Codec) decode(target string, body []byte, depth Depth) (*Request, error) {
	path, query := splitTarget(target)
	r, err := c.Request(path, query, body, depth)
	if err != nil {
		return nil, err
	}
	if err := CheckSegments(r.Segments, len(body)); err != nil {
		return nil, fmt.Errorf("the %s decoder cut the body wrongly: %w", c.Family, err)
	}
	return r, nil
}

// DecodeResponse decodes the reply of an exchange; req is its decoded
// request (nil when it could not be read). A stream is read from its
// records, a transport failure or a body cut short is said in Cut.
func (c Codec) DecodeResponse(req *Request, x providers.Exchange) *Response {
	body := x.ResponseBody
	if len(body) == 0 && len(x.Chunks) > 0 {
		for _, ch := range x.Chunks {
			body = append(body, ch.Data...)
		}
	}
	h := http.Header(x.ResponseHeaders)
	rep, partial := frame(x.Status, h, body)
	r := c.Response(req, rep)
	if r == nil {
		r = &Response{}
	}
	r.Family = c.Family
	r.Stream, r.Records = rep.Stream, len(rep.Docs)
	if x.Err != "" {
		r.Transport = x.Err
	}
	if !r.Complete {
		switch {
		case x.Err != "":
			r.Cut = CutTransport
		case len(partial) > 0:
			r.Cut = CutPartialRecord
		default:
			r.Cut = CutNoEnd
		}
	}
	return r
}

// frame cuts a body into its documents: an error or a unary reply is one;
// a stream (told by its Content-Type, or by its first bytes when it has
// none) is its records, SSE events reduced to their data.
func frame(status int, h http.Header, body []byte) (Reply, []byte) {
	rep := Reply{Status: status}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return rep, nil
	}
	sse := providers.IsEventStream(h) || (h.Get("Content-Type") == "" && looksLikeSSE(trimmed))
	lines := providers.IsNDJSON(h) || (h.Get("Content-Type") == "" && looksLikeNDJSON(trimmed))
	if status >= 400 && !sse {
		rep.Docs = [][]byte{trimmed}
		return rep, nil
	}
	if !sse && !lines {
		rep.Docs = [][]byte{trimmed}
		return rep, nil
	}
	rep.Stream = true
	var partial []byte
	rep.Docs, rep.Done, partial = streamDocs(body, sse)
	return rep, partial
}

// streamDocs cuts a streamed body into its documents: NDJSON lines, or the
// data of server-sent events ("[DONE]" says the stream is done). partial
// is a last record the body stopped in; a last one that is whole all the
// same (a line without its newline, an event without its blank line) is a
// document.
func streamDocs(body []byte, sse bool) (docs [][]byte, done bool, partial []byte) {
	records, partial := providers.StreamRecords(body, sse)
	if len(partial) > 0 {
		last := bytes.TrimSpace(partial)
		if sse {
			last = eventData(partial)
		}
		if looksWhole(last) {
			records, partial = append(records, partial), nil
		}
	}
	for _, rec := range records {
		doc := bytes.TrimSpace(rec)
		if sse {
			doc = eventData(rec)
		}
		switch {
		case sse && string(doc) == "[DONE]":
			done = true
		case len(doc) > 0:
			docs = append(docs, doc)
		}
	}
	return docs, done, partial
}

func looksWhole(doc []byte) bool {
	if len(doc) == 0 {
		return false
	}
	_, err := Parse(doc)
	return err == nil
}

// looksLikeNDJSON says a body with no Content-Type is JSON lines: its first
// line is a whole JSON object and more lines follow (a pretty-printed
// document's first line is not whole).
func looksLikeNDJSON(b []byte) bool {
	first, rest, ok := bytes.Cut(b, []byte("\n"))
	return ok && len(bytes.TrimSpace(rest)) > 0 && bytes.HasPrefix(first, []byte("{")) && looksWhole(bytes.TrimSpace(first))
}

func looksLikeSSE(b []byte) bool {
	return bytes.HasPrefix(b, []byte("data:")) || bytes.HasPrefix(b, []byte("event:")) ||
		bytes.HasPrefix(b, []byte(":")) || bytes.HasPrefix(b, []byte("id:"))
}

// eventData is the data of one server-sent event: its data lines joined
// by newlines, each without "data:" and one space after it.
func eventData(event []byte) []byte {
	var out []byte
	n := 0
	for line := range bytes.Lines(event) {
		line = bytes.TrimRight(line, "\r\n")
		rest, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		rest = bytes.TrimPrefix(rest, []byte(" "))
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, rest...)
		n++
	}
	return bytes.TrimSpace(out)
}

// splitTarget is a target's path and raw query; a whole URL is cut to its
// path.
func splitTarget(target string) (path, query string) {
	if u, err := url.Parse(target); err == nil {
		return u.Path, u.RawQuery
	}
	path, query, _ = strings.Cut(target, "?")
	return path, query
}
