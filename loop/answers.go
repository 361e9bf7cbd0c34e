package loop

import (
	"context"
	"sync"

	"github.com/glassbox-dev/glassbox/tools"
)

// KeptAnswers is the person, with their answers to ask_user's questions
// kept in the session the moment they are given: if glassbox is killed
// right after, resuming hands the same answer back instead of asking again
// (nothing a person typed is lost). Give it to the tools as their Asker
// and to the engine as its Person; Journal.KeepAnswers connects it.
type KeptAnswers struct {
	Person

	mu      sync.Mutex
	journal *Journal
	replay  *string
}

var _ Person = (*KeptAnswers)(nil)

// NewKeptAnswers wraps p.
func NewKeptAnswers(p Person) *KeptAnswers { return &KeptAnswers{Person: p} }

// Ask answers from the session when a resumed run takes up a question the
// person had already answered, and otherwise asks p and saves the answer.
func (k *KeptAnswers) Ask(ctx context.Context, q tools.Question) (string, error) {
	k.mu.Lock()
	if r := k.replay; r != nil {
		k.replay = nil
		k.mu.Unlock()
		return *r, nil
	}
	j := k.journal
	k.mu.Unlock()
	answer, err := k.Person.Ask(ctx, q)
	if err == nil && j != nil {
		j.questionAnswered(answer)
	}
	return answer, err
}

// KeepAnswers makes k save its answers in j's session, and lets a resume
// hand back an answer given before a crash.
func (j *Journal) KeepAnswers(k *KeptAnswers) {
	k.mu.Lock()
	k.journal = j
	k.mu.Unlock()
	j.answers = k
}
