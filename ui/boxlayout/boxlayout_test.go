package boxlayout

import (
	"reflect"
	"testing"
)

type box = Box[string]

func arrange(b *box, r Rect) map[string]Rect {
	out := map[string]Rect{}
	for _, p := range Arrange(b, r) {
		out[p.Key] = p.Rect
	}
	return out
}

func TestArrange(t *testing.T) {
	cases := []struct {
		name string
		root *box
		in   Rect
		want map[string]Rect
	}{
		{
			name: "fixed rows around a weighted one",
			root: &box{Dir: Rows, Children: []*box{
				{Key: "top", Size: 2}, {Key: "body", Weight: 1}, {Key: "bottom", Size: 1},
			}},
			in:   Rect{0, 0, 80, 24},
			want: map[string]Rect{"top": {0, 0, 80, 2}, "body": {0, 2, 80, 21}, "bottom": {0, 23, 80, 1}},
		},
		{
			name: "weights round down, the last takes the rest",
			root: &box{Dir: Columns, Children: []*box{{Key: "a", Weight: 2}, {Key: "b", Weight: 3}}},
			in:   Rect{10, 5, 78, 4},
			want: map[string]Rect{"a": {10, 5, 31, 4}, "b": {41, 5, 47, 4}},
		},
		{
			name: "a share is bounded by Max",
			root: &box{Dir: Columns, Children: []*box{{Key: "a", Weight: 7, Min: 40, Max: 72}, {Key: "b", Weight: 13}}},
			in:   Rect{0, 0, 300, 10},
			want: map[string]Rect{"a": {0, 0, 72, 10}, "b": {72, 0, 228, 10}},
		},
		{
			name: "a share is raised to Min",
			root: &box{Dir: Columns, Children: []*box{{Key: "a", Weight: 7, Min: 40, Max: 72}, {Key: "b", Weight: 13}}},
			in:   Rect{0, 0, 100, 10},
			want: map[string]Rect{"a": {0, 0, 40, 10}, "b": {40, 0, 60, 10}},
		},
		{
			name: "a box with a key and children names both",
			root: &box{Dir: Rows, Children: []*box{
				{Key: "bar", Size: 1},
				{Key: "body", Weight: 1, Dir: Columns, Children: []*box{{Key: "left", Weight: 1}, {Key: "right", Weight: 1}}},
			}},
			in:   Rect{0, 0, 9, 5},
			want: map[string]Rect{"bar": {0, 0, 9, 1}, "body": {0, 1, 9, 4}, "left": {0, 1, 4, 4}, "right": {4, 1, 5, 4}},
		},
		{
			name: "a fixed size of 0 takes no room",
			root: &box{Dir: Rows, Children: []*box{{Key: "gone", Size: 0}, {Key: "body", Weight: 1}}},
			in:   Rect{0, 0, 5, 5},
			want: map[string]Rect{"gone": {0, 0, 5, 0}, "body": {0, 0, 5, 5}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := arrange(c.root, c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

// First arranges the first alternative that fits: here a tall drawing while
// the part below keeps 17 rows, else a short one.
func TestFirstThatFits(t *testing.T) {
	below := []*box{{Key: "below", Weight: 1}}
	root := &box{First: []*box{
		{Dir: Rows, Children: []*box{{Key: "tall", Size: 27}, {Weight: 1, Min: 17, Dir: Rows, Children: below}}},
		{Dir: Rows, Children: []*box{{Key: "short", Size: 8}, {Weight: 1, Dir: Rows, Children: below}}},
	}}
	got := arrange(root, Rect{0, 0, 10, 44})
	if want := (map[string]Rect{"tall": {0, 0, 10, 27}, "below": {0, 27, 10, 17}}); !reflect.DeepEqual(got, want) {
		t.Errorf("44 rows: got %v, want %v", got, want)
	}
	got = arrange(root, Rect{0, 0, 10, 43})
	if want := (map[string]Rect{"short": {0, 0, 10, 8}, "below": {0, 8, 10, 35}}); !reflect.DeepEqual(got, want) {
		t.Errorf("43 rows: got %v, want %v", got, want)
	}
	// Fixed sizes past the room there is do not fit either.
	fixed := &box{First: []*box{
		{Dir: Rows, Children: []*box{{Key: "big", Size: 30}}},
		{Dir: Rows, Children: []*box{{Key: "small", Size: 3}}},
	}}
	if got := arrange(fixed, Rect{0, 0, 1, 20}); !reflect.DeepEqual(got, map[string]Rect{"small": {0, 0, 1, 3}}) {
		t.Errorf("fixed sizes past the room: got %v", got)
	}
}

// Arrange returns the named boxes in the order of the tree, a box before
// its children: the order the screen is drawn and hit-tested in.
func TestArrangeKeepsTreeOrder(t *testing.T) {
	root := &box{Key: "root", Dir: Columns, Children: []*box{
		{Key: "a", Weight: 1, Dir: Rows, Children: []*box{{Key: "a1", Size: 1}, {Key: "a2", Weight: 1}}},
		{Key: "b", Weight: 1},
	}}
	var keys []string
	for _, p := range Arrange(root, Rect{0, 0, 10, 10}) {
		keys = append(keys, p.Key)
	}
	if want := []string{"root", "a", "a1", "a2", "b"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("order %v, want %v", keys, want)
	}
}
