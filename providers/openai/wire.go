package openai

// This file reads chat completions calls from their bytes (package wire):
// any OpenAI-compatible client's, the legacy "functions" and
// "function_call" fields included.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Family is the API family's name in package wire.
const Family = "openai"

// Endpoint is OpenAI's own address (the paths begin with /v1), where a
// tap sends chat completions by default.
const Endpoint = "https://api.openai.com"

// Codec reads POST …/chat/completions and passes through the model list.
func Codec() wire.Codec {
	return wire.Codec{
		Family:     Family,
		Paths:      []string{"/v1/chat/completions"},
		Route:      route,
		Request:    decodeRequest,
		Response:   decodeResponse,
		Endpoint:   func(func(string) string) string { return Endpoint },
		BaseVar:    BaseURLVar,
		BaseSuffix: "/v1",
	}
}

func route(method, path string) wire.Route {
	switch {
	case method == "POST" && strings.HasSuffix(path, "/chat/completions"):
		return wire.ModelCall
	case method == "GET" && (strings.HasSuffix(path, "/v1/models") || strings.Contains(path, "/v1/models/")):
		return wire.PassThrough
	}
	return wire.NotMine
}

type reqReader struct {
	b     []byte
	r     *wire.Request
	cut   wire.Cutter
	names map[string]string // call id → tool name, for the tool messages
	whole bool              // the texts too (wire.Whole)
}

