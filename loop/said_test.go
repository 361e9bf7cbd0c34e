package loop

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
)

// A provider failure keeps its sentence beside the message (for a front
// end in another language), with every secret masked as the message is,
// and the loop's own additions said too.
func TestFailureKeepsItsSentenceMasked(t *testing.T) {
	const key = "AIzaSy-secret-key-4242"
	rl := providers.Errorf(providers.KindRateLimit, 429, nil, "%s is rate limiting requests (429)%s — wait a moment and try again.", "key "+key, "")
	rl.RetryAfter = 10 * time.Minute
	f := newFixture(t, 0, reply{err: rl})
	f.engine.mask = providers.NewMasker(key)
	_, ts := f.run(t, "hi")
	rec := ts[2].Error
	if rec == nil || rec.Said == nil {
		t.Fatalf("error record %+v: no sentence", rec)
	}
	said := rec.Said.Error()
	if strings.Contains(said, key) || strings.Contains(rec.Message, key) {
		t.Fatalf("the key reached the failure: %q / %q", said, rec.Message)
	}
	for _, want := range []string{"key [REDACTED] is rate limiting requests", "(the service asked to wait 10m0s, longer than", "; no reply came back for this request"} {
		if !strings.Contains(said, want) || !strings.Contains(rec.Message, want) {
			t.Errorf("sentence %q / message %q: want %q in both", said, rec.Message, want)
		}
	}
	var s sentence.Said
	if !errors.As(rec.Said, &s) {
		t.Fatal("the failure's sentence is not one")
	}
}

// A provider error that is no sentence leaves Said nil: the front end
// shows the message.
func TestFailureWithoutASentence(t *testing.T) {
	f := newFixture(t, 0, reply{err: fmt.Errorf("plain")})
	_, ts := f.run(t, "hi")
	if rec := ts[2].Error; rec == nil || rec.Said != nil || !strings.Contains(rec.Message, "plain") {
		t.Fatalf("error record %+v", rec)
	}
}
