package tap

import (
	"bytes"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// Edit replaces the body of held request id with body (what-if): the
// request goes with it when released. The edit is refused, and the
// request left as it was, when the call is not a held request, when it
// cannot be offered (a body kept cut, or one holding a secret, which an
// editor's file would keep), or when body is not a request its API reads.
// The step that sends it carries the edit (Transition.Edited, Edit), as
// glassbox's own what-if does.
func (t *Tap) Edit(id int, body []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var h *held
	for _, o := range t.holds {
		if o.ID == id {
			h = o
		}
	}
	switch {
	case h == nil:
		return sentence.Errorf("what-if: call %d is not held any more; nothing was changed", id)
	case h.Kind != HeldRequest:
		return sentence.Errorf("what-if: a reply is held, not a request; what-if edits a request before it goes")
	case !h.Editable:
		return sentence.Errorf("what-if: this request's body holds a secret or was kept cut, so it is not written to a file for editing; nothing was changed")
	}
	c := h.call
	before, err := c.codec.DecodeRequest(c.shown.URL, c.shown.RequestBody)
	if err != nil {
		return sentence.Errorf("what-if: glassbox cannot read the request it holds (%v); nothing was changed", err)
	}
	after, err := c.codec.DecodeRequest(c.shown.URL, body)
	if err != nil {
		return sentence.Errorf("what-if: the edited body is not a request the %s API reads (%v); nothing was changed", c.codec.Family, err)
	}
	if bytes.Equal(body, c.body) {
		c.send, c.edit, h.Edit = c.body, nil, nil
		h.Exchange.RequestBody = c.shown.RequestBody
		t.wake()
		return nil
	}
	mask := t.keys.mask()
	c.send = bytes.Clone(body)
	c.edit = loop.DiffContext(before.System, after.System, before.Messages, after.Messages, mask.Mask)
	h.Edit = c.edit
	h.Exchange.RequestBody = mask.MaskBytes(c.send)
	t.note(sentence.Errorf("what-if: the held request was edited (%s); it goes as edited when released", summary(c.edit)))
	return nil
}

// Body is the body of held request id as it would go now, for a
// person to edit: false when it is not a held request that can be edited.
func (t *Tap) Body(id int) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range t.holds {
		if h.ID == id && h.Kind == HeldRequest && h.Editable {
			return bytes.Clone(h.call.send), true
		}
	}
	return nil, false
}

func summary(e *loop.ContextEdit) string {
	if s := e.Summary(); s != "" {
		return s
	}
	return "the settings or the tools, not the messages"
}

// markEdited says on the step that sent c — the one that carries the
// model call's record — that a person edited it, and shows the request as
// it went.
func markEdited(steps []loop.Transition, c *call, went providers.Exchange) {
	for i := range steps {
		if steps[i].LLM == nil {
			continue
		}
		steps[i].Edited = true
		if c.edit.System || len(c.edit.Messages) > 0 {
			steps[i].Edit = c.edit
		}
		for k := range steps[i].Exchanges {
			steps[i].Exchanges[k].RequestBody = went.RequestBody
		}
		return
	}
}
