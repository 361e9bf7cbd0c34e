package agentrun

import (
	"fmt"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
)

// Past reads back the steps a resumed run had taken, as the transition
// records a front end draws — messages, tool calls, decisions and the raw
// HTTP exchanges kept beside the session — so time travel reaches the whole
// past. A run that was not resumed has none.
func (r *Run) Past() ([]loop.Transition, error) {
	if r.Session == nil || !r.Session.Resumed {
		return nil, nil
	}
	f, err := session.Read(r.Session.Path)
	if err != nil {
		return nil, fmt.Errorf("reading the past steps of %s: %w", r.Session.Path, err)
	}
	rl, ok := f.Run(r.Config.Name)
	if !ok {
		return nil, fmt.Errorf("%s holds no run named %q", r.Session.Path, r.Config.Name)
	}
	return loop.SessionTransitions(r.Session.Path, rl, true)
}
