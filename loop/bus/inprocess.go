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
// returns once the request is an event in the engine's queue; the result
// goes back to that client when the engine delivers the answer. stop ends
// the connection.
func AskInProcess(ctx context.Context, b *Bus, request string) (stop func(), err error) {
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
	select {
	case <-b.Queued():
	case <-ctx.Done():
		cs.Close()
		cancel()
		return nil, ctx.Err()
	}
	return func() { cs.Close(); cancel() }, nil
}
