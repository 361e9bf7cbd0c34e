package strip

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Every column heading has Japanese (Render shows them through Lang.Dyn,
// which the catalog test cannot read), and it fits its column whole.
func TestHeadingsHaveJapanese(t *testing.T) {
	for _, c := range columns {
		if !lang.Has(c.head) {
			t.Errorf("heading %q has no Japanese", c.head)
		}
		if ja := lang.JA.Dyn(c.head); c.width > 0 && ansi.StringWidth(ja) > c.width {
			t.Errorf("heading %q is %d cells in Japanese, its column %d", ja, ansi.StringWidth(ja), c.width)
		}
	}
}
