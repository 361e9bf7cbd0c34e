package spans

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/providers/wire"
)

// What the calls of a file carried (interpreter.seen), for Missing.
const (
	seenPrompts = 1 << iota
	seenReplies
	seenSystem
	seenTools
	seenUsage
)

// maxWaiting bounds the Gemini CLI calls that wait for their llm_call span
// (which carries the system instructions and the tools, and is written
// when the call ends, often in a later batch than its logs).
const maxWaiting = 64

// interpreter turns a file's records into calls, in the order they were
// made.
type interpreter struct {
	codecs wire.Codecs
	ready  []Call
	count  int
	seen   int
	// Gemini CLI: the api_request events waiting for their reply and
	// their span, and the llm_call spans not yet claimed.
	cli []*cliCall
	llm map[string]Record
	// last is the system and tools of the latest llm_call span: a call
	// whose span never came is taken to have had the same.
	last *Record
}

func newInterpreter(codecs wire.Codecs) *interpreter {
	return &interpreter{codecs: codecs, llm: map[string]Record{}}
}

func (p *interpreter) saw(what int) { p.seen |= what }

// missing says what no call carried (once the file is read: eof).
func (p *interpreter) missing(eof bool) []string {
	out := []string{NoBytes}
	if !eof || p.count == 0 {
		return out
	}
	for _, m := range []struct {
		bit  int
		what string
	}{{seenPrompts, NoPrompts}, {seenReplies, NoReplies}, {seenSystem, NoSystem}, {seenTools, NoTools}, {seenUsage, NoUsage}} {
		if p.seen&m.bit == 0 {
			out = append(out, m.what)
		}
	}
	return out
}

// add takes one record.
func (p *interpreter) add(rec Record) {
	switch {
	case isInference(rec):
		p.emit(p.semconvCall(rec))
	case !rec.Log && rec.Name == "llm_call":
		p.llmSpan(rec)
	case rec.Log:
		p.cliEvent(rec)
	}
}

func (p *interpreter) emit(c Call) {
	p.count++
	p.ready = append(p.ready, c)
}

// next is the next call that is ready; at the end of the file (eof) every
// call waiting is.
func (p *interpreter) next(eof bool) (Call, bool) {
	for len(p.cli) > 0 {
		c := p.cli[0]
		if !eof && (c.reply == nil || (c.span == nil && len(p.cli) <= maxWaiting)) {
			break
		}
		p.cli = p.cli[1:]
		p.emit(p.cliCall(c))
	}
	if len(p.ready) == 0 {
		return Call{}, false
	}
	c := p.ready[0]
	p.ready = p.ready[1:]
	return c, true
}

// Gemini CLI's events (its telemetry's log records).
const (
	eventRequest  = "gemini_cli.api_request"
	eventResponse = "gemini_cli.api_response"
	eventError    = "gemini_cli.api_error"
)

// cliCall is one Gemini CLI model call: its api_request event, then its
// api_response or api_error, and the llm_call span it was made in.
type cliCall struct {
	request Record
	reply   *Record
	span    *Record
}

// llmSpan takes an llm_call span: its call's system and tools.
func (p *interpreter) llmSpan(rec Record) {
	p.last = &rec
	for _, c := range p.cli {
		if c.span == nil && c.request.SpanID == rec.SpanID {
			c.span = &rec
			return
		}
	}
	if len(p.llm) < maxWaiting {
		p.llm[rec.SpanID] = rec
	}
}

func (p *interpreter) cliEvent(rec Record) {
	switch rec.Name {
	case eventRequest:
		c := &cliCall{request: rec}
		if s, ok := p.llm[rec.SpanID]; ok && rec.SpanID != "" {
			c.span = &s
			delete(p.llm, rec.SpanID)
		}
		p.cli = append(p.cli, c)
	case eventResponse, eventError:
		id := str(rec.Attrs, "prompt_id")
		for _, c := range p.cli {
			if c.reply == nil && str(c.request.Attrs, "prompt_id") == id {
				c.reply = &rec
				return
			}
		}
		// A reply whose request is not in the file: a call with no prompt.
		p.cli = append(p.cli, &cliCall{request: Record{Log: true, Name: eventRequest, Start: rec.Start, Attrs: map[string]any{"model": rec.Attrs["model"]}}, reply: &rec})
	}
}

