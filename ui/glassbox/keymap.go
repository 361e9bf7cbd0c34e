package glassbox

import (
	"slices"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// keyMap is every key the glass box answers to. It is data: the handlers
// match against it and the help overlay is drawn from it.
type keyMap struct {
	// Stepper (a pane has focus).
	Step      key.Binding
	Iteration key.Binding
	Continue  key.Binding
	Pause     key.Binding
	Prev      key.Binding
	Next      key.Binding
	Fork      key.Binding
	ForkOnto  key.Binding
	Abandon   key.Binding
	Branch    key.Binding
	WhatIf    key.Binding
	Handout   key.Binding
	Rosetta   key.Binding

	// Panes.
	Focus     key.Binding
	FocusBack key.Binding
	Look      key.Binding // compare mode: show the other run
	Zoom      key.Binding
	Up        key.Binding
	Down      key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Expand    key.Binding
	ExpandAll key.Binding
	Left      key.Binding
	Right     key.Binding
	Break     key.Binding
	Breaks    key.Binding // the breakpoint dialog
	ReqResp   key.Binding
	Headers   key.Binding
	Exchange  key.Binding

	// Input line.
	Input   key.Binding
	Send    key.Binding
	Newline key.Binding
	Leave   key.Binding

	// Modals: each dialog has its own map (confirmKeys, askKeys,
	// lessonKeys, helpKeys); these are the ones the full help lists.
	AllowOnce    key.Binding
	AllowSession key.Binding
	Deny         key.Binding
	Hide         key.Binding
	Pick         key.Binding

	Lessons key.Binding
	Predict key.Binding
	Roster  key.Binding
	Help    key.Binding
	Quit    key.Binding
	Cancel  key.Binding

	l   lang.Lang // the language of the keys' help
	who role.Role // whose keys they are: the help lists only those the role may use (need)
}

// newKeyMap is the keys of a person in role who, their help in language l.
// A follower's space catches up with the run they follow.
func newKeyMap(l lang.Lang, who role.Role) keyMap {
	k := keyMap{
		l:         l,
		who:       who,
		Step:      key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", l.T("step"))),
		Iteration: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", l.T("iteration"))),
		Continue:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", l.T("continue"))),
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", l.T("pause"))),
		Prev:      key.NewBinding(key.WithKeys("["), key.WithHelp("[", l.T("back in time"))),
		Next:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", l.T("forward"))),
		Fork:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", l.T("fork here"))),
		ForkOnto:  key.NewBinding(key.WithKeys("F"), key.WithHelp("F", l.T("fork onto a dialect"))),
		Abandon:   key.NewBinding(key.WithKeys("A"), key.WithHelp("A", l.T("abandon the event"))),
		Branch:    key.NewBinding(key.WithKeys("B"), key.WithHelp("B", l.T("abandoned branches"))),
		WhatIf:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", l.T("what-if edit"))),
		Handout:   key.NewBinding(key.WithKeys("X"), key.WithHelp("X", l.T("handout of the step shown"))),
		Rosetta:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", l.T("this turn in every dialect"))),

		Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", l.T("next pane"))),
		FocusBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", l.T("prev pane"))),
		Look:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", l.T("show the other run"))),
		Zoom:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", l.T("zoom"))),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", l.T("up"))),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", l.T("down"))),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", l.T("page up"))),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", l.T("page down"))),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", l.T("top"))),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", l.T("bottom"))),
		Expand:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", l.T("expand/fold"))),
		ExpandAll: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", l.T("expand/fold all"))),
		Left:      key.NewBinding(key.WithKeys("left"), key.WithHelp("←", l.T("prev state"))),
		Right:     key.NewBinding(key.WithKeys("right"), key.WithHelp("→", l.T("next state"))),
		Break:     key.NewBinding(key.WithKeys("b"), key.WithHelp("b", l.T("breakpoint"))),
		Breaks:    key.NewBinding(key.WithKeys("K"), key.WithHelp("K", l.T("edit breakpoints"))),
		ReqResp:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", l.T("request/response"))),
		Headers:   key.NewBinding(key.WithKeys("h"), key.WithHelp("h", l.T("headers"))),
		Exchange:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", l.T("next exchange"))),

		Input:   key.NewBinding(key.WithKeys("enter", "/"), key.WithHelp("enter,/", l.T("input"))),
		Send:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", l.T("send"))),
		Newline: key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter", l.T("new line"))),
		Leave:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("leave/close"))),

		AllowOnce:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", l.T("allow once"))),
		AllowSession: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", l.T("allow for session"))),
		Deny:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", l.T("deny"))),
		Hide:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("hide the dialog (space brings it back)"))),
		Pick:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", l.T("pick"))),

		Lessons: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", l.T("lessons"))),
		Predict: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", l.T("predict mode"))),
		Roster:  key.NewBinding(key.WithKeys("R"), key.WithHelp("R", l.T("room roster"))),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", l.T("help"))),
		Quit:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", l.T("quit"))),
		Cancel:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", l.T("cancel step (twice: quit)"))),
	}
	if !who.May(role.Step) && who.May(role.CatchUp) {
		k.Step = key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", l.T("catch up")))
	}
	return k
}

