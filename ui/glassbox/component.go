package glassbox

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// component is a pane, in the shape of soft-serve's common.Component: a
// pointer to the pane's own state (its scroll, selection and data) and the
// run it belongs to. The parent gives it the keys while it has the focus
// (key), draws it framed, with its title and a line of status (view), and,
// if it has a size to settle or content to scroll, hands it its size (sync,
// in Update) and the wheel (scroll). Its own keys feed the help line. A run's view owns one of each pane (runView.panes); the
// parent model only routes messages to them, lays them out (computeLayout)
// and composes their views. Features that act on a pane (a fork, time
// travel) ask it through its methods; none reaches into its state.
//
// Adding a pane: write one file with a type that implements component, and
// add one line to paneKinds below (its place in the focus ring) and one box
// to each screen description it shows in (gridBox, columnBox: ui/glassbox/layout.go).
type component interface {
	// title is the pane's name on its frame; shortTitle on a narrow tab
	// bar. Neither reads the pane: paneTitle asks a pane made for no run.
	title(l lang.Lang) string
	shortTitle(l lang.Lang) string
	// key handles a key while the pane has the keyboard; page is a page of
	// lines. The pane settles itself for the size it was last given; the
	// reply says whether the key was the pane's (if not, the stepper's
	// keys get it) and what work it started.
	key(msg tea.KeyMsg, k keyMap, page int) keyReply
	// view draws the content into in and says, for the frame's right side,
	// what the pane shows (its status).
	view(lk look, in rect, focused bool) (lines []string, info string)
	// keys are the pane's own keys, for the help line.
	keys(k keyMap) []key.Binding
}

// sizer is a pane that settles itself for a content area of in (inside its
// frame): caches, scroll clamps, following the step shown. Update calls
// sync; view only reads.
type sizer interface{ sync(lk look, in rect) }

// wheel is a pane whose content scrolls: scroll moves it by delta lines (the
// mouse wheel), settled like a key.
type wheel interface{ scroll(delta int) }

// keyReply is what a pane did with a key: passed (not the pane's key), or
// taken, with the work it started (nil: none).
type keyReply struct {
	taken bool
	cmd   tea.Cmd
}

// passed: the key is not the pane's.
var passed = keyReply{}

// taken: the pane used the key; cmd is the work it started.
func taken(cmd tea.Cmd) keyReply { return keyReply{taken: true, cmd: cmd} }

// paneID names a pane kind: its place in the focus ring (tab order) and
// the layout's key for where it goes.
type paneID int

const (
	paneHistory paneID = iota
	paneDiagram
	paneTools
	panePayload
	paneAnatomy
	numPanes
)

// paneKinds makes a run's panes, in the focus ring's order: the one list of
// the panes a run has.
var paneKinds = [numPanes]func(r *runView) component{
	paneHistory: func(r *runView) component { return newHistoryPane(r) },
	paneDiagram: func(r *runView) component { return newDiagramPane(r) },
	paneTools:   func(r *runView) component { return &toolsPane{r: r} },
	panePayload: func(r *runView) component { return newPayloadPane(r) },
	paneAnatomy: func(r *runView) component { return newAnatomyPane(r) },
}

// makePanes makes the run's panes (paneKinds) and keeps the four its
// features talk to by their type.
func (r *runView) makePanes() {
	for p, mk := range paneKinds {
		r.panes[p] = mk(r)
	}
	r.history = r.panes[paneHistory].(*historyPane)
	r.diagram = r.panes[paneDiagram].(*diagramPane)
	r.tools = r.panes[paneTools].(*toolsPane)
	r.payload = r.panes[panePayload].(*payloadPane)
}

// tabTitles are the names of panes on the tab bar at width w: full names
// when they fit, short ones otherwise.
func tabTitles(w int, l lang.Lang, panes [numPanes]component) [numPanes]string {
	var full, short [numPanes]string
	n := 0
	for p, c := range panes {
		full[p], short[p] = c.title(l), c.shortTitle(l)
		n += ansi.StringWidth(full[p]) + 3
	}
	if n <= w {
		return full
	}
	return short
}