// cliCall is the call Gemini CLI's events record: the conversation it
// logged (request_text: the API's contents), the system and tools of its
// span, the reply it logged (response_text: the API's streamed records),
// read by the Gemini codec as they would be from the wire.
func (p *interpreter) cliCall(c *cliCall) Call {
	model := str(c.request.Attrs, "model")
	span := c.span
	if span == nil {
		span = p.last
	}
	codec, ok := p.codecs.Family("gemini")
	req := &wire.Request{Family: "gemini", Dialect: "gemini", Model: model, Stream: true}
	if ok {
		if r := p.cliRequest(codec, model, c.request, span); r != nil {
			req = r
		}
	}
	call := Call{Request: req, Started: c.request.Start}
	if c.reply == nil {
		return call
	}
	a := c.reply.Attrs
	if n, ok := num(a, "status_code"); ok {
		call.Status = int(n)
	}
	if ms, ok := num(a, "duration_ms"); ok {
		call.Duration = time.Duration(ms) * time.Millisecond
	}
	call.Response = p.cliReply(codec, ok, req, *c.reply, call.Status)
	return call
}

func (p *interpreter) cliRequest(codec wire.Codec, model string, rec Record, span *Record) *wire.Request {
	body := map[string]json.RawMessage{}
	if contents := str(rec.Attrs, "request_text"); contents != "" && json.Valid([]byte(contents)) {
		body["contents"] = json.RawMessage(contents)
		p.saw(seenPrompts)
	}
	if span != nil {
		if s, ok := systemText(span.Attrs); ok {
			b, _ := json.Marshal(map[string]any{"parts": []map[string]string{{"text": s}}})
			body["systemInstruction"] = b
			p.saw(seenSystem)
		}
		if tools := str(span.Attrs, attrToolDefs); tools != "" && json.Valid([]byte(tools)) {
			body["tools"] = json.RawMessage(tools)
			p.saw(seenTools)
		}
	}
	b, _ := json.Marshal(body)
	req, err := codec.DecodeRequest("/v1beta/models/"+url.PathEscape(model)+":streamGenerateContent?alt=sse", b)
	if err != nil {
		return nil
	}
	req.Segments, req.Size = nil, 0 // a body glassbox made, not bytes the agent sent
	return req
}

// cliReply is what an api_response or api_error event says came back.
func (p *interpreter) cliReply(codec wire.Codec, ok bool, req *wire.Request, rec Record, status int) *wire.Response {
	a := rec.Attrs
	if rec.Name == eventError {
		msg := str(a, "error")
		return &wire.Response{Family: "gemini", Error: &wire.APIError{Status: status, Code: str(a, "error_type"), Message: msg}}
	}
	var resp *wire.Response
	var chunks []json.RawMessage
	if ok && json.Unmarshal([]byte(str(a, "response_text")), &chunks) == nil && len(chunks) > 0 {
		docs := make([][]byte, len(chunks))
		for i, c := range chunks {
			docs[i] = c
		}
		resp = codec.Response(req, wire.Reply{Status: status, Docs: docs, Stream: true})
		sameIDs(resp)
		p.saw(seenReplies)
	}
	if resp == nil {
		resp = &wire.Response{Complete: true}
		if fr, isList := a["finish_reasons"].([]any); isList && len(fr) > 0 {
			resp.FinishReason, _ = fr[0].(string)
		}
	}
	resp.Family, resp.Stream = "gemini", true
	if !resp.Complete && resp.Cut == "" && resp.Error == nil {
		resp.Cut = wire.CutNoEnd
	}
	if resp.Usage == nil {
		resp.Usage, _ = usage(a, "input_token_count", "output_token_count", "cached_content_token_count", "thoughts_token_count")
	}
	if resp.Usage != nil {
		p.saw(seenUsage)
	}
	return resp
}

// sameIDs gives the tool calls of a logged reply the ids Gemini CLI sends
// back: 0.61 logs each id with the tool's name and "__" before it
// ("list_directory__list_directory_17…_0" for "list_directory_17…_0").
func sameIDs(resp *wire.Response) {
	if resp == nil {
		return
	}
	for i, c := range resp.ToolCalls {
		if rest, ok := strings.CutPrefix(c.ID, c.Name+"__"); ok && rest != "" {
			resp.ToolCalls[i].ID = rest
		}
	}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
