package main

import (
	"os"
	"sync"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
)

// built is the glassbox binary the subprocess tests share.
var built struct {
	sync.Once
	dir, bin string
	err      error
}

// TestMain lets this test binary serve as the sandbox helper, as the built
// glassbox does from main, and removes the binary the tests built.
func TestMain(m *testing.M) {
	tools.RunSandboxHelper()
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
