package rosetta_test

import (
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
)

// TestMain lays the tour out in the dialects the tests were written for
// (backend.UseFixedForTests): adding a dialect changes no expected table.
func TestMain(m *testing.M) {
	backend.UseFixedForTests()
	os.Exit(m.Run())
}
