package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"
)

// action is what a controller or a dialog asks of the Model once it has
// taken a message or a key in, as crush's dialogs return an Action. A
// controller changes its own state and its runs, and says what else must
// happen to what the Model owns — the notice line, the dialog stack, the
// keyboard, the layout — which the Model does in apply. The zero action asks
// nothing.
type action struct {
	cmd    tea.Cmd // the work it started
	notice string  // what the notice line says now ("" leaves it)
	open   dialog  // put on top of the dialog stack
	close  dialog  // take off the stack
	// resize: the layout changed, so everything is sized and settled
	// again (syncSizes); settle: the panes' content changed, so the panes
	// on screen settle their scroll again (clampScrolls).
	resize, settle bool
	// panes gives the keyboard to the panes (the stepper); input gives it
	// to the input line, with fill in it when fill is set.
	panes, input bool
	fill         *string
	// typing types these runes into the input line, which gets the
	// keyboard: text typed at the stepper is never lost.
	typing []rune
	// step starts steps in the runs the keys act on: mode, started by the
	// key by.
	step *stepOrder
	// pass hands the key on to the stepper under the dialog that had it;
	// again handles it anew, as if the dialog that had it (now closed)
	// had never been there.
	pass, again bool
	quit        bool
}

// stepOrder is how far the runs step, and the key that started it.
type stepOrder struct {
	mode runMode
	by   string
}

// say is an action that only puts a line on the notice line.
func say(notice string) action { return action{notice: notice} }

// apply does what a controller asked of the Model and returns the work to
// start. What a dialog asks for the key it had (pass, again) the key router
// does (handleKey).
func (m *Model) apply(a action) tea.Cmd {
	cmds := []tea.Cmd{a.cmd}
	if a.close != nil {
		m.stack.close(a.close)
	}
	if a.open != nil {
		m.stack.push(a.open)
	}
	if a.notice != "" {
		m.bar.notice = a.notice
	}
	switch {
	case a.quit:
		return m.quit()
	case a.panes:
		m.focusPane(m.stepper.pane)
	}
	if a.fill != nil {
		m.input.SetValue(*a.fill)
	}
	if a.input {
		cmds = append(cmds, m.focusInput())
	}
	if a.step != nil {
		cmds = append(cmds, m.step(a.step.mode, a.step.by))
	}
	switch {
	case a.resize || a.fill != nil:
		m.syncSizes()
	case a.settle:
		m.clampScrolls()
	}
	if a.typing != nil {
		cmds = append(cmds, m.typeIntoInput(a.typing))
	}
	return tea.Batch(cmds...)
}
