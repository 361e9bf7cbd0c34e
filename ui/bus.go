package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// busArrivedMsg: the MCP bus queued a request in the first run's engine.
type busArrivedMsg struct{}

// busCmd waits for the next request from the MCP bus (Config.Bus).
func (m Model) busCmd() tea.Cmd {
	ch := m.cfg.Bus
	if ch == nil || len(m.runs) == 0 {
		return nil
	}
	ctx := m.runs[0].base
	return func() tea.Msg {
		select {
		case <-ch:
			return busArrivedMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

// busArrived counts the bus's request as queued and tells the person, who
// steps it like any event: the caller waits for the answer.
func (m Model) busArrived() (tea.Model, tea.Cmd) {
	m.runs[0].live.queued++
	if m.inputFocused && m.input.Value() == "" {
		m.focusPane(m.pane) // nothing typed is lost: the stepper keys work at once
	}
	m.notice = "a request arrived from the MCP bus — space takes it (new_event), c runs it to its answer; the caller waits for the answer"
	if m.inputFocused {
		m.notice = "a request arrived from the MCP bus — esc, then space takes it; the caller waits for the answer"
	}
	return m, m.busCmd()
}

// busNote is History's line for an event that was not typed here: where it
// came from.
func busNote(ev loop.Event) string {
	return "request from the " + ev.Source + " source: " + ev.From
}
