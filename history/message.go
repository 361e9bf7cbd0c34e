// Package history holds the provider-neutral conversation: the messages a
// person, the model and the tools add, the tool vocabulary they share, and an
// append-only log whose length is a checkpoint.
package history

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Role says who a message speaks for.
type Role string

const (
	// RoleUser is a person's request, or text the loop writes for the model
	// (see Message.Feedback).
	RoleUser Role = "user"
	// RoleAssistant is the model's turn: text, reasoning and tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool carries one tool result back to the model.
	RoleTool Role = "tool"
)

// Message is one entry of the conversation. Exactly which fields are set
// depends on Role:
//
//   - user: Text (Feedback is true when the loop, not a person, wrote it,
//     for example to tell the model its last reply could not be parsed).
//   - assistant: Text and/or ToolCalls, optionally Thought.
//   - tool: Result.
//
// Native keeps what a provider needs to replay the turn byte for byte (a
// Gemini Content with its thoughtSignature, a Llama JSON-mode reply as the
// model wrote it). Providers use it when Native.Provider is their own name and
// fall back to the neutral fields otherwise.
type Message struct {
	Role      Role        `json:"role"`
	Text      string      `json:"text,omitempty"`
	Thought   string      `json:"thought,omitempty"`
	ToolCalls []ToolCall  `json:"tool_calls,omitempty"`
	Result    *ToolResult `json:"result,omitempty"`
	Feedback  bool        `json:"feedback,omitempty"`
	Native    *Native     `json:"native,omitempty"`
}

// ToolCall is one function call the model asked for. Args is the JSON object
// the model sent, kept in the model's own key order.
type ToolCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// CanonicalArgs returns Args re-encoded with sorted keys and no insignificant
// white space, so two calls with the same arguments compare equal however the
// model ordered or spaced them. Invalid JSON is returned unchanged.
func (c ToolCall) CanonicalArgs() string {
	var v any
	if err := json.Unmarshal(c.Args, &v); err != nil {
		return string(bytes.TrimSpace(c.Args))
	}
	b, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return string(c.Args)
	}
	return string(b)
}

// ToolResult is what a tool returned for the call with CallID. IsError marks
// a result the model should repair: a denial, a tool failure, an unknown tool.
type ToolResult struct {
	CallID  string `json:"call_id,omitempty"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Native is a provider's own encoding of a message, replayed unchanged.
type Native struct {
	Provider string          `json:"provider"`
	Data     json.RawMessage `json:"data"`
}

// Log is the append-only conversation. Its length is a checkpoint: Upto(n)
// is the conversation as it was when Len() was n.
type Log struct {
	msgs []Message
}

// Append adds messages at the end.
func (l *Log) Append(m ...Message) { l.msgs = append(l.msgs, m...) }

// Len is the number of messages, which doubles as a checkpoint.
func (l *Log) Len() int { return l.len() }

func (l *Log) len() int {
	if l == nil {
		return 0
	}
	return len(l.msgs)
}

// Messages returns every message. The slice is shared: callers must not
// modify it (the log only ever appends, so it stays valid).
func (l *Log) Messages() []Message { return l.Upto(l.len()) }

// Upto returns the first n messages (clamped to the log's length).
func (l *Log) Upto(n int) []Message {
	if l == nil || n <= 0 {
		return nil
	}
	if n > len(l.msgs) {
		n = len(l.msgs)
	}
	return l.msgs[:n:n]
}

// Truncate drops every message after the first n; it is how a person forks
// the conversation from an earlier checkpoint. The kept messages move to a
// new array, so slices handed out before (Messages, Upto) still read what
// they read then, even after new messages are appended.
func (l *Log) Truncate(n int) {
	if n < 0 {
		n = 0
	}
	if n < len(l.msgs) {
		l.msgs = slices.Clone(l.msgs[:n])
	}
}
