package providers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// ErrorKind sorts provider failures by what a learner can do about them.
type ErrorKind string

const (
	KindAuth        ErrorKind = "auth"        // key missing, invalid or not allowed
	KindNotFound    ErrorKind = "not_found"   // unknown model or endpoint
	KindBadRequest  ErrorKind = "bad_request" // the request was rejected as invalid
	KindRateLimit   ErrorKind = "rate_limit"  // 429: retry after a delay
	KindUnavailable ErrorKind = "unavailable" // 5xx: the service is overloaded or down
	KindNetwork     ErrorKind = "network"     // connection reset, timeout, stream cut: may work on a retry
	KindUnreachable ErrorKind = "unreachable" // connection refused or unknown host: nothing is there, retrying won't help
	KindBlocked     ErrorKind = "blocked"     // the prompt or reply was blocked (safety)
	KindCanceled    ErrorKind = "canceled"    // the person cancelled the call
	KindUnsupported ErrorKind = "unsupported" // e.g. a model without tool support
	KindOther       ErrorKind = "other"
)

// MaxRetryAfter is the longest delay a Retry-After header is read as. A
// longer one — or one so long it would overflow, such as
// "Retry-After: 99999999999999" — is read as exactly this, so it can only
// ever be refused as too long, never wrap around to a short wait.
const MaxRetryAfter = 24 * time.Hour

// RetryAfterSeconds reads a Retry-After value given in seconds (digits
// only). ok is false when v is not such a number (it may be an HTTP date);
// a value beyond MaxRetryAfter, however many digits, is MaxRetryAfter.
func RetryAfterSeconds(v string) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, false
	}
	v = strings.TrimLeft(v, "0")
	limit := strconv.Itoa(int(MaxRetryAfter / time.Second))
	if len(v) > len(limit) || len(v) == len(limit) && v > limit {
		return MaxRetryAfter, true
	}
	secs, _ := strconv.Atoi("0" + v)
	return time.Duration(secs) * time.Second, true
}

// Error is a provider failure phrased for a learner. Message is a full
// sentence that says what happened and what to do; Err keeps the SDK's error
// for errors.As.
type Error struct {
	Kind    ErrorKind
	Status  int    // HTTP status, 0 if none
	Message string // learner-facing sentence
	// RetryAfter is the delay the service asked for (Retry-After header or
	// Gemini RetryInfo.retryDelay); zero when it named none.
	RetryAfter time.Duration
	Err        error

	// format and args are what Message was made from (Errorf, Sayf), so a
	// front end can say it in another language (history/sentence).
	format string
	args   []any
}

var _ sentence.Said = (*Error)(nil)

// Sentence is the format and values Message was made from; "" when Message
// was set directly.
func (e *Error) Sentence() (string, []any) {
	if e.format == "" || e.Message != fmt.Sprintf(e.format, e.args...) {
		return "", nil // Message was changed after it was said
	}
	return e.format, e.args
}

// Sayf sets Message from a format and values, keeping both (Sentence).
func (e *Error) Sayf(format string, args ...any) {
	e.Message, e.format, e.args = fmt.Sprintf(format, args...), format, args
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// Transient reports whether retrying the same request may succeed.
func (e *Error) Transient() bool {
	switch e.Kind {
	case KindRateLimit, KindUnavailable, KindNetwork:
		return true
	}
	return false
}

// AsError returns err as a *Error, wrapping an unknown error as KindOther.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Kind: KindOther, Message: err.Error(), Err: err}
}

// Errorf builds an *Error with a formatted message.
func Errorf(kind ErrorKind, status int, cause error, format string, args ...any) *Error {
	e := &Error{Kind: kind, Status: status, Err: cause}
	e.Sayf(format, args...)
	return e
}

// RetryAfterOf reads the Retry-After header of x's response: a number of
// seconds or an HTTP date. Zero when x is nil or the server named no delay.
func RetryAfterOf(x *Exchange, now time.Time) time.Duration {
	if x == nil {
		return 0
	}
	var value string
	for name, values := range x.ResponseHeaders {
		if strings.EqualFold(name, "Retry-After") && len(values) > 0 {
			value = strings.TrimSpace(values[0])
			break
		}
	}
	if value == "" {
		return 0
	}
	if d, ok := RetryAfterSeconds(value); ok {
		return d
	}
	if when, err := http.ParseTime(value); err == nil {
		if d := when.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// StatusOf is the HTTP status of an exchange, 0 when there was none.
func StatusOf(x *Exchange) int {
	if x == nil {
		return 0
	}
	return x.Status
}

// StatusFailure phrases the HTTP error statuses every API answers alike:
// 429 (with the delay the response asked for), 5xx, another 4xx, anything
// else. who names the server in the sentence ("Ollama at http://…"), said
// is the server's own words in parentheses ("" when it said nothing).
func StatusFailure(who string, status int, said string, cause error, last *Exchange) *Error {
	switch {
	case status == http.StatusTooManyRequests:
		e := Errorf(KindRateLimit, status, cause, "%s is rate limiting requests (429)%s — wait a moment and try again.", who, said)
		e.RetryAfter = RetryAfterOf(last, time.Now())
		return e
	case status >= 500:
		e := Errorf(KindUnavailable, status, cause,
			"%s could not answer (%d %s)%s — it may be overloaded or still loading the model; try again shortly.", who, status, http.StatusText(status), said)
		e.RetryAfter = RetryAfterOf(last, time.Now())
		return e
	case status >= 400:
		return Errorf(KindBadRequest, status, cause, "%s rejected the request (%d %s)%s.", who, status, http.StatusText(status), said)
	}
	return Errorf(KindOther, status, cause, "%s answered %d%s.", who, status, said)
}
