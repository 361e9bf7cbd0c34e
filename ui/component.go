package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// component is a pane, in the shape of soft-serve's common.Component: the
// parent hands it its size (sync, in Update), gives it the keys while it has
// the focus (key) and the wheel (scroll), and draws it framed, with its
// title and a line of status (view). Its own keys feed the help line. A run's
// view owns one of each pane (runView.panes); the parent model only routes
// messages to them, lays them out (computeLayout) and composes their views.
//
// Adding a pane: write one file with a type that implements component, and
// add one line to paneKinds below (its place in the focus ring) and one box
// to each screen description it shows in (gridBox, columnBox: ui/layout.go).
type component interface {
	// title is the pane's name on its frame; shortTitle on a narrow tab bar.
	title(l lang.Lang) string
	shortTitle(l lang.Lang) string
	// sync settles the pane for a content area of in (inside its frame):
	// caches, scroll clamps, following the step shown. Update calls it;
	// view only reads.
	sync(lk look, in rect)
	// key handles a key while the pane has the keyboard; page is a page of
	// lines. It reports whether the key was the pane's.
	key(msg tea.KeyMsg, k keyMap, page int) bool
	// scroll moves the content by delta lines (the mouse wheel).
	scroll(delta int)
	// view draws the content into in and says, for the frame's right side,
	// what the pane shows (its status).
	view(lk look, in rect, focused bool) (lines []string, info string)
	// keys are the pane's own keys, for the help line.
	keys(k keyMap) []key.Binding
}

// paneID names a pane kind: its place in the focus ring (tab order) and
// the layout's key for where it goes.
type paneID int

const (
	paneHistory paneID = iota
	paneDiagram
	paneTools
	panePayload
	numPanes
)

// paneKinds makes a run's panes, in the focus ring's order: the one list of
// the panes a run has.
var paneKinds = [numPanes]func(r *runView) component{
	paneHistory: func(r *runView) component { return historyComponent{r} },
	paneDiagram: func(r *runView) component { return diagramComponent{r} },
	paneTools:   func(r *runView) component { return toolsComponent{r} },
	panePayload: func(r *runView) component { return payloadComponent{r} },
}

// newPanes makes the run's panes.
func newPanes(r *runView) [numPanes]component {
	var out [numPanes]component
	for p, mk := range paneKinds {
		out[p] = mk(r)
	}
	return out
}

// pane is run r's pane p.
func (r *runView) pane(p paneID) component { return r.panes[p] }

// tabTitles are the names on the tab bar at width w: full names when they
// fit, short ones otherwise.
func tabTitles(w int, l lang.Lang) [numPanes]string {
	var full, short [numPanes]string
	n := 0
	for p := range paneKinds {
		full[p], short[p] = paneTitle(paneID(p), l), paneKinds[p](nil).shortTitle(l)
		n += ansi.StringWidth(full[p]) + 3
	}
	if n <= w {
		return full
	}
	return short
}

// paneTitle is pane p's name on its frame.
func paneTitle(p paneID, l lang.Lang) string { return paneKinds[p](nil).title(l) }
