package agentrun

import (
	"errors"
	"fmt"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// Past reads back the steps a resumed run had taken, as the transition
// records a front end draws — messages, tool calls, decisions — so time
// travel reaches the whole past. The raw HTTP exchanges stay on disk:
// StepExchanges reads a step's when it is shown. A run that was not resumed
// has none.
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
	return loop.SessionTransitions(r.Session.Path, rl, false)
}

// StepExchanges reads the raw HTTP exchanges of step seq back from the
// session file, so a screen can keep in memory only the payloads near the
// step it shows. The file is read afresh each time: after a fork, a step
// number names a step of the new line.
func (r *Run) StepExchanges(seq int) ([]providers.Exchange, error) {
	if r.Session == nil {
		return nil, errors.New("this run keeps no session to read its payloads from")
	}
	f, err := session.Read(r.Session.Path)
	if err != nil {
		return nil, err
	}
	rl, ok := f.Run(r.Config.Name)
	if !ok {
		return nil, fmt.Errorf("%s holds no run named %q", r.Session.Path, r.Config.Name)
	}
	for _, st := range rl.Steps {
		if st.Seq == seq {
			return loop.LoadExchanges(r.Session.Path, st)
		}
	}
	return nil, fmt.Errorf("step %d is not in %s", seq, r.Session.Path)
}
