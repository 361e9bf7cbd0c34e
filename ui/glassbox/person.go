package glassbox

import (
	"context"
	"errors"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// Person is the TUI's loop.Person: the confirmation and ask_user modals.
//
// It works as request/reply. The engine calls Confirm or Ask on the goroutine
// running Step (inside the UI's step command); the call publishes a request
// on a channel and blocks until the UI answers or ctx ends. The UI reads that
// channel in the same command that waits for the step to finish, so it hears
// about a request exactly when the step is stuck on it, and opens a modal.
//
// Give the same Person to the engine (loop.Config.Person, and the ask_user
// tool) and to glassbox.Config.Person.
type Person struct {
	requests chan *personRequest
}

var _ loop.Person = (*Person)(nil)

// NewPerson returns a Person with no request outstanding.
func NewPerson() *Person {
	return &Person{requests: make(chan *personRequest)}
}

// errDismissed is what Ask returns when the person closes the question
// without answering; the ask_user tool reports it to the model.
var errDismissed = errors.New("the person dismissed the question without answering")

// personRequest is one question put to the person: either a confirmation or
// an ask_user question. The reply channel has room for one answer, so the UI
// never blocks when it answers, even if the engine has stopped waiting.
type personRequest struct {
	confirm  *loop.ConfirmRequest
	question *tools.Question
	reply    chan personReply
}

type personReply struct {
	approval loop.Approval
	answer   string
	err      error
}

func newPersonRequest() *personRequest {
	return &personRequest{reply: make(chan personReply, 1)}
}

// approve answers a confirmation.
func (r *personRequest) approve(a loop.Approval) { r.send(personReply{approval: a}) }

// answer answers a question.
func (r *personRequest) answer(s string) { r.send(personReply{answer: s}) }

// dismiss closes a question without an answer (a confirmation: denies it).
func (r *personRequest) dismiss() { r.send(personReply{approval: loop.Deny, err: errDismissed}) }

func (r *personRequest) send(rep personReply) {
	select {
	case r.reply <- rep:
	default: // already answered; the first answer stands
	}
}

// Confirm asks the person to approve or deny a call. It blocks until the UI
// answers or ctx ends.
func (p *Person) Confirm(ctx context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	r := newPersonRequest()
	r.confirm = &req
	rep, err := p.put(ctx, r)
	if err != nil {
		return loop.Deny, err
	}
	if rep.err != nil {
		return loop.Deny, nil // closing the modal is a denial, not a failure
	}
	return rep.approval, nil
}

// Ask puts an ask_user question to the person. It blocks until the UI
// answers or ctx ends.
func (p *Person) Ask(ctx context.Context, q tools.Question) (string, error) {
	r := newPersonRequest()
	r.question = &q
	rep, err := p.put(ctx, r)
	if err != nil {
		return "", err
	}
	return rep.answer, rep.err
}

// put publishes r and waits for its reply.
func (p *Person) put(ctx context.Context, r *personRequest) (personReply, error) {
	if p == nil || p.requests == nil {
		return personReply{}, errors.New("no person is attached to the UI")
	}
	select {
	case p.requests <- r:
	case <-ctx.Done():
		return personReply{}, ctx.Err()
	}
	select {
	case rep := <-r.reply:
		return rep, nil
	case <-ctx.Done():
		return personReply{}, ctx.Err()
	}
}

// requestChan is the channel the UI reads; nil (never ready) without a Person.
func (p *Person) requestChan() <-chan *personRequest {
	if p == nil {
		return nil
	}
	return p.requests
}
