package providers

import (
	"testing"
	"time"
)

// Issue 12 item 11: a huge Retry-After is read as the cap, never as a wrapped
// short wait (99999999999999 seconds used to overflow to "wait 55660h").
func TestRetryAfterSecondsClamps(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"0": 0, "7": 7 * time.Second, " 120 ": 2 * time.Minute, "86400": MaxRetryAfter,
		"86401": MaxRetryAfter, "99999999999999": MaxRetryAfter, "999999999999999999999999999": MaxRetryAfter,
		"000000000000000000000000000042": 42 * time.Second,
	} {
		if got, ok := RetryAfterSeconds(v); !ok || got != want {
			t.Errorf("RetryAfterSeconds(%q) = %v, %v; want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-5", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT"} {
		if _, ok := RetryAfterSeconds(v); ok {
			t.Errorf("RetryAfterSeconds(%q) read it as seconds", v)
		}
	}
}
