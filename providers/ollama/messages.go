package ollama

// This file turns the neutral history into Ollama chat messages, once per
// tool mode. A turn this provider produced itself is replayed from its
// Native copy; a turn from elsewhere (Gemini, or the other tool mode, after
// a fork) is rebuilt from the neutral fields.

import (
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/history"
)

// Native.Provider names for the two tool modes: a JSON-mode turn keeps the
// text the model wrote, a native turn keeps the api.Message.
const (
	NativeLlamaJSON   = "llama-json"
	NativeLlamaNative = "llama-native"
)

// errorPrefix marks a failed tool result in native mode, where the tool
// message has no field for it.
const errorPrefix = "Error: "

// jsonModeMessages maps history for JSON mode: every assistant turn is one
// JSON reply, and every tool result goes back as a user message.
func jsonModeMessages(system string, tools []history.ToolSpec, msgs []history.Message) ([]api.Message, error) {
	out := []api.Message{{Role: "system", Content: JSONModeSystemPrompt(system, tools)}}
	for i, m := range msgs {
		switch m.Role {
		case history.RoleUser:
			out = append(out, api.Message{Role: "user", Content: m.Text})
		case history.RoleAssistant:
			replies, err := jsonModeAssistant(m)
			if err != nil {
				return nil, fmt.Errorf("history message %d: %w", i+1, err)
			}
			for _, r := range replies {
				out = append(out, api.Message{Role: "assistant", Content: r})
			}
		case history.RoleTool:
			if m.Result == nil {
				return nil, fmt.Errorf("history message %d is a tool message without a result", i+1)
			}
			out = append(out, api.Message{Role: "user", Content: toolResultJSON(*m.Result)})
		default:
			return nil, fmt.Errorf("history message %d has the unknown role %q", i+1, m.Role)
		}
	}
	return out, nil
}

// jsonModeAssistant is an assistant turn as the JSON reply (or replies) the
// model would have written. A turn with several tool calls (Gemini can make
// parallel calls) becomes one reply per call, since JSON mode allows one.
func jsonModeAssistant(m history.Message) ([]string, error) {
	if m.Native != nil && m.Native.Provider == NativeLlamaJSON {
		var raw string
		if err := json.Unmarshal(m.Native.Data, &raw); err != nil {
			return nil, fmt.Errorf("the saved JSON-mode reply is not a JSON string: %v", err)
		}
		return []string{raw}, nil
	}

	thought := m.Thought
	if len(m.ToolCalls) == 0 {
		return []string{string(marshalPlain(orderedObject{{"thought", thought}, {"response", m.Text}}))}, nil
	}
	if thought == "" {
		thought = m.Text
	}
	replies := make([]string, 0, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		input, err := argsObject(c)
		if err != nil {
			return nil, err
		}
		reply := orderedObject{
			{"thought", thought},
			{"tool_call", orderedObject{{"name", c.Name}, {"input", input}}},
		}
		replies = append(replies, string(marshalPlain(reply)))
		thought = "" // said once, before the first call
	}
	return replies, nil
}

// argsObject checks that a tool call's arguments are a JSON object and
// returns them ready to embed; missing arguments are {}.
func argsObject(c history.ToolCall) (json.RawMessage, error) {
	if len(c.Args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if jsonKind(c.Args) != "object" || !json.Valid(c.Args) {
		return nil, fmt.Errorf("the arguments of the %s call are not a JSON object: %s", c.Name, quoteStart(string(c.Args)))
	}
	return c.Args, nil
}

// toolResultJSON is a tool result as JSON mode sends it back:
// {"tool_result": {"name": ..., "result": ..., "is_error": true}}.
func toolResultJSON(r history.ToolResult) string {
	result := orderedObject{{"name", r.Name}, {"result", r.Content}}
	if r.IsError {
		result = append(result, field{"is_error", true})
	}
	return string(marshalPlain(orderedObject{{"tool_result", result}}))
}

// nativeMessages maps history for Ollama's native tools: assistant turns
// carry tool_calls, tool results are role "tool" messages.
func nativeMessages(system string, msgs []history.Message) ([]api.Message, error) {
	var out []api.Message
	if system != "" {
		out = append(out, api.Message{Role: "system", Content: system})
	}
	for i, m := range msgs {
		switch m.Role {
		case history.RoleUser:
			out = append(out, api.Message{Role: "user", Content: m.Text})
		case history.RoleAssistant:
			msg, err := nativeAssistant(m)
			if err != nil {
				return nil, fmt.Errorf("history message %d: %w", i+1, err)
			}
			out = append(out, msg)
		case history.RoleTool:
			if m.Result == nil {
				return nil, fmt.Errorf("history message %d is a tool message without a result", i+1)
			}
			content := m.Result.Content
			if m.Result.IsError {
				content = errorPrefix + content
			}
			out = append(out, api.Message{
				Role:       "tool",
				Content:    content,
				ToolName:   m.Result.Name,
				ToolCallID: m.Result.CallID,
			})
		default:
			return nil, fmt.Errorf("history message %d has the unknown role %q", i+1, m.Role)
		}
	}
	return out, nil
}

// nativeAssistant replays an assistant turn: unchanged when this provider
// wrote it in native mode, rebuilt from the neutral fields otherwise.
func nativeAssistant(m history.Message) (api.Message, error) {
	if m.Native != nil && m.Native.Provider == NativeLlamaNative {
		var msg api.Message
		if err := json.Unmarshal(m.Native.Data, &msg); err != nil {
			return api.Message{}, fmt.Errorf("the saved Ollama message could not be read: %v", err)
		}
		return msg, nil
	}
	msg := api.Message{Role: "assistant", Content: m.Text, Thinking: m.Thought}
	for i, c := range m.ToolCalls {
		raw, err := argsObject(c)
		if err != nil {
			return api.Message{}, err
		}
		args := api.NewToolCallFunctionArguments()
		if err := json.Unmarshal(raw, &args); err != nil {
			return api.Message{}, fmt.Errorf("the arguments of the %s call could not be read: %v", c.Name, err)
		}
		msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
			ID:       c.ID,
			Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args},
		})
	}
	return msg, nil
}

// nativeTools declares the tools to Ollama, parameters in the order the
// ToolSpec lists them (api.ToolPropertiesMap keeps insertion order). A tool
// with its own JSON Schema is passed on as written, or refused with the
// reason (schemaParameters).
func nativeTools(specs []history.ToolSpec) (api.Tools, error) {
	var tools api.Tools
	for _, s := range specs {
		params, err := nativeParameters(s)
		if err != nil {
			return nil, err
		}
		tools = append(tools, api.Tool{
			Type:     "function",
			Function: api.ToolFunction{Name: s.Name, Description: s.Description, Parameters: params},
		})
	}
	return tools, nil
}

func nativeParameters(s history.ToolSpec) (api.ToolFunctionParameters, error) {
	if s.HasSchema() {
		return schemaParameters(s)
	}
	props := api.NewToolPropertiesMap()
	var required []string
	for _, p := range s.Params {
		prop := api.ToolProperty{Type: api.PropertyType{string(p.Type)}, Description: p.Description}
		if p.Type == history.TypeArray {
			prop.Items = map[string]any{"type": "string"}
		}
		props.Set(p.Name, prop)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return api.ToolFunctionParameters{Type: "object", Required: required, Properties: props}, nil
}
