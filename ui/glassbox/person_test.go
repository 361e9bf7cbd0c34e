package glassbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

func TestPersonRequestReply(t *testing.T) {
	p := NewPerson()
	ctx := context.Background()

	t.Run("confirm", func(t *testing.T) {
		got := make(chan loop.Approval, 1)
		go func() {
			a, err := p.Confirm(ctx, loop.ConfirmRequest{Preview: "diff"})
			if err != nil {
				t.Error(err)
			}
			got <- a
		}()
		req := <-p.requestChan()
		if req.confirm == nil || req.confirm.Preview != "diff" {
			t.Fatalf("request %+v", req)
		}
		req.approve(loop.AllowSession)
		req.approve(loop.Deny) // a second answer is ignored, and does not block
		if a := <-got; a != loop.AllowSession {
			t.Fatalf("approval %v", a)
		}
	})
	t.Run("ask, then dismiss", func(t *testing.T) {
		errs := make(chan error, 1)
		go func() {
			_, err := p.Ask(ctx, tools.Question{Text: "why?"})
			errs <- err
		}()
		req := <-p.requestChan()
		req.dismiss()
		if err := <-errs; !errors.Is(err, errDismissed) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("cancelled while nobody listens", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		a, err := p.Confirm(cctx, loop.ConfirmRequest{})
		if !errors.Is(err, context.DeadlineExceeded) || a != loop.Deny {
			t.Fatalf("got %v, %v", a, err)
		}
	})
	t.Run("cancelled while the modal is open", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		errs := make(chan error, 1)
		go func() {
			_, err := p.Ask(cctx, tools.Question{Text: "?"})
			errs <- err
		}()
		req := <-p.requestChan()
		cancel()
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
		req.answer("too late") // the UI answering afterwards never blocks
	})
	t.Run("nil person", func(t *testing.T) {
		var none *Person
		if _, err := none.Confirm(ctx, loop.ConfirmRequest{}); err == nil {
			t.Fatal("a nil Person should refuse, not block")
		}
	})
}
