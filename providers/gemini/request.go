package gemini

import (
	"encoding/json"
	"sync"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// buildConfig carries everything except the conversation: the system prompt,
// the tool declarations and the switches glassbox needs.
func (p *Provider) buildConfig(req providers.Request) (*genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{
		// The SDK would otherwise re-send a request on its own when a reply
		// stops with CONTINUATION; every request must be the loop's, and
		// visible.
		AutomaticContinuation: genai.Ptr(false),
	}
	if req.System != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, spec := range req.Tools {
			decl, err := functionDeclaration(spec)
			if err != nil {
				return nil, err
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, decl)
		}
		config.Tools = []*genai.Tool{tool}
	}
	if p.includeThoughts {
		config.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	}
	return config, nil
}

// functionDeclaration describes one tool the way Gemini's function calling
// expects: an OBJECT schema whose properties keep the ToolSpec's order.
func functionDeclaration(spec history.ToolSpec) (*genai.FunctionDeclaration, error) {
	decl := &genai.FunctionDeclaration{Name: spec.Name, Description: spec.Description}
	if spec.HasSchema() {
		// A tool's own schema (an MCP server's inputSchema) goes as
		// written, in parametersJsonSchema, which takes full JSON Schema.
		var top map[string]any
		if err := json.Unmarshal(spec.Schema, &top); err != nil {
			return nil, providers.Errorf(providers.KindBadRequest, 0, nil,
				"tool %s cannot be described to Gemini: its input schema is not a JSON object", spec.Name)
		}
		decl.ParametersJsonSchema = json.RawMessage(spec.Schema)
		return decl, nil
	}
	if len(spec.Params) == 0 {
		// Gemini rejects an OBJECT schema with no properties; a function
		// without parameters simply has no schema.
		return decl, nil
	}
	schema := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{}}
	for _, param := range spec.Params {
		prop := &genai.Schema{Description: param.Description}
		switch param.Type {
		case history.TypeString:
			prop.Type = genai.TypeString
		case history.TypeInteger:
			prop.Type = genai.TypeInteger
		case history.TypeBoolean:
			prop.Type = genai.TypeBoolean
		case history.TypeArray:
			prop.Type = genai.TypeArray
			prop.Items = &genai.Schema{Type: genai.TypeString}
		default:
			return nil, providers.Errorf(providers.KindBadRequest, 0, nil,
				"tool %s declares parameter %s with type %q, which glassbox cannot describe to Gemini; use string, integer, boolean or array",
				spec.Name, param.Name, param.Type)
		}
		schema.Properties[param.Name] = prop
		// A Go map has no order; PropertyOrdering tells Gemini the order
		// the tool author chose.
		schema.PropertyOrdering = append(schema.PropertyOrdering, param.Name)
		if param.Required {
			schema.Required = append(schema.Required, param.Name)
		}
	}
	decl.Parameters = schema
	return decl, nil
}

// buildContents turns the neutral history into Gemini contents:
//
//   - a user message becomes a "user" Content with one text part;
//   - an assistant message Gemini wrote is replayed from its Native Content,
//     unchanged, so thoughtSignature and call IDs go back exactly as received;
//   - an assistant message from another provider is rebuilt from its text
//     and tool calls;
//   - a run of tool results becomes ONE "user" Content with one
//     functionResponse part per result, as Gemini requires.
func buildContents(msgs []history.Message, cache *replyCache) ([]*genai.Content, error) {
	var contents []*genai.Content
	var results *genai.Content // the tool-result Content being filled
	for i, msg := range msgs {
		if msg.Role != history.RoleTool {
			results = nil
		}
		switch msg.Role {
		case history.RoleUser:
			contents = append(contents, genai.NewContentFromText(msg.Text, genai.RoleUser))
		case history.RoleAssistant:
			content, err := modelContent(i, msg, cache)
			if err != nil {
				return nil, err
			}
			if content != nil {
				contents = append(contents, content)
			}
		case history.RoleTool:
			if msg.Result == nil {
				return nil, providers.Errorf(providers.KindBadRequest, 0, nil,
					"history message %d is a tool message without a result, so it cannot be sent to Gemini", i+1)
			}
			if results == nil {
				results = &genai.Content{Role: genai.RoleUser}
				contents = append(contents, results)
			}
			results.Parts = append(results.Parts, cache.resultPart(msg.Result))
		default:
			return nil, providers.Errorf(providers.KindBadRequest, 0, nil,
				"history message %d has role %q, which Gemini has no place for", i+1, msg.Role)
		}
	}
	return contents, nil
}

