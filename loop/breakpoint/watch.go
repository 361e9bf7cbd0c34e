package breakpoint

import (
	"slices"

	"github.com/glassbox-dev/glassbox/loop"
)

// Watch is the breakpoints in force on one run, and what they matched on
// the step before. Feed it every step, in order, whether the run stops
// there or not (Step); it reports the breakpoint that begins to match.
//
// Why "begins": the steps of one tool call all name its tool — the reply
// that asks for it, the policy's check, the person's answer, the run, the
// result — so tool=write_file matches five steps in a row. A run stops on
// the first of them; `c` from there runs on past the rest, to the next
// step where the breakpoint matches after one where it did not. A
// breakpoint that can only match single steps (state=, edge=, verdict=DENY)
// stops on every match.
//
// A Watch is not safe for concurrent use.
type Watch struct {
	list  []Breakpoint
	was   []bool // was[i]: list[i] matched the step before
	marks *Marks // Marks, made once per change of the list
}

// NewWatch is a Watch with bps in force, in order.
func NewWatch(bps ...Breakpoint) *Watch {
	w := &Watch{}
	for _, b := range bps {
		w.Add(b)
	}
	return w
}

// List is the breakpoints in force, in the order they were added. The
// slice is a copy.
func (w *Watch) List() []Breakpoint { return slices.Clone(w.list) }

// Len is how many breakpoints are in force.
func (w *Watch) Len() int { return len(w.list) }

// Index is the place of a breakpoint spelled as b is (Breakpoint.String),
// -1 when none is.
func (w *Watch) Index(b Breakpoint) int {
	s := b.String()
	return slices.IndexFunc(w.list, func(x Breakpoint) bool { return x.String() == s })
}

// Add puts b in force, unless one spelled the same already is; it reports
// whether b was added.
func (w *Watch) Add(b Breakpoint) bool {
	if len(b.Conds) == 0 || w.Index(b) >= 0 {
		return false
	}
	w.list = append(w.list, b)
	w.was = append(w.was, false)
	w.marks = nil
	return true
}

// Remove takes the breakpoint at index i out of force; false when there is
// none there.
func (w *Watch) Remove(i int) bool {
	if i < 0 || i >= len(w.list) {
		return false
	}
	w.list = slices.Delete(w.list, i, i+1)
	w.was = slices.Delete(w.was, i, i+1)
	w.marks = nil
	return true
}

// Forget clears what the breakpoints matched before: after a fork, the
// next step does not follow the last one seen.
func (w *Watch) Forget() {
	clear(w.was)
}

// Step tests every breakpoint on s and reports the first that matches s
// without having matched the step before.
func (w *Watch) Step(s Step) (Hit, bool) {
	var hit Hit
	found := false
	for i, b := range w.list {
		h, ok := b.Match(s)
		if ok && !w.was[i] && !found {
			h.Index = i
			hit, found = h, true
		}
		w.was[i] = ok
	}
	return hit, found
}

// Marks says where the breakpoints in force can be drawn on the state
// machine: the states and edges they name. A breakpoint that names a state
// or edge and nothing else stops every time (Always); one with more
// conditions stops only when they hold as well (If). The maps are made once
// per change of the list (a frame asks at every draw): read them, do not
// change them.
func (w *Watch) Marks() Marks {
	if w.marks == nil {
		m := w.makeMarks()
		w.marks = &m
	}
	return *w.marks
}

func (w *Watch) makeMarks() Marks {
	m := Marks{States: map[loop.State]Mark{}, Edges: map[loop.Edge]Mark{}}
	for _, b := range w.list {
		mark := Always
		if len(b.Conds) > 1 {
			mark = If
		}
		for _, c := range b.Conds {
			switch c.Key {
			case KeyState:
				m.States[loop.State(c.Value)] = max(m.States[loop.State(c.Value)], mark)
			case KeyEdge:
				m.Edges[loop.Edge(c.Value)] = max(m.Edges[loop.Edge(c.Value)], mark)
			}
		}
	}
	return m
}

// Mark is how a state or an edge is marked on the diagram.
type Mark uint8

const (
	None   Mark = iota
	If          // a breakpoint names it, with more conditions
	Always      // a breakpoint names it and nothing else
)

// Marks are the states and edges named by breakpoints in force.
type Marks struct {
	States map[loop.State]Mark
	Edges  map[loop.Edge]Mark
}
