package headless

import (
	"fmt"
	"slices"
	"sync"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// builtInReasons are the built-in rules' reasons, longest first.
var builtInReasons = sync.OnceValue(loop.BuiltInReasons)

// sayIn is the human trace's Say in language l: the sentence through the
// catalog, and a built-in rule's reason (a loop.RuleReason value) in l too,
// with what the rule matched kept as it is.
func sayIn(l lang.Lang) loop.Say {
	return func(format string, args ...any) string {
		args = slices.Clone(args)
		for i, a := range args {
			if r, ok := a.(loop.RuleReason); ok {
				args[i] = l.Reason(string(r), builtInReasons())
			}
		}
		return fmt.Sprintf(l.Dyn(format), args...)
	}
}