// need pairs a key with the ability it needs (ui/role).
type need struct {
	b key.Binding
	a role.Ability
}

// needs is what each stepper key needs, in the order keys are matched:
// the help lists a key only to a person whose role may use it, and the key
// router refuses it to anyone else (role.Refusal). Every binding of the
// map is here; TestEveryKeyNeedsAnAbility keeps it so.
func (k keyMap) needs() []need {
	step, more := role.Step, role.Step
	switch {
	case k.who.May(role.Replay):
		step, more = role.Replay, role.Replay // space, i and c show more of a recording
	case !k.who.May(role.Step) && k.who.May(role.CatchUp):
		step = role.CatchUp // space catches up with the run followed
	}
	return []need{
		{k.Step, step}, {k.Iteration, more}, {k.Continue, more}, {k.Pause, role.Step},
		{k.Break, role.Step}, {k.Cancel, role.Step},
		{k.Prev, role.Look}, {k.Next, role.Look},
		{k.Fork, role.Change}, {k.ForkOnto, role.Change}, {k.Abandon, role.Change}, {k.Branch, role.Change}, {k.WhatIf, role.Change},
		{k.Handout, role.Handout},
		{k.Focus, role.Look}, {k.FocusBack, role.Look}, {k.Look, role.Look}, {k.Zoom, role.Look},
		{k.Up, role.Look}, {k.Down, role.Look}, {k.PageUp, role.Look}, {k.PageDown, role.Look},
		{k.Top, role.Look}, {k.Bottom, role.Look}, {k.Expand, role.Look}, {k.ExpandAll, role.Look},
		{k.Left, role.Look}, {k.Right, role.Look}, {k.ReqResp, role.Look}, {k.Headers, role.Look}, {k.Exchange, role.Look},
		{k.Input, role.Send}, {k.Send, role.Send}, {k.Newline, role.Send}, {k.Leave, role.Look},
		{k.AllowOnce, role.Answer}, {k.AllowSession, role.Answer}, {k.Deny, role.Answer}, {k.Hide, role.Answer}, {k.Pick, role.Answer},
		{k.Lessons, role.Lessons}, {k.Predict, role.Predict}, {k.Roster, role.Roster},
		{k.Help, role.Look}, {k.Quit, role.Look},
	}
}

// need is the ability the stepper key msg needs; ok false when msg is no
// stepper key.
func (k keyMap) need(msg tea.KeyMsg) (a role.Ability, ok bool) {
	for _, n := range k.needs() {
		if key.Matches(msg, n.b) {
			return n.a, true
		}
	}
	return role.Look, false
}

// allowed is bs without the keys the person's role may not use.
func (k keyMap) allowed(bs []key.Binding) []key.Binding {
	ns := k.needs()
	return slices.DeleteFunc(slices.Clone(bs), func(b key.Binding) bool {
		i := slices.IndexFunc(ns, func(n need) bool { return sameKey(n.b, b) })
		return i >= 0 && !k.who.May(ns[i].a)
	})
}

// sameKey reports whether a and b are the same binding: the same keys and
// help.
func sameKey(a, b key.Binding) bool {
	return slices.Equal(a.Keys(), b.Keys()) && a.Help() == b.Help()
}

// scrolling are the keys that scroll a pane.
func (k keyMap) scrolling() scrollKeys {
	return scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom}
}

// inputHelp is the short help while the input line has focus.
type inputHelp struct{ k keyMap }

