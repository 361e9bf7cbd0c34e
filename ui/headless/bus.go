package headless

import (
	"context"
	"os"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// ServePerson is who answers confirmations and questions for `glassbox
// mcp-serve`, whose standard input and output are the MCP client's
// (docs/mcp.md, "Who approves"): the person at this terminal (/dev/tty)
// when glassbox has one, otherwise the client's own person through MCP
// elicitation (b.Person, which refuses when the client cannot elicit).
// close releases the terminal; how says in a sentence which it is.
func ServePerson(b *bus.Bus, l lang.Lang) (p loop.Person, how string, close func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return b.Person(), l.T("no terminal: confirmations go to the MCP client's person (elicitation), or are refused when it cannot ask"), func() {}
	}
	return NewPerson(tty, tty), l.T("confirmations are asked on this terminal"), func() { tty.Close() }
}

// WaitForBus is Options.Wait for a run on the bus: it waits for the bus to
// queue an event, and gives up when ended is closed (the client left) or
// ctx is done.
func WaitForBus(b *bus.Bus, ended <-chan struct{}) func(context.Context) bool {
	return func(ctx context.Context) bool {
		select {
		case <-b.Queued():
			return true
		case <-ended:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// AskOverBus puts each run on the MCP bus and has an in-process client ask
// it request (the mcp-bus lesson): the request is each engine's first event,
// from the mcp_bus source, and the answer goes back as the call's result.
// stop ends the in-process connections.
func AskOverBus(ctx context.Context, runs []*agentrun.Run, request, version string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for _, r := range runs {
		b := bus.New(bus.Options{Version: version, Secrets: r.Config.Env.Secrets()})
		b.Bind(r.Engine, r.Wire())
		s, err := bus.AskInProcess(ctx, b, request)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, s)
	}
	return stop, nil
}
