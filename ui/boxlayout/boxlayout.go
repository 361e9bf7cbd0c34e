// Package boxlayout arranges a screen from a description: a tree of boxes, each
// setting out its children as rows (stacked) or columns (side by side), each
// child a fixed number of cells or a weighted share of what its fixed
// siblings leave, as lazygit's boxlayout does. The glass box describes each
// of its screen modes as one such tree (ui/glassbox/layout.go), and View, the mouse
// and the panes' sizes all read the rectangles Arrange gives for it. The
// package knows nothing of panes: a box is named by a key of the caller's
// type.
package boxlayout

// Rect is a rectangle of terminal cells.
type Rect struct{ X, Y, W, H int }

// Direction is how a box sets out its children.
type Direction int

const (
	// Rows stacks the children top to bottom: their sizes are heights.
	Rows Direction = iota
	// Columns sets the children side by side, left to right: their sizes
	// are widths.
	Columns
)

// Box is one node of a description. A box takes its size along its
// parent's direction from Size (Weight 0) or from Weight, and sets out its
// own Children (or the first of First that fits) in its rectangle.
type Box[K comparable] struct {
	// Key names the box's rectangle in what Arrange returns; the zero K
	// names nothing. A box may have a key and children both.
	Key K
	// Dir is how the children are set out.
	Dir Direction
	// Size is how many cells the box takes when Weight is 0 (0: none).
	Size int
	// Weight is the box's share of what its fixed siblings leave: a box
	// of weight a beside one of weight b gets a/(a+b) of it, rounded
	// down; the last weighted sibling gets what is left.
	Weight int
	// Min and Max bound a weighted share (0: no bound). A share below
	// Min is raised to it, and the arrangement no longer fits (see First).
	Min, Max int
	// Children are the boxes set out inside this one, in order.
	Children []*Box[K]
	// First, used instead of Children: the first of these boxes whose
	// arrangement in this box's rectangle fits (no share raised to its
	// Min, no fixed sizes past the room there is) is arranged there; the
	// last one if none does.
	First []*Box[K]
}

// Placed is a named box's rectangle.
type Placed[K comparable] struct {
	Key  K
	Rect Rect
}

// Arrange sets root out in r and returns the rectangle of every box that
// has a key, in the order of the tree (a box before its children).
func Arrange[K comparable](root *Box[K], r Rect) []Placed[K] {
	var a arrangement[K]
	a.box(root, r)
	return a.out
}

// arrangement collects the named rectangles; short records that some box
// got less room than it needs.
type arrangement[K comparable] struct {
	out   []Placed[K]
	short bool
}

func (a *arrangement[K]) box(b *Box[K], r Rect) {
	var none K
	if b.Key != none {
		a.out = append(a.out, Placed[K]{b.Key, r})
	}
	if len(b.First) > 0 {
		a.box(a.pick(b.First, r), r)
		return
	}
	at := 0
	for i, size := range a.split(b.Children, length(r, b.Dir)) {
		a.box(b.Children[i], part(r, b.Dir, at, size))
		at += size
	}
}

// pick is the first of opts that fits r, else the last.
func (a *arrangement[K]) pick(opts []*Box[K], r Rect) *Box[K] {
	for _, o := range opts[:len(opts)-1] {
		var try arrangement[K]
		try.box(o, r)
		if !try.short {
			return o
		}
	}
	return opts[len(opts)-1]
}

// split is the sizes of children along a length of total cells: the fixed
// ones first, then the weighted shares of what is left, in order.
func (a *arrangement[K]) split(children []*Box[K], total int) []int {
	sizes := make([]int, len(children))
	left, weights := total, 0
	for i, c := range children {
		if c.Weight > 0 {
			weights += c.Weight
			continue
		}
		sizes[i] = c.Size
		left -= c.Size
	}
	if left < 0 {
		a.short = true
	}
	for i, c := range children {
		if c.Weight <= 0 {
			continue
		}
		share := left * c.Weight / weights
		if c.Max > 0 {
			share = min(share, c.Max)
		}
		if share < c.Min {
			share, a.short = c.Min, true
		}
		sizes[i] = share
		left, weights = left-share, weights-c.Weight
	}
	return sizes
}

// length is r's length along d.
func length(r Rect, d Direction) int {
	if d == Columns {
		return r.W
	}
	return r.H
}

// part is the slice of r from at, size cells long, along d.
func part(r Rect, d Direction, at, size int) Rect {
	if d == Columns {
		return Rect{r.X + at, r.Y, size, r.H}
	}
	return Rect{r.X, r.Y + at, r.W, size}
}