func (h inputHelp) ShortHelp() []key.Binding {
	// Every letter types here: the stepper's keys (? l q …) are one esc away.
	l := h.k.l
	leave := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("to the stepper keys (there ? lists them all)")))
	return []key.Binding{h.k.Send, h.k.Newline, leave, h.k.Cancel}
}
func (h inputHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

// stepperHelp is the short help while a pane has focus; pane names the
// pane-specific keys to add.
type stepperHelp struct {
	k       keyMap
	pane    component // the focused pane: its own keys join the line
	compare bool      // tab picks a run, not a pane
}

func (h stepperHelp) ShortHelp() []key.Binding {
	b := h.k.allowed([]key.Binding{h.k.Step, h.k.Iteration, h.k.Continue, h.k.Help, h.k.Pause})
	if h.pane != nil {
		own := h.k.allowed(h.pane.keys(h.k))
		b = append(b, own[:min(len(own), 2)]...)
	}
	focus := h.k.Focus
	if l := h.k.l; h.compare {
		focus = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", l.T("pick run")))
	}
	return append(b, h.k.allowed([]key.Binding{h.k.Prev, h.k.Next, h.k.Input, focus, h.k.Zoom, h.k.Lessons, h.k.Quit})...)
}

func (h stepperHelp) FullHelp() [][]key.Binding { return h.k.FullHelp() }

// ShortHelp and FullHelp make keyMap a help.KeyMap: the help overlay.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Step, k.Iteration, k.Continue, k.Help, k.Quit}
}

func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Step, k.Iteration, k.Continue, k.Pause, k.Break, k.Breaks, k.Prev, k.Next, k.Fork, k.ForkOnto, k.Abandon, k.Branch, k.WhatIf, k.Handout, k.Cancel},
		{k.Focus, k.FocusBack, k.Zoom, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Expand, k.ExpandAll, k.Left, k.Right, k.ReqResp, k.Headers, k.Exchange, k.Rosetta},
		{k.Input, k.Send, k.Newline, k.Leave, k.Lessons, k.Predict, k.Roster, k.Help, k.Quit},
		{k.AllowOnce, k.AllowSession, k.Deny, k.Hide},
	}
}

// forCompare is the key map as the keys work in compare mode: tab picks the
// run the keys act on, shift+tab the pane, v shows the other run.
func (k keyMap) forCompare() keyMap {
	l := k.l
	k.Focus = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", l.T("pick run: both → one → other")))
	k.FocusBack = key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", l.T("pane")))
	k.Zoom = key.NewBinding(key.WithKeys("z"), key.WithHelp("z", l.T("zoom: a pane of both runs")))
	k.Prev = key.NewBinding(key.WithKeys("["), key.WithHelp("[", l.T("back a model call (both runs)")))
	return k
}

// fullHelp is the help overlay's key groups; in compare mode as the keys
// work there.
func (k keyMap) fullHelp(compare bool) [][]key.Binding {
	groups := k.FullHelp()
	if compare {
		c := k.forCompare()
		groups = c.FullHelp()
		groups[1] = append([]key.Binding{c.Focus, c.Look}, groups[1][1:]...)
	}
	// Only the keys the person's role may use; a group left empty goes.
	var out [][]key.Binding
	for _, g := range groups {
		if g = k.allowed(g); len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// all is every binding of the stepper and its panes: a rune that matches
// none of them is typing, not a command.
func (k keyMap) all() []key.Binding {
	out := []key.Binding{k.Look}
	for _, g := range k.FullHelp()[:4] { // the dialogs' keys are not the stepper's
		out = append(out, g...)
	}
	return out
}

// isKey reports whether msg is one of the stepper's keys.
func (k keyMap) isKey(msg tea.KeyMsg) bool {
	for _, b := range k.all() {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// typing reports whether msg is text a learner meant to type: printable
// runes (no alt) of which at least one is not a stepper key. "nnn" and "[[["
// are keys pressed fast; "quickly list the files" is a sentence.
func (k keyMap) typing(msg tea.KeyMsg) bool {
	if msg.Alt || (msg.Type != tea.KeyRunes && msg.Type != tea.KeySpace) {
		return false
	}
	for _, r := range msg.Runes {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	for _, r := range msg.Runes {
		if !k.isKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}) && r != ' ' {
			return true
		}
	}
	return false
}

// confirmKeys are the approval dialog's keys. While it is open the look
// keys ([ ] r tab) still move the panes, so the learner can read the
// response that asked for the call.
type confirmKeys struct {
	AllowOnce, AllowSession, Deny, Hide, Up, Down, PageUp, PageDown key.Binding
	Look                                                            key.Binding
}

func newConfirmKeys(k keyMap) confirmKeys {
	l := k.l
	return confirmKeys{
		AllowOnce:    k.AllowOnce,
		AllowSession: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", l.T("allow this exact call for the session"))),
		Deny:         k.Deny,
		Hide:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("hide"))),
		Up:           k.Up,
		Down:         k.Down,
		PageUp:       k.PageUp,
		PageDown:     k.PageDown,
		Look:         key.NewBinding(key.WithKeys("[", "]", "r", "tab"), key.WithHelp("[ ] r tab", l.T("look behind"))),
	}
}

// ShortHelp is the dialog's own key line and the help line under it.
func (c confirmKeys) ShortHelp() []key.Binding {
	return []key.Binding{c.AllowOnce, c.AllowSession, c.Deny, c.Hide, c.Look, c.Up}
}
func (c confirmKeys) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }

