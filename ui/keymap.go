package ui

import "github.com/charmbracelet/bubbles/key"

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
	WhatIf    key.Binding

	// Panes.
	Focus     key.Binding
	FocusBack key.Binding
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
	ReqResp   key.Binding
	Headers   key.Binding
	Exchange  key.Binding

	// Input line.
	Input   key.Binding
	Send    key.Binding
	Newline key.Binding
	Leave   key.Binding

	// Modals.
	AllowOnce    key.Binding
	AllowSession key.Binding
	Deny         key.Binding
	Pick         key.Binding

	Lessons key.Binding
	Help    key.Binding
	Quit    key.Binding
	Cancel  key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Step:      key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", "step")),
		Iteration: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "iteration")),
		Continue:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "continue")),
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Prev:      key.NewBinding(key.WithKeys("["), key.WithHelp("[", "back in time")),
		Next:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "forward")),
		Fork:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fork here")),
		ForkOnto:  key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "fork onto a dialect")),
		WhatIf:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "what-if edit")),

		Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		FocusBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane")),
		Zoom:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		Expand:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expand/fold")),
		ExpandAll: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "expand/fold all")),
		Left:      key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "prev state")),
		Right:     key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next state")),
		Break:     key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "breakpoint")),
		ReqResp:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "request/response")),
		Headers:   key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "headers")),
		Exchange:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "next exchange")),

		Input:   key.NewBinding(key.WithKeys("enter", "/"), key.WithHelp("enter,/", "input")),
		Send:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline: key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter", "new line")),
		Leave:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave/close")),

		AllowOnce:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "allow once")),
		AllowSession: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow for session")),
		Deny:         key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "deny")),
		Pick:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "pick")),

		Lessons: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "lessons")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Cancel:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel step (twice: quit)")),
	}
}

// inputHelp is the short help while the input line has focus.
type inputHelp struct{ k keyMap }

func (h inputHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.Send, h.k.Newline, h.k.Leave, h.k.Cancel}
}
func (h inputHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

// stepperHelp is the short help while a pane has focus; pane names the
// pane-specific keys to add.
type stepperHelp struct {
	k       keyMap
	pane    paneID
	compare bool // tab picks a run, not a pane
}

func (h stepperHelp) ShortHelp() []key.Binding {
	b := []key.Binding{h.k.Step, h.k.Iteration, h.k.Continue, h.k.Help, h.k.Pause}
	switch h.pane {
	case paneHistory:
		b = append(b, h.k.Expand)
	case paneDiagram:
		b = append(b, h.k.Break)
	case panePayload:
		b = append(b, h.k.ReqResp, h.k.Headers)
	}
	focus := h.k.Focus
	if h.compare {
		focus = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pick run"))
	}
	return append(b, h.k.Prev, h.k.Next, h.k.Input, focus, h.k.Zoom, h.k.Lessons, h.k.Quit)
}

func (h stepperHelp) FullHelp() [][]key.Binding { return h.k.FullHelp() }

// ShortHelp and FullHelp make keyMap a help.KeyMap: the help overlay.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Step, k.Iteration, k.Continue, k.Help, k.Quit}
}

func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Step, k.Iteration, k.Continue, k.Pause, k.Break, k.Prev, k.Next, k.Fork, k.ForkOnto, k.WhatIf, k.Cancel},
		{k.Focus, k.FocusBack, k.Zoom, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Expand, k.ExpandAll, k.Left, k.Right, k.ReqResp, k.Headers, k.Exchange},
		{k.Input, k.Send, k.Newline, k.Leave, k.Lessons, k.Help, k.Quit},
		{k.AllowOnce, k.AllowSession, k.Deny},
	}
}
