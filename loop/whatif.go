package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
)

// EditableContext is the context about to be sent, as a person edits it in
// what-if: the system prompt and the messages (tool results included). The
// tool definitions are shown for reference; they cannot be changed.
type EditableContext struct {
	System   string             `json:"system"`
	Messages []history.Message  `json:"messages"`
	Tools    []history.ToolSpec `json:"tools"`
}

// ErrNotAssembled: what-if works only in AWAITING_LLM_RESPONSE, when the
// context is assembled and not yet sent.
var ErrNotAssembled = errors.New("what-if: the context can be edited only in AWAITING_LLM_RESPONSE, after it is assembled and before it is sent")

// ExportContext returns the context about to be sent as indented JSON, for
// a person to edit.
func (e *Engine) ExportContext() ([]byte, error) {
	if !e.stepping.TryLock() {
		return nil, ErrBusy
	}
	defer e.stepping.Unlock()
	if e.state != AwaitingLLMResponse {
		return nil, ErrNotAssembled
	}
	c := EditableContext{System: e.request.System, Messages: e.log.Messages(), Tools: e.request.Tools}
	if c.Messages == nil {
		c.Messages = []history.Message{}
	}
	return history.MarshalPlainIndent(c, "  ")
}

// ReplaceContext makes an edited context (ExportContext's form) the one that
// is sent, and the conversation from then on; the transition that sends it
// is marked "edited". An invalid edit is refused with an error that says
// what is wrong, and the original stays. A message whose fields changed
// loses its provider encoding, so what is sent is what the person wrote.
func (e *Engine) ReplaceContext(data []byte) error {
	if !e.stepping.TryLock() {
		return ErrBusy
	}
	defer e.stepping.Unlock()
	if e.state != AwaitingLLMResponse {
		return ErrNotAssembled
	}
	var c EditableContext
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("what-if: the edited context is not valid JSON of the exported shape (%v); nothing was changed", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("what-if: there is more after the edited JSON object; nothing was changed")
	}
	if !sameJSON(c.Tools, e.request.Tools) {
		return errors.New("what-if: the tool definitions cannot be edited (they are what the tools really accept); change the system prompt or the messages; nothing was changed")
	}
	if err := checkMessages(c.Messages); err != nil {
		return fmt.Errorf("what-if: %w; nothing was changed", err)
	}
	if c.System == "" {
		return errors.New("what-if: the system prompt is empty; nothing was changed")
	}
	orig := e.log.Messages()
	msgs := slices.Clone(c.Messages)
	for i := range msgs {
		if i >= len(orig) || !sameMessage(msgs[i], orig[i]) {
			msgs[i].Native = nil
		}
	}
	if !e.edited { // the first edit of this context: what it is compared with
		e.editBase, e.editSystem = orig, e.request.System
	}
	var l history.Log
	l.Append(msgs...)
	e.log = l
	e.countNotes()
	e.cfg.System = c.System
	e.request.System, e.request.Messages = c.System, e.sendable()
	e.edited = true
	e.edit = diffContext(e.editSystem, c.System, e.editBase, msgs, e.mask.Mask)
	if e.journal != nil {
		// A secret the person typed into the edit is sent, never saved.
		saved := make([]history.Message, len(msgs))
		for i, m := range msgs {
			saved[i] = maskMessage(m, e.mask.Mask)
		}
		e.journal.fail(e.journal.w.Write(session.Record{Kind: session.KindEdit, Run: e.journal.run, Seq: e.seq, System: e.mask.Mask(c.System), Messages: saved}))
	}
	return nil
}

// Edited reports whether the context about to be sent was replaced.
func (e *Engine) Edited() bool { return e.edited }

// clearEdit forgets the what-if edit: its context was sent, or the engine
// went back to another step.
func (e *Engine) clearEdit() {
	e.edited, e.edit, e.editBase, e.editSystem = false, nil, nil, ""
}

// sameJSON reports whether a and b encode the same (nil and empty lists
// alike, as the person's editor cannot tell them apart).
func sameJSON(a, b []history.ToolSpec) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func withoutNative(m history.Message) history.Message {
	m.Native = nil
	return m
}

// checkMessages says what makes a list of messages unsendable.
func checkMessages(msgs []history.Message) error {
	if len(msgs) == 0 {
		return errors.New("there are no messages; the model needs at least the request")
	}
	for i, m := range msgs {
		if err := checkMessage(i+1, m); err != nil {
			return err
		}
	}
	return nil
}

// checkMessage refuses message n if its role's part is missing: a user's
// text, an assistant's text, calls or thought (and each call's name and
// JSON-object arguments), a tool's result with the tool's name.
func checkMessage(n int, m history.Message) error {
	switch m.Role {
	case history.RoleUser:
		if m.Text == "" {
			return fmt.Errorf("message %d (user) has no text", n)
		}
	case history.RoleAssistant:
		if m.Text == "" && len(m.ToolCalls) == 0 && m.Thought == "" {
			return fmt.Errorf("message %d (assistant) has neither text nor tool calls", n)
		}
		for _, c := range m.ToolCalls {
			var obj map[string]any
			if c.Name == "" {
				return fmt.Errorf("message %d: a tool call without a name", n)
			}
			if err := json.Unmarshal(c.Args, &obj); err != nil || obj == nil {
				return fmt.Errorf("message %d: the arguments of %s are not a JSON object", n, c.Name)
			}
		}
	case history.RoleTool:
		if m.Result == nil || m.Result.Name == "" {
			return fmt.Errorf("message %d (tool) needs a result with the tool's name", n)
		}
	case history.RoleNote:
	default:
		return fmt.Errorf("message %d has the role %q; the roles are user, assistant, tool (and note, never sent)", n, m.Role)
	}
	return nil
}
