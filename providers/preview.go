package providers

import (
	"context"
	"errors"
	"sync"
)

// ErrNotSent is what the capture Transport answers to a request made under
// a DryRun Recorder: the request was captured and not sent.
var ErrNotSent = errors.New("the request was captured and not sent (preview)")

// ErrNoRequest says a preview's call made no HTTP request at all.
var ErrNoRequest = errors.New("the provider made no HTTP request")

// Preview runs call with a context whose HTTP requests stop at the capture,
// and returns the first request exactly as the SDK built it (redacted, as
// every captured request is). It is how a learner reads the request that is
// about to go out before pressing the key that sends it. call's own error
// is expected (the request was not answered) and ignored once a request
// was captured.
func Preview(ctx context.Context, call func(context.Context) error) (Exchange, error) {
	var (
		mu  sync.Mutex
		got *Exchange
	)
	rec := &Recorder{DryRun: true, OnRequest: func(ex Exchange) {
		mu.Lock()
		defer mu.Unlock()
		if got == nil {
			got = &ex
		}
	}}
	err := call(WithRecorder(ctx, rec))
	mu.Lock()
	defer mu.Unlock()
	if got != nil {
		return *got, nil
	}
	if err == nil {
		err = ErrNoRequest
	}
	return Exchange{}, err
}
