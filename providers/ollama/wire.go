package ollama

// This file reads Ollama API calls from their bytes (package wire): /api/chat
// in both tool modes — JSON mode is told by a "format" and no "tools" — and
// /api/generate.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Family is the API family's name in package wire.
const Family = "ollama"

// Codec reads Ollama's /api/chat and /api/generate calls, and passes
// through the read-only calls an agent makes first.
func Codec() wire.Codec {
	return wire.Codec{
		Family:   Family,
		Paths:    []string{"/api/chat", "/api/generate"},
		Route:    route,
		Request:  decodeRequest,
		Response: decodeResponse,
		Endpoint: func(getenv func(string) string) string { h, _ := HostFrom(getenv); return h },
		BaseVar:  SourceOllamaHost,
	}
}

func route(method, path string) wire.Route {
	switch {
	case method == "POST" && (path == "/api/chat" || path == "/api/generate"):
		return wire.ModelCall
	case method == "GET" && (path == "/api/tags" || path == "/api/version" || path == "/api/ps" || path == "/"),
		method == "HEAD" && path == "/",
		method == "POST" && path == "/api/show":
		return wire.PassThrough
	}
	return wire.NotMine
}

// reqReader walks one request body.
type reqReader struct {
	b     []byte
	r     *wire.Request
	cut   wire.Cutter
	json  bool // JSON mode
	whole bool // the texts too (wire.Whole)
}

func decodeRequest(path, _ string, body []byte, depth wire.Depth) (*wire.Request, error) {
	top, err := wire.ReadObject(body)
	if err != nil {
		return nil, err
	}
	format, hasFormat := top.Get("format")
	d := reqReader{b: body, whole: depth == wire.Whole, r: &wire.Request{
		Family: Family, Endpoint: strings.TrimPrefix(path, "/"), Model: top.String("model"),
		// Ollama streams unless told not to.
		Stream: !top.Has("stream") || top.Bool("stream"),
	}}
	d.json = hasFormat && !top.Has("tools") && !(format.Kind() == '"' && format.Str() == "")
	switch {
	case d.json:
		d.r.Dialect = Name
	case path == "/api/chat":
		d.r.Dialect = Name + ":" + ToolModeNative
	}
	for _, m := range top.Members() {
		if err := d.member(top, m, path); err != nil {
			return nil, err
		}
	}
	segs, err := d.cut.Segments(len(body))
	if err != nil {
		return nil, err
	}
	wire.Finish(d.r, segs, len(body))
	return d.r, nil
}

// member reads one top-level member of the body.
func (d *reqReader) member(top wire.Value, m wire.Member, path string) error {
	generate := path == "/api/generate"
	switch {
	case m.Key == "messages":
		return d.messages(top)
	case m.Key == "tools":
		return d.tools(top)
	case m.Key == "system" && generate:
		d.r.System = m.Value.Str()
		d.cut.Part(m.Span(), wire.KindSystem, m.Key, -1, -1)
	case m.Key == "prompt" && generate:
		d.cut.Part(m.Span(), wire.KindUser, m.Key, len(d.r.Messages), -1)
		msg := history.Message{Role: history.RoleUser}
		if d.whole {
			msg.Text = m.Value.Str()
		}
		d.r.Messages = append(d.r.Messages, msg)
	default:
		d.settings(m)
	}
	return nil
}

func (d *reqReader) settings(m wire.Member) {
	if m.Key == "options" && m.Value.Kind() == '{' {
		for _, s := range m.Value.Members() {
			d.r.Settings = append(d.r.Settings, wire.Setting{Name: s.Key, Value: string(s.Value.Bytes())})
		}
	} else {
		d.r.Settings = append(d.r.Settings, wire.Setting{Name: m.Key, Value: string(m.Value.Bytes())})
	}
	d.cut.Part(m.Span(), wire.KindSettings, m.Key, -1, -1)
}

func (d *reqReader) tools(top wire.Value) error {
	tools, err := top.Objects("tools")
	if err != nil {
		return err
	}
	for _, t := range tools {
		fn, _ := t.Object("function")
		spec := history.ToolSpec{Name: fn.String("name"), Description: fn.String("description"), Schema: fn.Raw("parameters")}
		d.cut.Part(t.Span(), wire.KindTool, spec.Name, -1, len(d.r.Tools))
		d.r.Tools = append(d.r.Tools, spec)
	}
	return nil
}

func (d *reqReader) messages(top wire.Value) error {
	msgs, err := top.Objects("messages")
	if err != nil {
		return err
	}
	d.r.Messages = slices.Grow(d.r.Messages, len(msgs))
	d.cut.Grow(2 * len(msgs))
	for _, m := range msgs {
		role := m.Role("user", "assistant", "tool", "system")
		if role == "system" {
			text := m.String("content")
			if d.r.System != "" {
				d.r.System += "\n\n"
			}
			d.r.System += text
			d.system(m)
			continue
		}
		msg := d.message(role, m)
		d.cut.Part(m.Span(), wire.MessageKind(msg), role, len(d.r.Messages), -1)
		d.r.Messages = append(d.r.Messages, msg)
	}
	return nil
}

