package headless

import (
	"context"
	"os"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/bus"
)

// ServePerson is who answers confirmations and questions for `glassbox
// mcp-serve`, whose standard input and output are the MCP client's
// (docs/mcp.md, "Who approves"): the person at this terminal (/dev/tty)
// when glassbox has one, otherwise the client's own person through MCP
// elicitation (b.Person, which refuses when the client cannot elicit).
// close releases the terminal; how says in a sentence which it is.
func ServePerson(b *bus.Bus) (p loop.Person, how string, close func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return b.Person(), "no terminal: confirmations go to the MCP client's person (elicitation), or are refused when it cannot ask", func() {}
	}
	return NewPerson(tty, tty), "confirmations are asked on this terminal", func() { tty.Close() }
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
