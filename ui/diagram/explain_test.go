package diagram

import (
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Every state has its one-line explanation, in English and in Japanese
// (Explain goes through Lang.Dyn, which the catalog test cannot read).
func TestEveryStateIsExplained(t *testing.T) {
	for _, table := range []struct {
		name    string
		m       map[loop.State]string
		explain func(lang.Lang, loop.State) string
	}{{"Explain", explanations, Explain}, {"ExplainOutside", outside, ExplainOutside}} {
		for _, s := range loop.States {
			en, ok := table.m[s]
			if !ok {
				t.Errorf("%s: state %s has no explanation", table.name, s)
				continue
			}
			if !lang.Has(en) {
				t.Errorf("%s: the explanation of %s has no Japanese: %q", table.name, s, en)
			}
			if table.explain(lang.JA, s) == en {
				t.Errorf("%s(JA, %s) is still English", table.name, s)
			}
		}
	}
}
