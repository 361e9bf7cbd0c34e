package tools

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as the sandbox helper, as glassbox
// itself does: execute_command re-executes the running program with
// SandboxArg, so `go test` needs no built glassbox.
func TestMain(m *testing.M) {
	RunSandboxHelper()
	os.Exit(m.Run())
}
