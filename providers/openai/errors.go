package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	goa "github.com/sashabaranov/go-openai"

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

// explainError turns what go-openai returned into a *providers.Error whose
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
	if e := apiFailure(err, f); e != nil {
		return e
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

// apiFailure is what the API said went wrong: an error status, or an
// error event in the middle of a stream; nil when err is no such answer.
func apiFailure(err error, f callFacts) *providers.Error {
	var apiErr *goa.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode == 0 {
		// An {"error": …} event in the middle of a 200 stream: the server
		// failed after it had started answering.
		return providers.Errorf(providers.KindUnavailable, providers.StatusOf(f.last), err,
			"%s stopped in the middle of its reply with the error %q; try again, and if it repeats read the server's log.", f.base, apiErr.Message)
	}
	if apiErr != nil {
		return explainStatus(apiErr.HTTPStatusCode, apiErr.Message, err, f)
	}
	var reqErr *goa.RequestError
	if errors.As(err, &reqErr) {
		// An error status whose body is not the API's error object.
		return explainStatus(reqErr.HTTPStatusCode, errorMessage(reqErr.Body), err, f)
	}
	return nil
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

// errorMessage is the server's words in an error body that is not the
// API's error object: {"error": "…"}, as some servers write it; "" else.
func errorMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Error
}
