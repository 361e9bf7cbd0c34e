package anatomy

import (
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Amount is some parts of a prompt: how many, their bytes and estimated
// tokens.
type Amount struct {
	Parts  int `json:"parts"`
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

func (a *Amount) add(u unit) {
	a.Parts++
	a.Bytes += u.Bytes
	a.Tokens += u.Tokens
}

// Piece names one part of a prompt: its kind and label, and the message
// or tool it is (-1 for none).
type Piece struct {
	Kind    wire.SegmentKind `json:"kind"`
	Label   string           `json:"label,omitempty"`
	Message int              `json:"message"`
	Tool    int              `json:"tool"`
}

// Change is what one call's prompt does with the one before it, read in
// the order the model reads a prompt (system, tools, messages): the
// unchanged start a provider's prompt cache can reuse, what changed above
// the end of the earlier prompt — which breaks the cache from there on —
// and what was appended after it.
type Change struct {
	// Kept is the unchanged start.
	Kept Amount `json:"kept"`
	// Changed are the parts, from where the cache breaks, that stand
	// where the earlier prompt had others (changed, or shifted by an
	// insertion); Removed counts the earlier parts that have no place.
	Changed Amount `json:"changed"`
	Removed int    `json:"removed,omitempty"`
	// Appended are the parts after the end of the earlier prompt.
	Appended Amount `json:"appended"`
	// BreaksAt is the first part that differs from the earlier prompt
	// (in the later one; the earlier one's when it was removed); nil when
	// the later prompt only appends.
	BreaksAt *Piece `json:"breaks_at,omitempty"`
	// Cached is what the provider reported it served from its cache for
	// the later call, when it reports it.
	Cached *Tokens `json:"cached,omitempty"`
}

// Between compares two consecutive calls of a run.
func Between(before, after Call) Change {
	a, b := before.units, after.units
	k := 0
	for k < len(a) && k < len(b) && a[k].sum == b[k].sum {
		k++
	}
	var c Change
	for _, u := range b[:k] {
		c.Kept.add(u)
	}
	for i := k; i < len(b); i++ {
		if i < len(a) {
			c.Changed.add(b[i])
		} else {
			c.Appended.add(b[i])
		}
	}
	c.Removed = max(len(a)-len(b), 0)
	switch {
	case k < len(b) && k < len(a):
		c.BreaksAt = piece(b[k])
	case k < len(a): // the later prompt ends where the earlier went on
		c.BreaksAt = piece(a[k])
	}
	c.Cached = after.Cached
	return c
}

func piece(u unit) *Piece {
	return &Piece{Kind: u.Kind, Label: u.Label, Message: u.Message, Tool: u.Tool}
}

// Point is one call of a run's growth.
type Point struct {
	Call      int     `json:"call"` // 1, 2, … in the run's order
	Bytes     int     `json:"bytes"`
	Estimated int     `json:"estimated"`
	Reported  *Tokens `json:"reported,omitempty"`
}

// Growth is how a run's requests grow, call by call: a stateless API is
// sent the whole conversation every time, so the sum of what a run sends
// grows with the square of its length.
func Growth(calls []Call) []Point {
	out := make([]Point, len(calls))
	for i, c := range calls {
		out[i] = Point{Call: i + 1, Bytes: c.Bytes, Estimated: c.Estimated.N, Reported: c.Reported}
	}
	return out
}

// Record is a call's anatomy as a trace record carries it: the call
// without its parts, and what it did with the call before.
type Record struct {
	Call
	Since *Change `json:"since_previous,omitempty"`
}

// Tracker follows one run's calls and makes each one's Record.
type Tracker struct {
	codecs wire.Codecs
	last   *Call
}

// NewTracker follows a run whose calls codecs read.
func NewTracker(codecs wire.Codecs) *Tracker { return &Tracker{codecs: codecs} }

// Record reads the exchange that answered a call (the last of a step's
// exchanges); nil when it is no model call glassbox reads.
func (t *Tracker) Record(x providers.Exchange) *Record {
	c, ok, err := FromExchange(t.codecs, x)
	if !ok || err != nil {
		return nil
	}
	r := &Record{Call: c.Summary()}
	if t.last != nil {
		ch := Between(*t.last, c)
		r.Since = &ch
	}
	t.last = &c
	return r
}
