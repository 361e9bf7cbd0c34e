package tools

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeAsker answers every question with answer or err, and remembers the
// last question.
type fakeAsker struct {
	answer string
	err    error
	calls  int
	last   Question
}

func (f *fakeAsker) Ask(ctx context.Context, q Question) (string, error) {
	f.calls++
	f.last = q
	return f.answer, f.err
}

// waitingAsker never answers; it returns when ctx ends, as a real person's
// modal does when the session is cancelled.
type waitingAsker struct{}

func (waitingAsker) Ask(ctx context.Context, q Question) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func TestAskUser(t *testing.T) {
	tests := []struct {
		name        string
		asker       Asker
		args        string
		want        string
		wantIsError bool
		wantAsked   *Question
	}{
		{name: "answer", asker: &fakeAsker{answer: "yes, delete it"},
			args: `{"question":"Delete old_log.txt?"}`, want: "yes, delete it",
			wantAsked: &Question{Text: "Delete old_log.txt?"}},
		{name: "options are passed on", asker: &fakeAsker{answer: "no"},
			args: `{"question":"Delete?","options":["yes","no"]}`, want: "no",
			wantAsked: &Question{Text: "Delete?", Options: []string{"yes", "no"}}},
		{name: "empty answer is said plainly", asker: &fakeAsker{answer: ""},
			args: `{"question":"Name?"}`, want: "(the person answered with an empty line)"},
		{name: "asker error", asker: &fakeAsker{err: errors.New("standard input is closed")},
			args: `{"question":"Delete?"}`, want: "no answer available: standard input is closed", wantIsError: true},
		{name: "no asker", asker: nil,
			args: `{"question":"Delete?"}`, want: "no answer available: nobody is there to answer questions", wantIsError: true},
		{name: "blank question", asker: &fakeAsker{answer: "?"},
			args: `{"question":"   "}`, want: "ask_user: the question is empty; write the question to ask", wantIsError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewAskUser(tt.asker), tt.args)
			if res.Content != tt.want || res.IsError != tt.wantIsError {
				t.Errorf("Run = %+v, want {Content:%q IsError:%v}", res, tt.want, tt.wantIsError)
			}
			if tt.wantAsked != nil {
				if got := tt.asker.(*fakeAsker).last; !reflect.DeepEqual(got, *tt.wantAsked) {
					t.Errorf("asked %+v, want %+v", got, *tt.wantAsked)
				}
			}
		})
	}
}

func TestAskUserCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := NewAskUser(waitingAsker{}).Run(ctx, []byte(`{"question":"Still there?"}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run with an expiring context: err = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), AskUserName) {
		t.Errorf("error %q does not say which tool was interrupted", err)
	}
}

func TestAskUserCancelledErrorFromAsker(t *testing.T) {
	// The asker reports cancellation itself (its own context ended).
	_, err := NewAskUser(&fakeAsker{err: context.Canceled}).Run(context.Background(), []byte(`{"question":"?"}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
}
