package main

import (
	"context"
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// TestMain lets this test binary serve as the sandbox helper, and as the
// demo MCP server (--mcp demo starts it again as `mcp-demo`), as the built
// glassbox does from main.
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	if len(os.Args) > 1 && os.Args[1] == mcptool.DemoArg {
		os.Exit(realMain(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	removeBusBinary()
	os.Exit(code)
}
