package diagram

import (
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Every state has its one-line explanation, in English and in Japanese
// (Explain goes through Lang.Dyn, which the catalog test cannot read).
func TestEveryStateIsExplained(t *testing.T) {
	for _, s := range loop.States {
		en, ok := explanations[s]
		if !ok {
			t.Errorf("state %s has no explanation", s)
			continue
		}
		if !lang.Has(en) {
			t.Errorf("the explanation of %s has no Japanese: %q", s, en)
		}
		if Explain(lang.JA, s) == en {
			t.Errorf("Explain(JA, %s) is still English", s)
		}
	}
}
