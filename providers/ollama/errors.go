package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/providers"
)

// streamCut is what glassbox reports when the connection dropped in the
// middle of Ollama's NDJSON stream (an unexpected EOF, a reset), before its
// final done:true line. The v0.17.4 client cannot tell: it ignores the read
// error of a dropped connection and returns nil, so Call reads it from the
// captured exchange. A stream that ends cleanly without done:true is not
// this: that is Ollama stopping on purpose (see readJSONReply).
type streamCut struct {
	cause string // the capture's words, e.g. "the response body was cut off: unexpected EOF"
}

func (e streamCut) Error() string {
	return fmt.Sprintf("the connection to Ollama was cut in the middle of its reply, before done:true (%s)", e.cause)
}

// callFacts is what explainError needs to phrase a failure for a learner.
type callFacts struct {
	host  string // the base URL, e.g. http://127.0.0.1:11434
	model string // empty for calls that name no model (the probe)
	// last is the final HTTP exchange the recorder captured, if any. The
	// SDK's StatusError hides the response headers and sometimes the body;
	// the exchange has both.
	last *providers.Exchange
}

// explainError turns whatever the SDK returned into a *providers.Error whose
// Message says what happened and what to do about it. err must not be nil.
func explainError(ctx context.Context, err error, f callFacts) *providers.Error {
	// The replay transport (or another part of glassbox) may already have
	// phrased the failure; keep its words and its kind.
	var phrased *providers.Error
	if errors.As(err, &phrased) {
		return phrased
	}
	// The person (or a deadline) stopped the call: say so, whatever the
	// transport made of it.
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return providers.Errorf(providers.KindNetwork, 0, err,
				"Ollama at %s did not answer before the deadline; the model may still be loading — try again, or check `ollama ps`.", f.host)
		}
		return providers.Errorf(providers.KindCanceled, 0, err, "the call to Ollama was cancelled.")
	}

	var authErr api.AuthorizationError
	if errors.As(err, &authErr) {
		msg := fmt.Sprintf("Ollama at %s refused the request (%d Unauthorized)", f.host, authErr.StatusCode)
		if authErr.SigninURL != "" {
			msg += "; sign in at " + authErr.SigninURL
		} else {
			msg += "; check that the server does not require a key, or run `ollama signin`"
		}
		return providers.Errorf(providers.KindAuth, authErr.StatusCode, err, "%s.", msg)
	}

	var statusErr api.StatusError
	if errors.As(err, &statusErr) {
		return explainStatus(statusErr.StatusCode, serverMessage(statusErr.ErrorMessage, f.last), err, f)
	}

	var cut streamCut
	if errors.As(err, &cut) {
		return providers.Errorf(providers.KindNetwork, providers.StatusOf(f.last), err, "%s; it may work on a retry.", cut)
	}

	if errors.Is(err, syscall.ECONNREFUSED) {
		return providers.Errorf(providers.KindUnreachable, 0, err,
			"Ollama is not running at %s — start it with `ollama serve` (or set OLLAMA_HOST to where it runs).", f.host)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return providers.Errorf(providers.KindUnreachable, 0, err,
			"cannot find the Ollama host %q (%s) — check OLLAMA_HOST.", dnsErr.Name, dnsErr.Err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return providers.Errorf(providers.KindNetwork, 0, err,
			"could not reach Ollama at %s: %v.", f.host, err)
	}

	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return providers.Errorf(providers.KindOther, providers.StatusOf(f.last), err,
			"Ollama at %s sent a reply line glassbox could not read (%v); is OLLAMA_HOST pointing at an Ollama server?", f.host, err)
	}

	// With a 200 status under way, the client turns an {"error": ...} line
	// in the stream (or a line that is not JSON at all) into a plain error.
	if f.last != nil && f.last.Status == http.StatusOK {
		return providers.Errorf(providers.KindUnavailable, http.StatusOK, err,
			"Ollama stopped in the middle of its reply with the error %q; the model runner may have crashed — try again, and if it repeats read Ollama's log: %s.", err.Error(), ollamaLogs)
	}

	return providers.Errorf(providers.KindOther, providers.StatusOf(f.last), err, "the call to Ollama at %s failed: %v.", f.host, err)
}