// askKeys are the ask_user dialog's keys; every other printable key types
// the answer.
type askKeys struct {
	Pick, Move, Answer, Hide key.Binding
	TypeAnswer               key.Binding // a question without options
}

func newAskKeys(l lang.Lang) askKeys {
	return askKeys{
		TypeAnswer: key.NewBinding(key.WithKeys("enter"), key.WithHelp(l.T("type + enter"), l.T("answer"))),
		Pick:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", l.T("pick"))),
		Move:       key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", l.T("choose"))),
		Answer:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", l.T("answer (or type your own)"))),
		Hide:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", l.T("hide"))),
	}
}

// ShortHelp lists the keys for a question with options; without options
// only typing and enter answer.
func (a askKeys) ShortHelp() []key.Binding {
	return []key.Binding{a.Pick, a.Move, a.Answer, a.Hide}
}
func (a askKeys) FullHelp() [][]key.Binding { return [][]key.Binding{a.ShortHelp()} }

// freeText is the help of a question without options.
func (a askKeys) freeText() []key.Binding {
	return []key.Binding{a.TypeAnswer, a.Hide}
}

// lessonKeys are the lessons menu's keys.
type lessonKeys struct {
	Up, Down, Pick, Number, Close key.Binding
}

func newLessonKeys(l lang.Lang) lessonKeys {
	return lessonKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", l.T("up"))),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", l.T("down"))),
		Pick:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", l.T("pick (the request goes into the input)"))),
		Number: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", l.T("pick"))),
		Close:  key.NewBinding(key.WithKeys("esc", "l", "q"), key.WithHelp("esc/l/q", l.T("close"))),
	}
}

func (l lessonKeys) ShortHelp() []key.Binding {
	return []key.Binding{l.Up, l.Down, l.Pick, l.Number, l.Close}
}
func (l lessonKeys) FullHelp() [][]key.Binding { return [][]key.Binding{l.ShortHelp()} }

// helpKeys are the help overlay's keys. q closes it, as it closes the
// lessons menu: an overlay never quits.
type helpKeys struct {
	Up, Down, PageUp, PageDown, Close key.Binding
}

func newHelpKeys(k keyMap) helpKeys {
	l := k.l
	return helpKeys{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown,
		Close: key.NewBinding(key.WithKeys("esc", "?", "q"), key.WithHelp("esc/?/q", l.T("close"))),
	}
}

func (h helpKeys) ShortHelp() []key.Binding {
	return []key.Binding{h.Close, h.Up, h.Down}
}
func (h helpKeys) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

// forkKeys answer "fork anyway?" when the files cannot go back.
type forkKeys struct{ Yes, No key.Binding }

func newForkKeys(l lang.Lang) forkKeys {
	return forkKeys{
		Yes: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", l.T("fork, keeping today's files"))),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", l.T("do not fork"))),
	}
}

func (f forkKeys) ShortHelp() []key.Binding  { return []key.Binding{f.Yes, f.No} }
func (f forkKeys) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// ontoKeys drive F's menu of dialects.
type ontoKeys struct{ Pick, Close key.Binding }

func newOntoKeys(l lang.Lang) ontoKeys {
	return ontoKeys{
		Pick:  key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", l.T("pick the dialect"))),
		Close: key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", l.T("close"))),
	}
}

func (o ontoKeys) ShortHelp() []key.Binding  { return []key.Binding{o.Pick, o.Close} }
func (o ontoKeys) FullHelp() [][]key.Binding { return [][]key.Binding{o.ShortHelp()} }

// quitKeys answer "quit glassbox?".
type quitKeys struct{ Yes, No key.Binding }

func newQuitKeys(l lang.Lang) quitKeys {
	return quitKeys{
		Yes: key.NewBinding(key.WithKeys("y", "q"), key.WithHelp("y/q", l.T("quit"))),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", l.T("stay (any other key too)"))),
	}
}

func (q quitKeys) ShortHelp() []key.Binding  { return []key.Binding{q.Yes, q.No} }
func (q quitKeys) FullHelp() [][]key.Binding { return [][]key.Binding{q.ShortHelp()} }
