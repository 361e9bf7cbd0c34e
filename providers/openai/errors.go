package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/glassbox-dev/glassbox/providers"
)

// callFacts is what explainError needs to phrase a failure for a learner.
type callFacts struct {
	base  string // the API's base URL
	model string
	// last is the final exchange the capture saw: the response headers
	// (Retry-After) and the read error of a cut stream are there.
	last *providers.Exchange
}

// explainError turns what openai-go returned into a *providers.Error whose
// Message says what happened and what to do. err must not be nil.
func explainError(ctx context.Context, err error, f callFacts) *providers.Error {
	var phrased *providers.Error
	if errors.As(err, &phrased) {
		return phrased // the replay transport, a stall limit: already said
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return providers.Errorf(providers.KindNetwork, 0, err, "%s did not answer before the deadline; try again.", f.base)
		}
		return providers.Errorf(providers.KindCanceled, 0, err, "the call to %s was cancelled.", f.base)
	}
	var apiErr *oa.Error
	if errors.As(err, &apiErr) {
		return explainStatus(apiErr.StatusCode, apiErr.Message, err, f)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		// An {"error": …} event in the middle of a 200 stream: the server
		// failed after it had started answering.
		return providers.Errorf(providers.KindUnavailable, providers.StatusOf(f.last), err,
			"%s stopped in the middle of its reply with the error %q; try again, and if it repeats read the server's log.", f.base, streamErr.Message)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return providers.Errorf(providers.KindUnreachable, 0, err,
			"nothing is listening at %s — start the server (for Ollama: `ollama serve`, then OPENAI_BASE_URL=http://localhost:11434/v1), or fix OPENAI_BASE_URL.", f.base)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return providers.Errorf(providers.KindUnreachable, 0, err,
			"cannot find the host %q (%s) — check OPENAI_BASE_URL.", dnsErr.Name, dnsErr.Err)
	}
	if f.last != nil && f.last.Status != 0 && f.last.Err != "" {
		return providers.Errorf(providers.KindNetwork, f.last.Status, err,
			"the connection to %s was cut in the middle of the reply, before its finish_reason (%s); it may work on a retry.", f.base, f.last.Err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || f.last != nil && f.last.Err != "" {
		return providers.Errorf(providers.KindNetwork, providers.StatusOf(f.last), err,
			"the connection to %s failed in the middle of the call (%v); it may work on a retry.", f.base, err)
	}
	return providers.Errorf(providers.KindOther, providers.StatusOf(f.last), err, "the call to %s failed: %v.", f.base, err)
}

// explainStatus phrases an HTTP error status; msg is the server's own
// words (the error object's "message").
func explainStatus(status int, msg string, cause error, f callFacts) *providers.Error {
	said := ""
	if msg = strings.TrimSpace(msg); msg != "" {
		said = fmt.Sprintf(" (the server said: %q)", msg)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return providers.Errorf(providers.KindAuth, status, cause,
			"%s refused the key (%d %s)%s — set OPENAI_API_KEY to a key it accepts (a local server usually needs none).", f.base, status, http.StatusText(status), said)
	case status == http.StatusNotFound && strings.Contains(strings.ToLower(msg), "model"):
		return providers.Errorf(providers.KindNotFound, status, cause,
			"the model %s is not on %s%s — pick one it serves with --model (for Ollama: `ollama pull %s` first).", f.model, f.base, said, f.model)
	case status == http.StatusNotFound:
		return providers.Errorf(providers.KindNotFound, status, cause,
			"%s answered 404 Not Found for /chat/completions%s — OPENAI_BASE_URL should end in /v1 (e.g. http://localhost:11434/v1).", f.base, said)
	}
	return providers.StatusFailure(f.base, status, said, cause, f.last)
}
