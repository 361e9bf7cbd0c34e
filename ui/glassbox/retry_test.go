package glassbox

import (
	"context"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
)

// A retry is on screen while the engine waits, not only once the step is
// over: the engine's OnRetry hook reaches the UI through the step's wait.
func TestRetryIsShownWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	wait := func(ctx context.Context, d time.Duration) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	cfg, _ := offlineWorldWith(t, "rate-limit", loop.Config{Sleep: wait})
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space") // send; new_event; context_ready

	var seenRetry bool
	var screenWhileWaiting string
	h.normalize = func(msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case retryMsg:
			seenRetry = true
			once.Do(func() { close(release) }) // the engine may go on once the UI has heard
		case stepDoneMsg:
			if seenRetry && screenWhileWaiting == "" {
				screenWhileWaiting = h.plainView() // still the frame from before the step ended
			}
		}
		return msg
	}
	h.press("space") // the provider call: 429, retry, success
	if !seenRetry {
		t.Fatal("no retry message reached the UI")
	}
	contains(t, screenWhileWaiting, "retry 1: HTTP 429 — waiting 1s before trying again")
	if got := h.edges(); got[len(got)-1] != loop.EdgeFinalAnswer {
		t.Fatalf("edges %v, want the call to end in final_answer after the retry", got)
	}
}

// The payload pane shows the provider call while it is in flight: the
// request as it went out and the response chunks as they arrive.
func TestPayloadIsShownLiveWhileTheCallIsInFlight(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space") // send; new_event; context_ready

	var requests, chunks int
	var screen string
	h.normalize = func(msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case wireRequestMsg:
			requests++
		case wireChunkMsg:
			chunks++
		case stepDoneMsg:
			if screen == "" {
				screen = h.plainView() // the last live frame, before the record replaces it
			}
		}
		return msg
	}
	h.press("space") // the provider call
	if requests != 1 || chunks == 0 {
		t.Fatalf("wire events: %d requests, %d chunks", requests, chunks)
	}
	contains(t, screen, "live · request (r)")
	contains(t, screen, "POST http://gemini.offline.invalid/v1beta/models/gemini-2.5-f")
	contains(t, screen, "receiving…")
	after := h.plainView()
	notContains(t, after, "live · ")
	contains(t, after, "▶ tool_call") // the record, scrolled to the functionCall that decided the edge

	// The next step is not a provider call: nothing is watched live.
	requests, chunks = 0, 0
	h.press("space")
	if requests != 0 || chunks != 0 {
		t.Fatalf("a policy step produced wire events: %d, %d", requests, chunks)
	}
}