// message reads one chat message that is not the system prompt.
func (d *reqReader) message(role string, m wire.Value) history.Message {
	var content string
	if d.whole || d.json { // JSON mode's calls and results are in the text
		content = m.String("content")
	}
	switch role {
	case "assistant":
		if d.json {
			return jsonModeReply(content, m.String("thinking"))
		}
		msg := history.Message{Role: history.RoleAssistant, Text: content}
		if d.whole {
			msg.Thought = m.String("thinking")
		}
		calls, _ := m.Objects("tool_calls")
		for _, c := range calls {
			fn, _ := c.Object("function")
			var args json.RawMessage
			if d.whole {
				args = fn.Raw("arguments")
			}
			if args == nil {
				args = []byte("{}")
			}
			msg.ToolCalls = append(msg.ToolCalls, history.ToolCall{ID: c.String("id"), Name: fn.String("name"), Args: args})
		}
		return msg
	case "tool":
		return history.Message{Role: history.RoleTool, Result: &history.ToolResult{
			CallID: m.String("tool_call_id"), Name: m.String("tool_name", "name"),
			Content: strings.TrimPrefix(content, errorPrefix), IsError: strings.HasPrefix(content, errorPrefix),
		}}
	}
	if d.json {
		if r := jsonModeResult(content); r != nil {
			return history.Message{Role: history.RoleTool, Result: r}
		}
	}
	if imgs, _ := m.Array("images"); len(imgs) > 0 {
		content += strings.Repeat("[image]", len(imgs))
	}
	return history.Message{Role: history.RoleUser, Text: content}
}

// jsonModeReply reads an assistant turn of JSON mode: the reply object the
// model wrote, as the provider parses it.
func jsonModeReply(content, thinking string) history.Message {
	msg := history.Message{Role: history.RoleAssistant, Thought: thinking}
	reply, _ := ParseReply(content)
	switch {
	case reply == nil:
		msg.Text = content
	case reply.ToolCall != nil:
		msg.Thought = joinThoughts(thinking, reply.Thought)
		msg.ToolCalls = []history.ToolCall{{Name: reply.ToolCall.Name, Args: reply.ToolCall.Input}}
	default:
		msg.Thought = joinThoughts(thinking, reply.Thought)
		msg.Text = reply.Response
	}
	raw, _ := json.Marshal(content)
	msg.Native = &history.Native{Provider: NativeLlamaJSON, Data: raw}
	return msg
}

// jsonModeResult reads a user message of JSON mode that carries a tool
// result ({"tool_result": {...}}); nil when it is not one.
func jsonModeResult(content string) *history.ToolResult {
	c := strings.TrimSpace(content)
	if !strings.HasPrefix(c, `{"tool_result"`) {
		return nil
	}
	var v struct {
		R *struct {
			Name    string          `json:"name"`
			Result  json.RawMessage `json:"result"`
			IsError bool            `json:"is_error"`
		} `json:"tool_result"`
	}
	if json.Unmarshal([]byte(c), &v) != nil || v.R == nil {
		return nil
	}
	r := &history.ToolResult{Name: v.R.Name, IsError: v.R.IsError}
	if json.Unmarshal(v.R.Result, &r.Content) != nil {
		r.Content = string(v.R.Result)
	}
	return r
}

// system cuts the system message. In JSON mode the tools are paragraphs of
// the prompt (JSONModeSystemPrompt): each "### name" paragraph of its
// "## Tools" section is a tool segment of its own, the rest is system.
func (d *reqReader) system(m wire.Value) {
	v, ok := m.Get("content")
	if !d.json || !ok || v.Kind() != '"' {
		d.cut.Part(m.Span(), wire.KindSystem, "system", -1, -1)
		return
	}
	at := m.Span().Start
	for _, t := range toolParagraphs(d.b, v.Span()) {
		d.cut.Part(wire.Span{Start: at, End: t.Start}, wire.KindSystem, "system", -1, -1)
		d.cut.Part(t.Span, wire.KindTool, t.name, -1, len(d.r.Tools))
		d.r.Tools = append(d.r.Tools, history.ToolSpec{Name: t.name, Description: t.text})
		at = t.End
	}
	d.cut.Part(wire.Span{Start: at, End: m.Span().End}, wire.KindSystem, "system", -1, -1)
}

// paragraph is a tool's paragraph in the raw (escaped) JSON string.
type paragraph struct {
	wire.Span
	name, text string
}

