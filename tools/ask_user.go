package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
)

// AskUserName is the name the model calls ask_user by.
const AskUserName = "ask_user"

// AskUserParams are ask_user's arguments.
type AskUserParams struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// AskUser puts a question to the person at the keyboard and returns their
// answer: the model's way to check before doing something it is unsure of.
type AskUser struct {
	asker Asker
}

var _ Tool = (*AskUser)(nil)

// NewAskUser returns the ask_user tool; asker is whoever answers (the TUI's
// question modal, headless stdin, or a test).
func NewAskUser(asker Asker) *AskUser { return &AskUser{asker: asker} }

// Spec is ask_user's definition for the model.
func (t *AskUser) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name:  AskUserName,
		Attrs: history.Attributes{ReadsOnly: true},
		Description: "Ask the person a question and wait for the answer. Use it before doing something " +
			"that cannot be undone, or when the request is unclear.",
		Params: []history.ParamSpec{
			{Name: "question", Type: history.TypeString, Required: true,
				Description: "the question to ask, e.g. Delete old_log.txt?"},
			{Name: "options", Type: history.TypeArray,
				Description: `answers the person may pick from, e.g. ["yes", "no"]; they may also type their own`},
		},
	}
}

// Run asks the question and waits for the answer or for ctx to end.
func (t *AskUser) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p AskUserParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", AskUserName, err), nil
	}
	if strings.TrimSpace(p.Question) == "" {
		return failure("%s: the question is empty; write the question to ask", AskUserName), nil
	}
	if t.asker == nil {
		return failure("no answer available: nobody is there to answer questions"), nil
	}
	answer, err := t.asker.Ask(ctx, Question{Text: p.Question, Options: p.Options})
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		// The session is being stopped: not something the model can fix.
		return Result{}, fmt.Errorf("%s: %w", AskUserName, err)
	case err != nil:
		return failure("no answer available: %v", err), nil
	case answer == "":
		return Result{Content: "(the person answered with an empty line)"}, nil
	}
	return Result{Content: answer}, nil
}
