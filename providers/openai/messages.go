package openai

// This file turns the neutral history into chat completions messages. A
// reply this provider wrote is replayed from its Native copy, arguments as
// the model wrote them; one from another dialect (after a fork) is rebuilt
// from the neutral fields, with call ids made up where it had none (Llama's
// JSON mode has no ids, and the API pairs every tool message with one).

import (
	"encoding/json"
	"fmt"

	goa "github.com/sashabaranov/go-openai"

	"github.com/glassbox-dev/glassbox/history"
)

// errorPrefix marks a failed tool result: a tool message has no field for it.
const errorPrefix = "Error: "

// messages maps the system prompt and the history.
func messages(system string, msgs []history.Message) ([]goa.ChatCompletionMessage, error) {
	var out []goa.ChatCompletionMessage
	if system != "" {
		out = append(out, goa.ChatCompletionMessage{Role: goa.ChatMessageRoleSystem, Content: system})
	}
	var pending []wireCall // calls of the latest turn not yet answered
	for i, m := range msgs {
		switch m.Role {
		case history.RoleUser:
			out = append(out, goa.ChatCompletionMessage{Role: goa.ChatMessageRoleUser, Content: m.Text})
		case history.RoleAssistant:
			wire, err := assistant(m, i)
			if err != nil {
				return nil, fmt.Errorf("history message %d: %w", i+1, err)
			}
			out = append(out, wire.param())
			pending = append(pending[:0], wire.ToolCalls...)
		case history.RoleTool:
			if m.Result == nil {
				return nil, fmt.Errorf("history message %d is a tool message without a result", i+1)
			}
			id := m.Result.CallID
			if k := answered(pending, m.Result); k >= 0 {
				id = pending[k].ID
				pending = append(pending[:k], pending[k+1:]...)
			}
			content := m.Result.Content
			if m.Result.IsError {
				content = errorPrefix + content
			}
			out = append(out, goa.ChatCompletionMessage{Role: goa.ChatMessageRoleTool, Content: content, ToolCallID: id})
		case history.RoleNote:
			// A note is for people: never sent.
		default:
			return nil, fmt.Errorf("history message %d has the unknown role %q", i+1, m.Role)
		}
	}
	return out, nil
}

// answered is the index of the pending call r answers: by its id, else the
// first call of its name, else the first; -1 when none is pending.
func answered(pending []wireCall, r *history.ToolResult) int {
	for i, c := range pending {
		if r.CallID != "" && c.ID == r.CallID {
			return i
		}
	}
	for i, c := range pending {
		if c.Name == r.Name {
			return i
		}
	}
	if len(pending) > 0 {
		return 0
	}
	return -1
}

// assistant is an assistant turn as the API wrote it (its Native copy) or
// as it would have (rebuilt; the i-th message's calls without an id get
// "call_<i>_<k>").
func assistant(m history.Message, i int) (wireMessage, error) {
	if m.Native != nil && m.Native.Provider == Name {
		var w wireMessage
		if err := json.Unmarshal(m.Native.Data, &w); err != nil {
			return wireMessage{}, fmt.Errorf("the saved chat completions reply could not be read: %v", err)
		}
		return w, nil
	}
	w := wireMessage{Content: m.Text}
	for k, c := range m.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", i, k)
		}
		args := string(c.Args)
		if len(c.Args) == 0 {
			args = "{}"
		}
		w.ToolCalls = append(w.ToolCalls, wireCall{ID: id, Name: c.Name, Arguments: args})
	}
	return w, nil
}

// param is the reply as a request message (an empty content is written by
// settler: go-openai leaves it out).
func (w wireMessage) param() goa.ChatCompletionMessage {
	a := goa.ChatCompletionMessage{Role: goa.ChatMessageRoleAssistant, Content: w.Content}
	for _, c := range w.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, goa.ToolCall{
			ID: c.ID, Type: goa.ToolTypeFunction,
			Function: goa.FunctionCall{Name: c.Name, Arguments: c.Arguments},
		})
	}
	return a
}
