package spans

import (
	"encoding/json"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// The GenAI semantic conventions (v1.41.0, the version glassbox writes):
// an inference span and its attributes.
const (
	attrOperation    = "gen_ai.operation.name"
	attrProvider     = "gen_ai.provider.name"
	attrSystemOld    = "gen_ai.system" // before v1.37
	attrRequestModel = "gen_ai.request.model"
	attrRespModel    = "gen_ai.response.model"
	attrStream       = "gen_ai.request.stream"
	attrFinish       = "gen_ai.response.finish_reasons"
	attrInputTokens  = "gen_ai.usage.input_tokens"
	attrOutputTokens = "gen_ai.usage.output_tokens"
	attrCacheRead    = "gen_ai.usage.cache_read.input_tokens"
	attrReasoning    = "gen_ai.usage.reasoning.output_tokens"
	attrInput        = "gen_ai.input.messages"
	attrOutput       = "gen_ai.output.messages"
	attrSystem       = "gen_ai.system_instructions"
	attrToolDefs     = "gen_ai.tool.definitions"
	attrErrorType    = "error.type"
	attrHTTPStatus   = "http.response.status_code"
	attrErrorMessage = "glassbox.error.message"
)

// inferenceOps are the operations of a model call.
var inferenceOps = map[string]bool{"chat": true, "generate_content": true, "text_completion": true}

// isInference says rec is an inference span of the conventions.
func isInference(rec Record) bool {
	return !rec.Log && inferenceOps[str(rec.Attrs, attrOperation)]
}

// family is the API family and glassbox's dialect of a provider's name
// (gen_ai.provider.name, or gen_ai.system before v1.37).
func family(provider string) (fam, dialect string) {
	p := strings.ToLower(provider)
	switch {
	case strings.Contains(p, "gemini"), strings.HasPrefix(p, "gcp."), strings.Contains(p, "vertex"):
		return "gemini", "gemini"
	case strings.Contains(p, "openai"):
		return "openai", "openai"
	case strings.Contains(p, "ollama"):
		return "ollama", ""
	}
	return provider, ""
}

// part is one part of a message in the conventions' JSON schemas.
type part struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Result    json.RawMessage `json:"result"`
}

type chatMessage struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason"`
}

// jsonAttr decodes an attribute that holds JSON: a string of JSON (what
// the conventions say) or a structured value (kvlist, array).
func jsonAttr(a map[string]any, k string, v any) bool {
	raw, ok := a[k]
	if !ok || raw == nil {
		return false
	}
	var b []byte
	if s, isStr := raw.(string); isStr {
		b = []byte(s)
	} else {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return false
		}
	}
	return json.Unmarshal(b, v) == nil
}

// text is a part's content as text: a JSON string, or the JSON itself.
func text(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// systemText is gen_ai.system_instructions as text: a list of parts, or a
// JSON string (as Gemini CLI writes it on its llm_call spans).
func systemText(a map[string]any) (string, bool) {
	var parts []part
	if jsonAttr(a, attrSystem, &parts) {
		var texts []string
		for _, p := range parts {
			texts = append(texts, text(p.Content))
		}
		return strings.Join(texts, "\n"), true
	}
	var s string
	if jsonAttr(a, attrSystem, &s) {
		return s, true
	}
	return "", false
}

// toolDefs is gen_ai.tool.definitions: the conventions' list of
// {type, name, description, parameters}, or the Gemini API's tools
// ({functionDeclarations: […]}), as Gemini CLI writes it.
func toolDefs(a map[string]any) ([]history.ToolSpec, bool) {
	var defs []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		Parameters   json.RawMessage `json:"parameters"`
		Schema       json.RawMessage `json:"parametersJsonSchema"`
		Declarations []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Schema      json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	}
	if !jsonAttr(a, attrToolDefs, &defs) {
		return nil, false
	}
	var out []history.ToolSpec
	add := func(name, desc string, params, schema json.RawMessage) {
		if len(schema) == 0 {
			schema = params
		}
		out = append(out, history.ToolSpec{Name: name, Description: desc, Schema: schema})
	}
	for _, d := range defs {
		for _, f := range d.Declarations {
			add(f.Name, f.Description, f.Parameters, f.Schema)
		}
		if d.Name != "" {
			add(d.Name, d.Description, d.Parameters, d.Schema)
		}
	}
	return out, true
}

// messages turns the conventions' messages into history messages: a
// system message's text goes to system; each tool result is a message of
// its own, named after the call it answers.
func messages(in []chatMessage) (msgs []history.Message, system string) {
	names := map[string]string{}
	var calls []history.ToolCall
	for _, m := range in {
		switch m.Role {
		case "system":
			for _, p := range m.Parts {
				system += text(p.Content)
			}
			continue
		case "assistant", "model":
			msg := assistant(m.Parts)
			calls = msg.ToolCalls
			for _, c := range calls {
				names[c.ID] = c.Name
			}
			msgs = append(msgs, msg)
			continue
		}
		msgs = append(msgs, userParts(m.Parts, names, calls)...)
	}
	return msgs, system
}

