package mcptool

import (
	"context"
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
)

// TestMain lets this test binary serve as the sandbox helper, so the stdio
// servers of these tests run confined as glassbox runs them, and as the
// demo server (DemoArg), which --mcp demo starts from this very program.
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	if len(os.Args) > 1 && os.Args[1] == DemoArg {
		if err := ServeDemo(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
