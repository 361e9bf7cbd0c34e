package telemetry

import (
	"encoding/json"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/glassbox-dev/glassbox/history"
)

// maxPartBytes bounds one text part of the content attributes: a tool
// result of megabytes would otherwise make every later span carry it and
// exceed what collectors accept in one request. The JSON stays whole; the
// part ends with a note of what was cut (the conventions allow truncating
// content "preserving JSON structure").
const maxPartBytes = 16 << 10

// part is one part of a message in the conventions' JSON schemas
// (gen-ai-input-messages.json, gen-ai-output-messages.json).
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

type chatMessage struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// cut shortens text to maxPartBytes on a character boundary.
func cut(s string) string {
	if len(s) <= maxPartBytes {
		return s
	}
	n := maxPartBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…[glassbox: " + itoa(len(s)-n) + " bytes cut]"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// chat is a history message in the conventions' shape, masked.
func (tr *tracker) chat(m history.Message) chatMessage {
	c := chatMessage{Role: string(m.Role)}
	if m.Thought != "" {
		c.Parts = append(c.Parts, part{Type: "reasoning", Content: cut(tr.mask.Mask(m.Thought))})
	}
	if m.Text != "" {
		c.Parts = append(c.Parts, part{Type: "text", Content: cut(tr.mask.Mask(m.Text))})
	}
	for _, call := range m.ToolCalls {
		args := json.RawMessage(tr.mask.MaskJSON(call.Args))
		if !json.Valid(args) {
			args, _ = json.Marshal(string(args))
		}
		c.Parts = append(c.Parts, part{Type: "tool_call", ID: call.ID, Name: call.Name, Arguments: args})
	}
	if r := m.Result; r != nil {
		text := cut(tr.mask.Mask(r.Content))
		c.Parts = append(c.Parts, part{Type: "tool_call_response", ID: r.CallID, Response: &text})
	}
	if c.Parts == nil {
		c.Parts = []part{}
	}
	return c
}

// messagesJSON is gen_ai.input.messages for msgs.
func (tr *tracker) messagesJSON(msgs []history.Message) string {
	out := make([]chatMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, tr.chat(m))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// outputJSON is gen_ai.output.messages: the model's one reply.
func (tr *tracker) outputJSON(m history.Message, finish string) string {
	c := tr.chat(m)
	c.Role, c.FinishReason = string(history.RoleAssistant), finish
	b, _ := json.Marshal([]chatMessage{c})
	return string(b)
}

// contentOf is a model call's opt-in content: what it was sent and what it
// answered. A call whose context a person edited (what-if) carries no
// input messages: glassbox keeps the context as assembled, not as sent.
func (tr *tracker) contentOf(t record) []attribute.KeyValue {
	var kv []attribute.KeyValue
	if tr.run.System != "" {
		b, _ := json.Marshal([]part{{Type: "text", Content: cut(tr.mask.Mask(tr.run.System))}})
		kv = append(kv, keySystem.String(string(b)))
	}
	if len(tr.run.Tools) > 0 {
		kv = append(kv, keyToolDefs.String(tr.toolDefs()))
	}
	if !t.Edited {
		kv = append(kv, keyInputMessages.String(tr.messagesJSON(tr.history)))
	}
	for _, m := range t.Added {
		if m.Role == history.RoleAssistant {
			finish := t.LLM.FinishReason
			if finish == "" {
				finish = t.LLM.StopReason
			}
			kv = append(kv, keyOutputMessages.String(tr.outputJSON(m, finish)))
			break
		}
	}
	return kv
}

// toolDefs is gen_ai.tool.definitions: each tool's name, description and
// parameters, as the model is offered them.
func (tr *tracker) toolDefs() string {
	type def struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	out := make([]def, 0, len(tr.run.Tools))
	for _, s := range tr.run.Tools {
		d := def{Type: "function", Name: s.Name, Description: tr.mask.Mask(s.Description)}
		if schema, err := json.Marshal(s.JSONSchema()); err == nil {
			d.Parameters = schema
		}
		out = append(out, d)
	}
	b, _ := json.Marshal(out)
	return string(b)
}
