package glassbox

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// busArrivedMsg: the MCP bus queued a request in run's engine.
type busArrivedMsg struct{ run int }

// busCallMsg: the in-process client could not send the lesson's request.
type busCallMsg struct{ err error }

// busCmd waits for the next request the MCP bus queues in the run's engine.
func (r *runView) busCmd() tea.Cmd {
	if r.bus == nil {
		return nil
	}
	ch, ctx, id := r.bus.Queued(), r.base, r.id
	return func() tea.Msg {
		select {
		case <-ch:
			return busArrivedMsg{run: id}
		case <-ctx.Done():
			return nil
		}
	}
}

// callOverBusCmd has a client inside glassbox call the run's ask_agent
// with request (the mcp-bus lesson): it arrives as a request from the bus.
// A run that listens hears of it like any request from outside; otherwise
// the command waits for it to be queued and says so itself.
func (r *runView) callOverBusCmd(request string) tea.Cmd {
	b, ctx, id, listens := r.bus, r.base, r.id, r.listens
	return func() tea.Msg {
		if listens {
			if _, err := bus.Call(ctx, b, request); err != nil {
				return busCallMsg{err: err}
			}
			return nil
		}
		if _, err := bus.AskInProcess(ctx, b, request); err != nil {
			return busCallMsg{err: err}
		}
		return busArrivedMsg{run: id}
	}
}

// busNote is History's line for an event that was not typed here: where it
// came from.
func busNote(l lang.Lang, ev loop.Event) string {
	return l.F("request from the %s source: %s", ev.Source, ev.From)
}