// The markers of JSONModeSystemPrompt's sections as they are written inside
// a JSON string: a newline is the two bytes \n.
var (
	toolsHeading = []byte(`## Tools\n\n`)
	toolHeading  = []byte(`\n### `)
	replyHeading = []byte(`\n## How to reply`)
)

// toolParagraphs finds the tool paragraphs of a JSON-mode system prompt in
// the string at v, as written: each from its "### " to the newline before
// the next heading.
func toolParagraphs(b []byte, v wire.Span) []paragraph {
	s := b[v.Start:v.End]
	start := bytes.Index(s, toolsHeading)
	if start < 0 {
		return nil
	}
	end := escapedIndex(s, replyHeading, start)
	if end < 0 {
		end = len(s) - 1 // the closing quote
	}
	var out []paragraph
	at := escapedIndex(s, toolHeading, start)
	for at >= 0 && at < end {
		from := at + 2 // after the \n
		next := escapedIndex(s, toolHeading, from)
		to := end
		if next >= 0 && next < end {
			to = next
		}
		raw := s[from:to]
		text, err := unescape(raw)
		if err != nil {
			return nil
		}
		name, rest, _ := strings.Cut(strings.TrimPrefix(text, "### "), "\n")
		out = append(out, paragraph{Span: wire.Span{Start: v.Start + from, End: v.Start + to}, name: name, text: strings.TrimSpace(rest)})
		at = next
	}
	return out
}

// escapedIndex finds marker (which starts with a backslash escape) in s
// from at, where that backslash starts an escape rather than ends one.
func escapedIndex(s, marker []byte, at int) int {
	for at < len(s) {
		i := bytes.Index(s[at:], marker)
		if i < 0 {
			return -1
		}
		i += at
		n := 0
		for p := i - 1; p >= 0 && s[p] == '\\'; p-- {
			n++
		}
		if marker[0] != '\\' || n%2 == 0 {
			return i
		}
		at = i + 1
	}
	return -1
}

// unescape decodes the inside of a JSON string.
func unescape(raw []byte) (string, error) {
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	err := json.Unmarshal(q, &s)
	return s, err
}

// decodeResponse reads an /api/chat or /api/generate reply: NDJSON lines,
// or one object when not streamed; the reply ends with done:true. A JSON-
// mode reply's text is read as the provider reads it: a tool call, an
// answer, or text that is neither (Malformed).
func decodeResponse(req *wire.Request, rep wire.Reply) *wire.Response {
	r := &wire.Response{}
	var first wire.Value
	for _, doc := range rep.Docs {
		obj, err := wire.ReadObject(doc)
		if err != nil {
			r.Note(err)
			continue
		}
		if msg := obj.String("error"); msg != "" {
			r.Error = &wire.APIError{Message: msg}
			continue
		}
		if !first.Valid() {
			first = obj
		}
		readLine(r, obj)
	}
	if r.Model == "" {
		r.Model = first.String("model")
	}
	r.Failed(rep)
	if req != nil && req.Dialect == Name && r.Error == nil {
		readJSONModeText(r)
	}
	return r
}

// readLine adds one line of a reply.
func readLine(r *wire.Response, line wire.Value) {
	if r.Complete {
		return // lines after done:true would be a server bug
	}
	msg, ok := line.Object("message")
	if ok {
		r.Text += msg.String("content")
		r.Thought += msg.String("thinking")
		calls, _ := msg.Objects("tool_calls")
		for _, c := range calls {
			fn, _ := c.Object("function")
			args := fn.Raw("arguments")
			if args == nil {
				args = []byte("{}")
			}
			r.ToolCalls = append(r.ToolCalls, history.ToolCall{ID: c.String("id"), Name: fn.String("name"), Args: args})
		}
	} else {
		r.Text += line.String("response") // /api/generate
		r.Thought += line.String("thinking")
	}
	if !line.Bool("done") {
		return
	}
	r.Complete = true
	r.FinishReason = line.String("done_reason")
	r.Model = line.String("model")
	if line.Has("prompt_eval_count") || line.Has("eval_count") {
		r.Usage = &wire.Usage{Input: line.Int("prompt_eval_count"), Output: line.Int("eval_count")}
		r.Usage.Total = r.Usage.Input + r.Usage.Output
	}
}

// readJSONModeText turns a JSON-mode reply's text into what it says.
func readJSONModeText(r *wire.Response) {
	reply, step := ParseReply(r.Text)
	switch {
	case reply == nil:
		r.Malformed = step.Error
	case reply.ToolCall != nil:
		r.Thought = joinThoughts(r.Thought, reply.Thought)
		r.ToolCalls = append(r.ToolCalls, history.ToolCall{Name: reply.ToolCall.Name, Args: reply.ToolCall.Input})
		r.Text = ""
	default:
		r.Thought = joinThoughts(r.Thought, reply.Thought)
		r.Text = reply.Response
	}
}