// modelContent returns the "model" Content for an assistant message, or nil
// when there is nothing to send (Gemini rejects a Content without parts).
func modelContent(i int, msg history.Message, cache *replyCache) (*genai.Content, error) {
	if msg.Native != nil && msg.Native.Provider == Name {
		if content, ok := cache.get(msg.Native); ok {
			return content, nil
		}
		var content genai.Content
		if err := json.Unmarshal(msg.Native.Data, &content); err != nil {
			return nil, providers.Errorf(providers.KindBadRequest, 0, err,
				"history message %d holds a Gemini reply that is not valid JSON (%v), so it cannot be sent back unchanged", i+1, err)
		}
		if content.Role == "" {
			content.Role = genai.RoleModel
		}
		var out *genai.Content
		if len(content.Parts) > 0 {
			out = &content
		}
		cache.put(msg.Native, out)
		return out, nil
	}

	// Written by another provider: rebuild it from the neutral fields. Its
	// thoughts stay out; Gemini only accepts its own.
	content := &genai.Content{Role: genai.RoleModel}
	if msg.Text != "" {
		content.Parts = append(content.Parts, &genai.Part{Text: msg.Text})
	}
	for _, call := range msg.ToolCalls {
		var args map[string]any
		if len(call.Args) > 0 {
			if err := json.Unmarshal(call.Args, &args); err != nil {
				return nil, providers.Errorf(providers.KindBadRequest, 0, err,
					"history message %d calls %s with arguments that are not a JSON object (%v)", i+1, call.Name, err)
			}
		}
		content.Parts = append(content.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: call.ID, Name: call.Name, Args: args}})
	}
	if len(content.Parts) == 0 {
		return nil, nil
	}
	return content, nil
}

// functionResponse is one tool result as Gemini expects it: the call's ID
// echoed when it had one, and the result under "output" (or "error").
func functionResponse(r history.ToolResult) *genai.FunctionResponse {
	key := "output"
	if r.IsError {
		key = "error"
	}
	return &genai.FunctionResponse{ID: r.CallID, Name: r.Name, Response: map[string]any{key: r.Content}}
}

// replyCache maps a reply's native JSON to its decoded Content (nil: a
// reply with no parts), and a tool result to its functionResponse Part.
// Both are keyed by identity: history never changes a message's Native or
// Result in place, it replaces them, and looking a pointer up costs the
// same at the end of a long session as at its start.
// The Contents and Parts are shared between calls and never changed: the
// SDK only reads them. The zero value is ready.
type replyCache struct {
	mu      sync.Mutex
	m       map[*history.Native]*genai.Content
	results map[*history.ToolResult]*genai.Part
}

// resultPart returns the functionResponse Part for r, built once.
func (c *replyCache) resultPart(r *history.ToolResult) *genai.Part {
	if c == nil {
		return &genai.Part{FunctionResponse: functionResponse(*r)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if part, ok := c.results[r]; ok {
		return part
	}
	if c.results == nil || len(c.results) >= replyCacheLimit {
		c.results = map[*history.ToolResult]*genai.Part{}
	}
	part := &genai.Part{FunctionResponse: functionResponse(*r)}
	c.results[r] = part
	return part
}

// replyCacheLimit bounds the memory: past it, the cache starts over.
const replyCacheLimit = 50000

func (c *replyCache) get(n *history.Native) (*genai.Content, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	content, ok := c.m[n]
	return content, ok
}

func (c *replyCache) put(n *history.Native, content *genai.Content) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= replyCacheLimit {
		c.m = map[*history.Native]*genai.Content{}
	}
	c.m[n] = content
}
