package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
)

const keyHelp = "export GEMINI_API_KEY=your-key — get one at https://aistudio.google.com/apikey"

// classifyError turns whatever GenerateContent returned into a
// *providers.Error whose message says what happened and what to do.
func (p *Provider) classifyError(ctx context.Context, err error, exchanges []providers.Exchange) *providers.Error {
	// The replay transport (and anything else in glassbox) may already
	// have phrased the failure.
	var pe *providers.Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return providers.Errorf(providers.KindCanceled, 0, err, "the Gemini call was cancelled before it finished.")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return providers.Errorf(providers.KindNetwork, 0, err, "the Gemini call ran out of time before the answer arrived; check the network and try again.")
	}

	// genai.APIError is a value type: errors.As needs a value, not a pointer.
	var ae genai.APIError
	if errors.As(err, &ae) {
		return p.apiError(ae, err, exchanges)
	}

	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) {
		return providers.Errorf(providers.KindUnreachable, 0, err,
			"nothing answered at %s (%v); check the network connection, or GOOGLE_GEMINI_BASE_URL if you set it.",
			host(exchanges), rootCause(err))
	}
	var ue *url.Error
	if errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return providers.Errorf(providers.KindNetwork, 0, err,
			"could not reach Gemini at %s (%v); check the network connection, or GOOGLE_GEMINI_BASE_URL if you set it.",
			host(exchanges), rootCause(err))
	}
	return providers.Errorf(providers.KindOther, 0, err, "the Gemini call failed: %v", err)
}

// apiError reads an error the Gemini API sent back: the HTTP status, the
// google.rpc status name, and the structured details (ErrorInfo reason,
// RetryInfo delay, Help links).
func (p *Provider) apiError(ae genai.APIError, err error, exchanges []providers.Exchange) *providers.Error {
	reason := detailString(ae.Details, "ErrorInfo", "reason")
	// A JSON error names its status ("RESOURCE_EXHAUSTED"); for a body that
	// is not JSON the SDK puts the HTTP status line there ("500 Internal
	// Server Error"), which already starts with the code.
	status := ae.Status
	if !strings.HasPrefix(status, strconv.Itoa(ae.Code)) {
		status = strings.TrimSpace(fmt.Sprintf("%d %s", ae.Code, ae.Status))
	}
	ae.Message = strings.TrimSpace(ae.Message)
	if reason != "" {
		status += " " + reason
	}
	e := &providers.Error{Status: ae.Code, Err: err}
	switch {
	case ae.Code == http.StatusBadRequest && reason == "API_KEY_INVALID", ae.Code == http.StatusUnauthorized:
		e.Kind = providers.KindAuth
		e.Sayf("Gemini rejected the API key (%s): check the key in GEMINI_API_KEY, e.g. %s", status, keyHelp)
	case ae.Code == http.StatusForbidden && reason == "SERVICE_DISABLED":
		e.Kind = providers.KindAuth
		e.Sayf("the Gemini API is not enabled for the Google Cloud project of this API key (%s): enable it at %s and retry in a few minutes, or use a key from https://aistudio.google.com/apikey.",
			status, firstNonEmpty(helpLink(ae.Details), "https://console.cloud.google.com/apis/library/generativelanguage.googleapis.com"))
	case ae.Code == http.StatusForbidden:
		e.Kind = providers.KindAuth
		e.Sayf("Gemini refused this API key (%s: %s); check that GEMINI_API_KEY holds a key allowed to use the Gemini API, e.g. %s", status, ae.Message, keyHelp)
	case ae.Code == http.StatusNotFound:
		e.Kind = providers.KindNotFound
		e.Sayf("Gemini has no model %q for this key: the call to that model failed (%s: %s); check the name against https://ai.google.dev/gemini-api/docs/models, or try another model, e.g. --model %s.",
			p.model, status, ae.Message, otherModel(p.model))
	case ae.Code == http.StatusTooManyRequests:
		e.Kind = providers.KindRateLimit
		e.RetryAfter = retryDelay(ae.Details)
		if e.RetryAfter == 0 {
			e.RetryAfter = retryAfterHeader(exchanges)
		}
		e.Sayf("Gemini's rate limit or quota is used up (%s): %s %s", status, ae.Message, waitAdvice(e.RetryAfter))
	case ae.Code >= 500:
		e.Kind = providers.KindUnavailable
		e.RetryAfter = retryAfterHeader(exchanges)
		wait := sentence.Errorf("retry in a little while.")
		if e.RetryAfter > 0 {
			wait = sentence.Errorf("retry after %s.", e.RetryAfter)
		}
		e.Sayf("Gemini is unavailable right now (%s: %s); this is usually temporary, so %s", status, ae.Message, wait)
	case ae.Code == http.StatusBadRequest:
		e.Kind = providers.KindBadRequest
		e.Sayf("Gemini rejected the request as invalid (%s): %s", status, ae.Message)
	case ae.Code == 499:
		e.Kind = providers.KindCanceled
		e.Sayf("Gemini reports the call was cancelled (%s).", status)
	default:
		e.Kind = providers.KindOther
		e.Sayf("Gemini returned an error (%s): %s", status, ae.Message)
	}
	return e
}

