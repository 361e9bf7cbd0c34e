package glassbox

import (
	"os"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
)

// TestMain draws every screen with the dialects of the golden files
// (backend.UseFixedForTests): adding a dialect regenerates no golden.
func TestMain(m *testing.M) {
	backend.UseFixedForTests()
	os.Exit(m.Run())
}