func decodeRequest(_, _ string, body []byte, depth wire.Depth) (*wire.Request, error) {
	top, err := wire.ReadObject(body)
	if err != nil {
		return nil, err
	}
	d := reqReader{b: body, names: map[string]string{}, whole: depth == wire.Whole, r: &wire.Request{
		Family: Family, Dialect: Name, Endpoint: "chat/completions", Model: top.String("model"), Stream: top.Bool("stream"),
	}}
	for _, m := range top.Members() {
		switch m.Key {
		case "messages":
			err = d.messages(top)
		case "tools", "functions":
			err = d.tools(top, m.Key)
		default:
			d.r.Settings = append(d.r.Settings, wire.Setting{Name: m.Key, Value: string(m.Value.Bytes())})
			d.cut.Part(m.Span(), wire.KindSettings, m.Key, -1, -1)
		}
		if err != nil {
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

// tools reads "tools" ({"type": "function", "function": {...}}) or the
// legacy "functions" (the function objects themselves).
func (d *reqReader) tools(top wire.Value, key string) error {
	tools, err := top.Objects(key)
	if err != nil {
		return err
	}
	for _, t := range tools {
		fn := t
		if key == "tools" {
			fn, _ = t.Object("function")
		}
		spec := history.ToolSpec{Name: fn.String("name"), Description: fn.String("description"), Schema: fn.Raw("parameters")}
		label := spec.Name
		if label == "" {
			label = t.String("type") // a tool of the server's own
		}
		d.cut.Part(t.Span(), wire.KindTool, label, -1, len(d.r.Tools))
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
		role := m.Role("user", "assistant", "tool", "system", "developer", "function")
		if role == "system" || role == "developer" {
			if d.r.System != "" {
				d.r.System += "\n\n"
			}
			d.r.System += contentText(m)
			d.cut.Part(m.Span(), wire.KindSystem, role, -1, -1)
			continue
		}
		msg := d.message(role, m)
		d.cut.Part(m.Span(), wire.MessageKind(msg), role, len(d.r.Messages), -1)
		d.r.Messages = append(d.r.Messages, msg)
	}
	return nil
}

func (d *reqReader) message(role string, m wire.Value) history.Message {
	text := func() string {
		if !d.whole {
			return ""
		}
		return contentText(m)
	}
	switch role {
	case "assistant":
		msg := history.Message{Role: history.RoleAssistant, Text: text()}
		if d.whole {
			msg.Thought = m.String("reasoning_content", "reasoning")
		}
		calls, _ := m.Objects("tool_calls")
		for _, c := range calls {
			fn, _ := c.Object("function")
			call := history.ToolCall{ID: c.String("id"), Name: fn.String("name")}
			if d.whole {
				call.Args = arguments(fn.String("arguments"))
			}
			d.names[call.ID] = call.Name
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		if fc, ok := m.Object("function_call"); ok {
			call := history.ToolCall{Name: fc.String("name")}
			if d.whole {
				call.Args = arguments(fc.String("arguments"))
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		return msg
	case "tool", "function":
		content := text()
		id := m.String("tool_call_id")
		name := m.String("name")
		if name == "" {
			name = d.names[id]
		}
		return history.Message{Role: history.RoleTool, Result: &history.ToolResult{
			CallID: id, Name: name,
			Content: strings.TrimPrefix(content, errorPrefix), IsError: strings.HasPrefix(content, errorPrefix),
		}}
	}
	return history.Message{Role: history.RoleUser, Text: text()}
}

// contentText is a message's content: a string, or the text of its parts
// (an image part stands as [image]).
func contentText(m wire.Value) string {
	if c, _ := m.Get("content"); c.Kind() != '[' {
		return m.String("content")
	}
	parts, _ := m.Objects("content")
	var texts []string
	for _, p := range parts {
		switch t := p.String("type"); t {
		case "text", "input_text":
			texts = append(texts, p.String("text"))
		case "":
		default:
			texts = append(texts, "["+t+"]")
		}
	}
	return strings.Join(texts, "\n")
}

// arguments is a call's arguments string as JSON: the object the model
// wrote, or, when it is not JSON, the string itself.
func arguments(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}

// decodeResponse reads a chat completion, or the chunks of a stream
// (choices[].delta, tool calls in pieces by index, usage in the last
// chunk when asked for), or an error.
func decodeResponse(_ *wire.Request, rep wire.Reply) *wire.Response {
	r := &wire.Response{}
	var calls []*callPieces
	for _, doc := range rep.Docs {
		obj, err := wire.ReadObject(doc)
		if err != nil {
			r.Note(err)
			continue
		}
		calls = readChunk(r, obj, calls)
	}
	for _, c := range calls {
		args := c.args.String()
		r.ToolCalls = append(r.ToolCalls, history.ToolCall{ID: c.id, Name: c.name, Args: arguments(args)})
		var obj map[string]any
		if err := json.Unmarshal([]byte(args), &obj); (err != nil || obj == nil) && strings.TrimSpace(args) != "" && r.Malformed == "" {
			r.Malformed = "the arguments of the " + c.name + " call are not a JSON object: " + args
		}
	}
	r.Failed(rep)
	return r
}

// readChunk adds one completion, or one chunk of a stream, to r.
func readChunk(r *wire.Response, obj wire.Value, calls []*callPieces) []*callPieces {
	if e, ok := obj.Object("error"); ok {
		r.Error = &wire.APIError{Code: firstOf(e.String("code"), e.String("type")), Message: e.String("message")}
		return calls
	}
	if m := obj.String("model"); m != "" {
		r.Model = m
	}
	if u, ok := obj.Object("usage"); ok {
		r.Usage = usage(u)
	}
	choices, _ := obj.Objects("choices")
	if len(choices) == 0 {
		return calls
	}
	c := choices[0]
	if f := c.String("finish_reason"); f != "" {
		r.FinishReason, r.Complete = f, true
	}
	msg, ok := c.Object("message")
	if !ok {
		msg, ok = c.Object("delta")
	}
	if ok {
		calls = readDelta(r, msg, calls)
	}
	return calls
}

// usage reads the token counts, with the cached and reasoning ones.
func usage(u wire.Value) *wire.Usage {
	out := &wire.Usage{Input: u.Int("prompt_tokens"), Output: u.Int("completion_tokens"), Total: u.Int("total_tokens")}
	if det, ok := u.Object("prompt_tokens_details"); ok && det.Has("cached_tokens") {
		out.Cached, out.CachedReported = det.Int("cached_tokens"), true
	}
	if det, ok := u.Object("completion_tokens_details"); ok {
		out.Thoughts = det.Int("reasoning_tokens")
	}
	return out
}

// callPieces is a tool call being put together from a stream's deltas.
type callPieces struct {
	index    int
	id, name string
	args     strings.Builder
}

// readDelta adds a message (or a stream's delta) to r; a tool call piece
// continues the call of the same index.
func readDelta(r *wire.Response, msg wire.Value, calls []*callPieces) []*callPieces {
	r.Text += msg.String("content")
	r.Thought += msg.String("reasoning_content", "reasoning")
	pieces, _ := msg.Objects("tool_calls")
	for k, p := range pieces {
		index := k
		if p.Has("index") {
			index = p.Int("index")
		}
		var c *callPieces
		for _, have := range calls {
			if have.index == index {
				c = have
			}
		}
		if c == nil {
			c = &callPieces{index: index}
			calls = append(calls, c)
		}
		fn, _ := p.Object("function")
		if id := p.String("id"); id != "" {
			c.id = id
		}
		if n := fn.String("name"); n != "" {
			c.name = n
		}
		c.args.WriteString(fn.String("arguments"))
	}
	return calls
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