// otherModel suggests a model to try instead of the one that failed: the
// default, or when the default is what failed, another current one.
func otherModel(failed string) string {
	for _, m := range []string{DefaultModel, "gemini-2.5-flash-lite", "gemini-2.5-pro"} {
		if m != failed {
			return m
		}
	}
	return DefaultModel
}

func waitAdvice(d time.Duration) error {
	if d > 0 {
		return sentence.Errorf("Wait %s before retrying.", d)
	}
	return sentence.Errorf("Wait a minute before retrying, and see https://ai.google.dev/gemini-api/docs/rate-limits for your limits.")
}

// detailString finds the first details entry of the given google.rpc type
// (for example "ErrorInfo") and returns its field as a string.
func detailString(details []map[string]any, rpcType, field string) string {
	for _, d := range details {
		if t, _ := d["@type"].(string); strings.HasSuffix(t, "google.rpc."+rpcType) {
			if s, ok := d[field].(string); ok {
				return s
			}
		}
	}
	return ""
}

// retryDelay reads google.rpc.RetryInfo.retryDelay, a protobuf Duration
// written as "40s" or "1.5s".
func retryDelay(details []map[string]any) time.Duration {
	d, err := time.ParseDuration(detailString(details, "RetryInfo", "retryDelay"))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// retryAfterHeader reads the Retry-After header of the last exchange, in
// seconds or as an HTTP date.
func retryAfterHeader(exchanges []providers.Exchange) time.Duration {
	if len(exchanges) == 0 {
		return 0
	}
	value := http.Header(exchanges[len(exchanges)-1].ResponseHeaders).Get("Retry-After")
	if value == "" {
		return 0
	}
	if d, ok := providers.RetryAfterSeconds(value); ok {
		return d
	}
	if at, err := http.ParseTime(value); err == nil {
		if d := time.Until(at); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}

// helpLink returns the first URL of a google.rpc.Help detail.
func helpLink(details []map[string]any) string {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.Help") {
			continue
		}
		links, _ := d["links"].([]any)
		for _, l := range links {
			if link, ok := l.(map[string]any); ok {
				if u, ok := link["url"].(string); ok && u != "" {
					return u
				}
			}
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// host names the server the last exchange tried to reach.
func host(exchanges []providers.Exchange) string {
	if len(exchanges) > 0 {
		if u, err := url.Parse(exchanges[len(exchanges)-1].URL); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return "the Gemini API"
}

// rootCause strips the wrappers (genai's "doRequest: ...", net/http's
// "Post ...") down to the reason a person can act on, such as "connection
// refused".
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
