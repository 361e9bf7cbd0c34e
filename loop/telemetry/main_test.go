package telemetry_test

import (
	"context"
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// TestMain lets this test binary be the sandbox helper and the demo MCP
// server (--mcp demo starts glassbox itself as `glassbox mcp-demo`).
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	if len(os.Args) > 1 && os.Args[1] == mcptool.DemoArg {
		if err := mcptool.ServeDemo(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
