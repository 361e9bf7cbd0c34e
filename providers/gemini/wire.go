package gemini

// This file reads Gemini API calls from their bytes (package wire): any
// agent's, fields glassbox never sends included, in either spelling the
// API accepts (functionDeclarations and function_declarations).

import (
	"encoding/json"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Family is the API family's name in package wire.
const Family = "gemini"

// Endpoint is the Gemini API's own address, where a tap sends Gemini
// calls by default.
const Endpoint = "https://generativelanguage.googleapis.com"

// Codec reads the Gemini API's generateContent and streamGenerateContent
// calls.
func Codec() wire.Codec {
	return wire.Codec{
		Family:   Family,
		Paths:    []string{"/v1beta/models/{model}:generateContent", "/v1beta/models/{model}:streamGenerateContent"},
		Route:    route,
		Request:  decodeRequest,
		Response: decodeResponse,
		Endpoint: func(func(string) string) string { return Endpoint },
		BaseVar:  BaseURLVar,
	}
}

// route knows the model calls, and passes through what an agent asks
// around them: the model list, a model's card, token counts.
func route(method, path string) wire.Route {
	i := strings.LastIndex(path, "/models")
	if i < 0 {
		return wire.NotMine
	}
	_, call, hasCall := strings.Cut(path[i:], ":")
	switch {
	case hasCall && method == "POST" && (call == "generateContent" || call == "streamGenerateContent"):
		return wire.ModelCall
	case hasCall && method == "POST" && (call == "countTokens" || call == "embedContent" || call == "batchEmbedContents"):
		return wire.PassThrough
	case !hasCall && method == "GET" && (strings.Contains(path, "/v1beta/") || strings.Contains(path, "/v1alpha/")):
		return wire.PassThrough
	}
	return wire.NotMine
}

// reqReader walks one request body.
type reqReader struct {
	b     []byte
	r     *wire.Request
	cut   wire.Cutter
	whole bool // the texts too (wire.Whole)
}

func decodeRequest(path, _ string, body []byte, depth wire.Depth) (*wire.Request, error) {
	top, err := wire.ReadObject(body)
	if err != nil {
		return nil, err
	}
	model, endpoint := modelOf(path)
	d := reqReader{b: body, whole: depth == wire.Whole, r: &wire.Request{
		Family: Family, Dialect: Name, Endpoint: endpoint, Model: model,
		Stream: endpoint == "streamGenerateContent",
	}}
	for _, m := range top.Members() {
		switch m.Key {
		case "contents":
			err = d.contents(top)
		case "systemInstruction", "system_instruction":
			d.r.System = systemText(m.Value)
			d.cut.Part(m.Span(), wire.KindSystem, m.Key, -1, -1)
		case "tools":
			err = d.tools(top)
		case "generationConfig", "generation_config":
			d.settings(m, true)
		default:
			d.settings(m, false)
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

// modelOf reads ".../models/{model}:{call}".
func modelOf(path string) (model, call string) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", ""
	}
	model, call, _ = strings.Cut(path[i+len("/models/"):], ":")
	return model, call
}

func (d *reqReader) settings(m wire.Member, inner bool) {
	if inner && m.Value.Kind() == '{' {
		for _, s := range m.Value.Members() {
			d.r.Settings = append(d.r.Settings, wire.Setting{Name: s.Key, Value: string(s.Value.Bytes())})
		}
	} else {
		d.r.Settings = append(d.r.Settings, wire.Setting{Name: m.Key, Value: string(m.Value.Bytes())})
	}
	d.cut.Part(m.Span(), wire.KindSettings, m.Key, -1, -1)
}

// systemText is the text of systemInstruction: a Content's text parts, or
// a plain string.
func systemText(v wire.Value) string {
	if v.Kind() == '"' {
		return v.Str()
	}
	parts, _ := v.Objects("parts")
	var texts []string
	for _, p := range parts {
		if p.Has("text") {
			texts = append(texts, p.String("text"))
		}
	}
	return strings.Join(texts, "\n")
}

func (d *reqReader) tools(top wire.Value) error {
	tools, err := top.Objects("tools")
	if err != nil {
		return err
	}
	for _, t := range tools {
		decls, ok := t.Get("functionDeclarations", "function_declarations")
		if !ok {
			label := ""
			if ms := t.Members(); len(ms) > 0 {
				label = ms[0].Key // googleSearch, codeExecution, …
			}
			d.cut.Part(t.Span(), wire.KindTool, label, -1, -1)
			continue
		}
		for _, decl := range decls.Elems() {
			if decl.Kind() != '{' {
				return &wire.SyntaxError{Offset: decl.Span().Start, What: "a function declaration was expected"}
			}
			spec := history.ToolSpec{
				Name: decl.String("name"), Description: decl.String("description"),
				Schema: decl.Raw("parametersJsonSchema", "parameters_json_schema", "parameters"),
			}
			d.cut.Part(decl.Span(), wire.KindTool, spec.Name, -1, len(d.r.Tools))
			d.r.Tools = append(d.r.Tools, spec)
		}
	}
	return nil
}

func (d *reqReader) contents(top wire.Value) error {
	contents, err := top.Objects("contents")
	if err != nil {
		return err
	}
	d.r.Messages = slices.Grow(d.r.Messages, len(contents)+len(contents)/2)
	d.cut.Grow(2 * len(contents))
	for _, c := range contents {
		parts, err := c.Objects("parts")
		if err != nil {
			return err
		}
		if c.Role("model") == "model" {
			msg := modelMessage(c, parts, d.whole)
			d.cut.Part(c.Span(), wire.MessageKind(msg), "model", len(d.r.Messages), -1)
			d.r.Messages = append(d.r.Messages, msg)
			continue
		}
		d.userContent(c, parts)
	}
	return nil
}

// userContent reads a user (or "function") Content: its text parts are
// one user message, each functionResponse part one tool message. A
// Content that is one message is one segment; otherwise each part is, and
// the Content's own braces are framing.
func (d *reqReader) userContent(c wire.Value, parts []wire.Value) {
	role := c.Role("user", "function")
	if role == "" {
		role = "user"
	}
	// The messages go straight onto the request; of[i] is the one part i
	// belongs to (a short array holds the usual few parts).
	base := len(d.r.Messages)
	var small [8]int
	of := small[:0]
	text := -1
	for _, p := range parts {
		if fr, ok := p.Object("functionResponse", "function_response"); ok {
			of = append(of, len(d.r.Messages))
			d.r.Messages = append(d.r.Messages, history.Message{Role: history.RoleTool, Result: toolResult(fr, d.whole)})
			continue
		}
		if text < 0 {
			text = len(d.r.Messages)
			d.r.Messages = append(d.r.Messages, history.Message{Role: history.RoleUser})
		}
		of = append(of, text)
		if m := &d.r.Messages[text]; d.whole {
			if m.Text != "" {
				m.Text += "\n"
			}
			m.Text += partText(p)
		}
	}
	switch n := len(d.r.Messages) - base; {
	case n == 0: // a Content with no parts
		d.cut.Part(c.Span(), wire.KindUser, role, base, -1)
		d.r.Messages = append(d.r.Messages, history.Message{Role: history.RoleUser})
	case n == 1:
		d.cut.Part(c.Span(), wire.MessageKind(d.r.Messages[base]), role, base, -1)
	default:
		for i, p := range parts {
			d.cut.Part(p.Span(), wire.MessageKind(d.r.Messages[of[i]]), role, of[i], -1)
		}
	}
}

// partText is what a user part says: its text, or what it carries.
func partText(p wire.Value) string {
	switch {
	case p.Has("text"):
		return p.String("text")
	case p.Has("inlineData", "inline_data"):
		in, _ := p.Object("inlineData", "inline_data")
		return "[" + in.String("mimeType", "mime_type") + "]"
	case p.Has("fileData", "file_data"):
		f, _ := p.Object("fileData", "file_data")
		return "[" + f.String("fileUri", "file_uri") + "]"
	}
	return ""
}

// toolResult reads a functionResponse: glassbox's {"output": …} or
// {"error": …} as the text, anything else as its JSON (with whole).
func toolResult(fr wire.Value, whole bool) *history.ToolResult {
	r := &history.ToolResult{CallID: fr.String("id"), Name: fr.String("name")}
	resp, ok := fr.Object("response")
	if !ok || !whole {
		return r
	}
	if ms := resp.Members(); len(ms) == 1 && (ms[0].Key == "output" || ms[0].Key == "error") {
		if text := ms[0].Value.Str(); text != "" {
			r.Content, r.IsError = text, ms[0].Key == "error"
			return r
		}
	}
	r.Content = string(resp.JSON())
	return r
}

// modelMessage reads a model Content: text, thoughts, calls. The Content
// is kept as it was written (Native), so a Gemini request built from it
// sends it back unchanged, thought signatures included.
func modelMessage(c wire.Value, parts []wire.Value, whole bool) history.Message {
	msg := history.Message{Role: history.RoleAssistant}
	if whole {
		msg.Native = &history.Native{Provider: Name, Data: c.JSON()}
	}
	for _, p := range parts {
		if fc, ok := p.Object("functionCall", "function_call"); ok {
			var args json.RawMessage
			if whole {
				args = fc.Raw("args")
			}
			if args == nil {
				args = []byte("{}")
			}
			msg.ToolCalls = append(msg.ToolCalls, history.ToolCall{ID: fc.String("id"), Name: fc.String("name"), Args: args})
			continue
		}
		if !whole {
			continue
		}
		if p.Bool("thought") {
			msg.Thought += p.String("text")
		} else {
			msg.Text += p.String("text")
		}
	}
	return msg
}

// decodeResponse reads a generateContent reply, a stream of them (SSE
// events, or the JSON array streamGenerateContent sends without alt=sse),
// or an error.
func decodeResponse(_ *wire.Request, rep wire.Reply) *wire.Response {
	r := &wire.Response{}
	for _, doc := range rep.Docs {
		d, err := wire.Parse(doc)
		if err != nil {
			r.Note(err)
			continue
		}
		for _, ev := range d.Root().Elems() { // an array of events, or one
			readEvent(r, ev)
		}
	}
	r.Failed(rep)
	return r
}

// readEvent adds one GenerateContentResponse (or error) to r.
func readEvent(r *wire.Response, ev wire.Value) {
	if e, ok := ev.Object("error"); ok {
		r.Error = &wire.APIError{Status: e.Int("code"), Code: e.String("status"), Message: e.String("message")}
		return
	}
	if u, ok := ev.Object("usageMetadata", "usage_metadata"); ok {
		thoughts := u.Int("thoughtsTokenCount", "thoughts_token_count")
		r.Usage = &wire.Usage{
			Input:  u.Int("promptTokenCount", "prompt_token_count") + u.Int("toolUsePromptTokenCount", "tool_use_prompt_token_count"),
			Output: u.Int("candidatesTokenCount", "candidates_token_count") + thoughts,
			Cached: u.Int("cachedContentTokenCount", "cached_content_token_count"), CachedReported: u.Has("cachedContentTokenCount", "cached_content_token_count"),
			Thoughts: thoughts, Total: u.Int("totalTokenCount", "total_token_count"),
		}
	}
	if m := ev.String("modelVersion", "model_version"); m != "" {
		r.Model = m
	}
	if fb, ok := ev.Object("promptFeedback", "prompt_feedback"); ok && fb.Has("blockReason", "block_reason") {
		r.FinishReason, r.Complete = fb.String("blockReason", "block_reason"), true
	}
	cands, _ := ev.Objects("candidates")
	if len(cands) == 0 {
		return
	}
	cand := cands[0]
	if f := cand.String("finishReason", "finish_reason"); f != "" {
		r.FinishReason, r.Complete = f, true
		if f == string(genai.FinishReasonMalformedFunctionCall) || f == string(genai.FinishReasonUnexpectedToolCall) {
			// The model tried to call and failed: no call, no answer.
			r.Malformed = strings.TrimSpace("finishReason " + f + " " + cand.String("finishMessage", "finish_message"))
		}
	}
	content, ok := cand.Object("content")
	if !ok {
		return
	}
	parts, _ := content.Objects("parts")
	for _, p := range parts {
		if fc, ok := p.Object("functionCall", "function_call"); ok {
			args := fc.Raw("args")
			if args == nil {
				args = []byte("{}")
			}
			r.ToolCalls = append(r.ToolCalls, history.ToolCall{ID: fc.String("id"), Name: fc.String("name"), Args: args})
		} else if p.Bool("thought") {
			r.Thought += p.String("text")
		} else {
			r.Text += p.String("text")
		}
	}
}