// ollamaLogs says where Ollama writes its log (docs/troubleshooting.mdx in
// the Ollama repository).
const ollamaLogs = "`journalctl -u ollama` where it runs as a Linux service, ~/.ollama/logs/server.log on macOS, or the terminal running `ollama serve`"

// runnerCrashed reports whether an Ollama error says its model process
// died: "model runner has unexpectedly stopped, this may be due to resource
// limitations or an internal error, check ollama server logs for details",
// (llm/llama_server.go), or the older "llama runner process has
// terminated: exit status 2".
func runnerCrashed(lower string) bool {
	return strings.Contains(lower, "runner has unexpectedly stopped") ||
		strings.Contains(lower, "runner process has terminated")
}

// explainStatus phrases an HTTP error status from Ollama.
func explainStatus(status int, msg string, cause error, f callFacts) *providers.Error {
	said := ""
	if msg != "" {
		said = fmt.Sprintf(" (Ollama said: %q)", msg)
	}
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusBadRequest && strings.Contains(lower, "does not support tools"):
		return providers.Errorf(providers.KindUnsupported, status, cause,
			"the model %s does not support Ollama's native tools%s — run with `--tool-mode json`, or pick a model with tool support.", f.model, said)
	case status == http.StatusBadRequest && strings.Contains(lower, "does not support"):
		return providers.Errorf(providers.KindUnsupported, status, cause,
			"the model %s cannot do what the request asked%s — pick another model with `--model`.", f.model, said)
	case status == http.StatusNotFound && strings.Contains(lower, "model"):
		return providers.Errorf(providers.KindNotFound, status, cause,
			"model %s not found on %s — run `ollama pull %s`.", f.model, f.host, f.model)
	case status == http.StatusNotFound:
		return providers.Errorf(providers.KindNotFound, status, cause,
			"%s answered 404 Not Found%s; it does not look like an Ollama server — check OLLAMA_HOST.", f.host, said)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return providers.Errorf(providers.KindAuth, status, cause,
			"Ollama at %s refused the request (%d %s)%s — check the server's access settings.", f.host, status, http.StatusText(status), said)
	case status >= 500 && runnerCrashed(lower):
		e := providers.Errorf(providers.KindUnavailable, status, cause,
			"the model process on Ollama at %s crashed (%d %s)%s — often it ran out of memory; Ollama restarts it on the next call, so glassbox retries. To see why, read Ollama's log: %s.", f.host, status, http.StatusText(status), said, ollamaLogs)
		e.RetryAfter = providers.RetryAfterOf(f.last, time.Now())
		return e
	}
	return providers.StatusFailure("Ollama at "+f.host, status, said, cause, f.last)
}

// serverMessage is the error text Ollama sent. The client reads only the
// first line of an error body, so a pretty-printed {"error": ...} arrives as
// "{"; the captured body holds the whole of it.
func serverMessage(fromSDK string, last *providers.Exchange) string {
	if last != nil && len(last.ResponseBody) > 0 {
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(last.ResponseBody, &body) == nil && body.Error != "" {
			return body.Error
		}
	}
	if msg := strings.TrimSpace(fromSDK); msg != "" && msg != "{" {
		return msg
	}
	if last != nil {
		const limit = 200
		body := strings.TrimSpace(string(last.ResponseBody))
		if len(body) > limit {
			body = body[:limit] + "…"
		}
		return body
	}
	return ""
}

// explainProbeError phrases a failed Probe; the probe names no model.
func explainProbeError(ctx context.Context, host string, err error) *providers.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return providers.Errorf(providers.KindNetwork, 0, err,
			"nothing answered at %s within the probe's time limit — start Ollama with `ollama serve`, or set OLLAMA_HOST.", host)
	}
	return explainError(ctx, err, callFacts{host: host})
}
