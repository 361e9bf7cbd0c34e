package loop

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/tools"
)

// ContextEdit is what a what-if edit changed in the context before it was
// sent: the transition that sends it carries it (Transition.Edit), so the
// trace, the session and History say what the model was really sent.
type ContextEdit struct {
	// System is true when the system prompt was changed.
	System bool `json:"system,omitempty"`
	// Messages are the messages changed, added or removed, in order.
	Messages []MessageEdit `json:"messages,omitempty"`
}

// MessageEdit is one message of the context a person changed, added or
// removed.
type MessageEdit struct {
	// N is the message's place in the context as sent (1-based); for a
	// removed message, its place in the context as assembled.
	N int `json:"n"`
	// Change is "changed", "added" or "removed".
	Change string `json:"change"`
	// About names the message for a person: "the request", "the result of
	// list_files", "the model's reply".
	About string `json:"about"`
	// Sent is the message as it was sent (nil when removed).
	Sent *history.Message `json:"sent,omitempty"`
	// Diff is what changed in its text, as a unified diff: every line
	// added for an added message, every line removed for a removed one.
	Diff string `json:"diff,omitempty"`
}

// Summary is the edit in one line: "the result of list_files (message 3)
// changed; the system prompt changed".
func (c *ContextEdit) Summary() string {
	var parts []string
	for _, m := range c.Messages {
		parts = append(parts, fmt.Sprintf("%s (message %d) %s", m.About, m.N, m.Change))
	}
	if c.System {
		parts = append(parts, "the system prompt changed")
	}
	return strings.Join(parts, "; ")
}

// maxEditDiffLines bounds one message's diff in a transition record; the
// raw request shows the whole context as sent.
const maxEditDiffLines = 60

// diffContext says what turns the context as assembled (system, before)
// into the one a person edited (system2, after). Messages that differ are
// paired in order between the common start and the common end, so one
// message inserted or deleted is one change, not a shift of all the rest.
// mask hides secrets in what is recorded.
func diffContext(system, system2 string, before, after []history.Message, mask func(string) string) *ContextEdit {
	pre := 0
	for pre < len(before) && pre < len(after) && sameMessage(before[pre], after[pre]) {
		pre++
	}
	suf := 0
	for suf < len(before)-pre && suf < len(after)-pre && sameMessage(before[len(before)-1-suf], after[len(after)-1-suf]) {
		suf++
	}
	c := &ContextEdit{System: system != system2}
	a, b := before[pre:len(before)-suf], after[pre:len(after)-suf]
	diff := func(a, b string) string {
		return mask(tools.UnifiedDiff("as assembled", "as sent", a, b, maxEditDiffLines))
	}
	for i := 0; i < max(len(a), len(b)); i++ {
		m := MessageEdit{N: pre + i + 1}
		switch {
		case i < len(a) && i < len(b):
			m.Change, m.About, m.Diff = "changed", about(b[i]), diff(messageText(a[i]), messageText(b[i]))
		case i < len(b):
			m.Change, m.About, m.Diff = "added", about(b[i]), diff("", messageText(b[i]))
		default:
			m.Change, m.About, m.Diff = "removed", about(a[i]), diff(messageText(a[i]), "")
		}
		if i < len(b) {
			sent := maskMessage(withoutNative(b[i]), mask)
			m.Sent = &sent
		}
		c.Messages = append(c.Messages, m)
	}
	return c
}

// sameMessage reports whether a and b say the same: the same fields, the
// tool calls' arguments compared as JSON (an editor re-indents them), the
// native encoding left out.
func sameMessage(a, b history.Message) bool {
	canonical := func(m history.Message) history.Message {
		m = withoutNative(m)
		if len(m.ToolCalls) > 0 {
			calls := make([]history.ToolCall, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				c.Args = []byte(c.CanonicalArgs())
				calls[i] = c
			}
			m.ToolCalls = calls
		}
		return m
	}
	return reflect.DeepEqual(canonical(a), canonical(b))
}

// about names a message for a person.
func about(m history.Message) string {
	switch m.Role {
	case history.RoleUser:
		if m.Feedback {
			return "the loop's feedback"
		}
		return "the request"
	case history.RoleAssistant:
		return "the model's reply"
	case history.RoleTool:
		if m.Result != nil {
			return "the result of " + m.Result.Name
		}
		return "a tool result"
	}
	return "a " + string(m.Role) + " message"
}

// messageText is a message as a person reads it, for a diff: its text,
// its reasoning, its tool calls one a line, or a tool's result.
func messageText(m history.Message) string {
	var b strings.Builder
	line := func(s string) {
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	if m.Thought != "" {
		line("(reasoning) " + m.Thought)
	}
	if m.Text != "" {
		line(m.Text)
	}
	for _, c := range m.ToolCalls {
		line("→ " + c.Name + " " + c.CanonicalArgs())
	}
	if r := m.Result; r != nil {
		if r.IsError {
			line("(error)")
		}
		line(r.Content)
	}
	return b.String()
}

// maskMessage is m with secrets hidden in everything a person can read
// (its native encoding, the model's own, is kept as it is).
func maskMessage(m history.Message, mask func(string) string) history.Message {
	m.Text, m.Thought = mask(m.Text), mask(m.Thought)
	if len(m.ToolCalls) > 0 {
		calls := make([]history.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Args = []byte(mask(string(c.Args)))
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	if m.Result != nil {
		r := *m.Result
		r.Content = mask(r.Content)
		m.Result = &r
	}
	return m
}

// DiffContext says what turns the conversation before (with system) into
// after (with system2), in the form of a what-if edit. loop/outside uses it
// for a foreign agent's request that does not continue the conversation it
// sent before (it compacted or rewrote its history). mask hides secrets in
// what is recorded.
func DiffContext(system, system2 string, before, after []history.Message, mask func(string) string) *ContextEdit {
	return diffContext(system, system2, before, after, mask)
}
