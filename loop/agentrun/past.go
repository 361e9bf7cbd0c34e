package agentrun

import (
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// Past reads back the steps a resumed run had taken, as the transition
// records a front end draws — messages, tool calls, decisions — so time
// travel reaches the whole past. The raw HTTP exchanges stay on disk
// (Transition.ExchangesAt): Exchanges reads a step's when it is shown. A run
// that was not resumed has none.
func (r *Run) Past() ([]loop.Transition, error) {
	if r.Session == nil || !r.Session.Resumed {
		return nil, nil
	}
	f, err := session.Read(r.Session.Path)
	if err != nil {
		return nil, sentence.Errorf("reading the past steps of %s: %w", r.Session.Path, err)
	}
	rl, ok := f.Run(r.Config.Name)
	if !ok {
		return nil, sentence.Errorf("%s holds no run named %q", r.Session.Path, r.Config.Name)
	}
	return loop.SessionTransitions(r.Session.Path, rl, false)
}

// Exchanges reads a step's raw HTTP exchanges back from beside the session
// file (Transition.ExchangesAt), so a screen can keep in memory only the
// payloads near the step it shows.
func (r *Run) Exchanges(t *loop.Transition) ([]providers.Exchange, error) {
	if r.Session == nil || t.ExchangesAt == nil {
		return nil, sentence.Errorf("this step's payload is not in a session file")
	}
	r.exchangesMu.Lock()
	defer r.exchangesMu.Unlock()
	if r.exchanges == nil {
		r.exchanges = loop.NewExchangeReader(r.Session.Path, 0)
	}
	return r.exchanges.LoadAt(*t.ExchangesAt)
}
