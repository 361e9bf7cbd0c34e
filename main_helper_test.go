package main

import (
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
)

// TestMain lets this test binary serve as the sandbox helper, as the built
// glassbox does from main.
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	code := m.Run()
	removeBusBinary()
	os.Exit(code)
}
