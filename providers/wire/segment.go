package wire

import (
	"fmt"
	"slices"

	"github.com/glassbox-dev/glassbox/history"
)

// Cutter cuts a body into segments as a codec walks it: each Part it names,
// and framing for every byte between them, so that the segments cover the
// body exactly. Parts must come in the body's order; one that overlaps the
// part before is a codec's mistake, reported by Segments.
type Cutter struct {
	segs []Segment
	pos  int
	err  error
}

// Grow makes room for n more segments.
func (c *Cutter) Grow(n int) { c.segs = slices.Grow(c.segs, n) }

// Part adds a segment of kind over s. message and tool are indexes into
// the request's Messages and Tools (-1 for none).
func (c *Cutter) Part(s Span, kind SegmentKind, label string, message, tool int) {
	if c.err != nil {
		return
	}
	if s.Start < c.pos || s.End < s.Start {
		c.err = fmt.Errorf("segment %s %q at bytes %d–%d overlaps the one before, which ends at %d", kind, label, s.Start, s.End, c.pos)
		return
	}
	c.framing(s.Start)
	if s.Len() > 0 {
		c.segs = append(c.segs, Segment{Span: s, Kind: kind, Label: label, Message: message, Tool: tool})
	}
	c.pos = s.End
}

// framing covers the bytes up to end that no part owns, joined to a
// framing segment just before them.
func (c *Cutter) framing(end int) {
	if end <= c.pos {
		return
	}
	if n := len(c.segs); n > 0 && c.segs[n-1].Kind == KindFraming && c.segs[n-1].End == c.pos {
		c.segs[n-1].End = end
	} else {
		c.segs = append(c.segs, Segment{Span: Span{c.pos, end}, Kind: KindFraming, Message: -1, Tool: -1})
	}
	c.pos = end
}

// Segments ends the cut at size bytes and returns the segments.
func (c *Cutter) Segments(size int) ([]Segment, error) {
	if c.err != nil {
		return nil, c.err
	}
	if c.pos > size {
		return nil, fmt.Errorf("segments run to byte %d of a %d-byte body", c.pos, size)
	}
	c.framing(size)
	return c.segs, nil
}

// CheckSegments reports whether segs cover a body of size bytes exactly,
// in order: the promise every codec keeps.
func CheckSegments(segs []Segment, size int) error {
	at := 0
	for i, s := range segs {
		if s.Start != at {
			return fmt.Errorf("segment %d (%s %q) starts at byte %d, not %d", i, s.Kind, s.Label, s.Start, at)
		}
		if s.End <= s.Start {
			return fmt.Errorf("segment %d (%s %q) is empty", i, s.Kind, s.Label)
		}
		at = s.End
	}
	if at != size {
		return fmt.Errorf("the segments end at byte %d of a %d-byte body", at, size)
	}
	return nil
}

// Finish completes a request a codec has read: it finds the new input (the
// messages after the model's last turn — all of them when the model has
// not spoken yet), marks its segments KindInput, and sets the size.
func Finish(r *Request, segs []Segment, size int) {
	r.Input = 0
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == history.RoleAssistant {
			r.Input = i + 1
			break
		}
	}
	for i := range segs {
		if segs[i].Message >= r.Input {
			segs[i].Kind = KindInput
		}
	}
	r.Segments, r.Size = segs, size
}

// MessageKind is the kind of a segment carrying m (before Finish marks
// the new input).
func MessageKind(m history.Message) SegmentKind {
	switch m.Role {
	case history.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			return KindModelCall
		}
		return KindModelText
	case history.RoleTool:
		return KindToolResult
	}
	return KindUser
}