// assistant is a model's message from its parts.
func assistant(parts []part) history.Message {
	msg := history.Message{Role: history.RoleAssistant}
	for _, p := range parts {
		switch p.Type {
		case "text":
			msg.Text += text(p.Content)
		case "reasoning", "thinking":
			msg.Thought += text(p.Content)
		case "tool_call":
			args := p.Arguments
			if s := text(args); len(args) > 0 && args[0] == '"' && json.Valid([]byte(s)) {
				args = json.RawMessage(s) // arguments written as a string of JSON
			}
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			msg.ToolCalls = append(msg.ToolCalls, history.ToolCall{ID: p.ID, Name: p.Name, Args: args})
		}
	}
	return msg
}

// userParts are a user's or a tool's message: its text as one message,
// each tool result as one of its own.
func userParts(parts []part, names map[string]string, calls []history.ToolCall) []history.Message {
	var out []history.Message
	var texts []string
	k := 0
	for _, p := range parts {
		switch p.Type {
		case "tool_call_response":
			name := names[p.ID]
			if name == "" && k < len(calls) {
				name = calls[k].Name
			}
			k++
			resp := p.Response
			if len(resp) == 0 {
				resp = p.Result
			}
			out = append(out, history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: p.ID, Name: name, Content: text(resp)}})
		case "text":
			texts = append(texts, text(p.Content))
		}
	}
	if len(texts) > 0 {
		out = append([]history.Message{{Role: history.RoleUser, Text: strings.Join(texts, "\n")}}, out...)
	}
	return out
}

// semconvCall is the call an inference span records.
func (p *interpreter) semconvCall(rec Record) Call {
	a := rec.Attrs
	provider := str(a, attrProvider)
	if provider == "" {
		provider = str(a, attrSystemOld)
	}
	fam, dialect := family(provider)
	req := &wire.Request{Family: fam, Dialect: dialect, Model: str(a, attrRequestModel)}
	if req.Model == "" {
		req.Model = str(a, attrRespModel)
	}
	req.Stream, _ = a[attrStream].(bool)
	var in []chatMessage
	if jsonAttr(a, attrInput, &in) {
		req.Messages, req.System = messages(in)
		p.saw(seenPrompts)
	}
	if s, ok := systemText(a); ok {
		req.System = s
		p.saw(seenSystem)
	}
	if tools, ok := toolDefs(a); ok {
		req.Tools = tools
		p.saw(seenTools)
	}
	req.Input = len(req.Messages)
	c := Call{Request: req, Started: rec.Start, Duration: rec.End.Sub(rec.Start)}
	if n, ok := num(a, attrHTTPStatus); ok {
		c.Status = int(n)
	}
	c.Response = p.semconvReply(rec)
	return c
}

// semconvReply is what an inference span says came back.
func (p *interpreter) semconvReply(rec Record) *wire.Response {
	a := rec.Attrs
	resp := &wire.Response{Complete: true, Model: str(a, attrRespModel)}
	if fr, ok := a[attrFinish].([]any); ok && len(fr) > 0 {
		resp.FinishReason, _ = fr[0].(string)
	}
	if u, ok := usage(a, attrInputTokens, attrOutputTokens, attrCacheRead, attrReasoning); ok {
		resp.Usage = u
		p.saw(seenUsage)
	}
	if kind := str(a, attrErrorType); rec.Error || kind != "" {
		status, _ := num(a, attrHTTPStatus)
		msg := rec.Status
		if msg == "" {
			msg = str(a, attrErrorMessage)
		}
		resp.Error = &wire.APIError{Status: int(status), Code: kind, Message: msg}
		return resp
	}
	var out []chatMessage
	if jsonAttr(a, attrOutput, &out) && len(out) > 0 {
		msg := assistant(out[0].Parts)
		resp.Text, resp.Thought, resp.ToolCalls = msg.Text, msg.Thought, msg.ToolCalls
		if out[0].FinishReason != "" {
			resp.FinishReason = out[0].FinishReason
		}
		p.saw(seenReplies)
	}
	return resp
}

// usage reads the token counts under the names given (input, output,
// cached, thoughts); ok is false when the input or output is missing.
func usage(a map[string]any, input, output, cached, thoughts string) (*wire.Usage, bool) {
	in, ok1 := num(a, input)
	out, ok2 := num(a, output)
	if !ok1 && !ok2 {
		return nil, false
	}
	u := &wire.Usage{Input: int(in), Output: int(out), Total: int(in + out)}
	if n, ok := num(a, cached); ok {
		u.Cached, u.CachedReported = int(n), true
	}
	if n, ok := num(a, thoughts); ok {
		u.Thoughts = int(n)
	}
	return u, true
}
