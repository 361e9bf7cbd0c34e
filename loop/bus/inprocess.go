package bus

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InProcessClient is the name the in-process caller gives in initialize.
const InProcessClient = "glassbox-lesson"

// AskInProcess has an SDK client, inside glassbox, call b's ask_agent tool
// with request over an in-memory transport — a request arriving from the
// bus with no network and nothing to install (the mcp-bus lesson). It
// returns once the request is an event in the engine's queue (it takes
// that event's value from Queued); the result goes back to that client
// when the engine delivers the answer. stop ends the connection.
func AskInProcess(ctx context.Context, b *Bus, request string) (stop func(), err error) {
	stop, err = Call(ctx, b, request)
	if err != nil {
		return nil, err
	}
	select {
	case <-b.Queued():
		return stop, nil
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// Call is AskInProcess without the wait: it returns once the client has
// connected and sent its tools/call, and Queued has a value when the event
// is queued, for the front end that listens to it.
func Call(ctx context.Context, b *Bus, request string) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = b.Serve(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: InProcessClient, Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("the in-process MCP client could not reach the bus: %w", err)
	}
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"request": request}})
	}()
	return func() { cs.Close(); cancel() }, nil
}
