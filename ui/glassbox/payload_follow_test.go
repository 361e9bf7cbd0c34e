package glassbox

import (
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
)

// At AWAITING_LLM_RESPONSE the request is assembled but not sent: the Raw
// payload pane shows it as the SDK will send it, and the exchange that the
// next space makes carries exactly that body.
func TestPayloadShowsTheRequestBeforeItIsSent(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space") // new_event, context_ready
	r := h.m.runs[0]
	if r.live.state != loop.AwaitingLLMResponse {
		t.Fatalf("state %s", r.live.state)
	}
	v := h.plainView()
	contains(t, v, "Not sent yet")
	contains(t, v, "not sent yet · request (r)")
	contains(t, v, "streamGenerateContent")
	contains(t, v, `"contents"`)
	pre := r.live.selected().preview
	if pre == nil || pre.err != nil || len(pre.ex.RequestBody) == 0 {
		t.Fatalf("no preview: %+v", pre)
	}

	h.press("space") // the call goes out; the reply decided tool_call
	s := r.live.selected()
	if s.t.Edge != loop.EdgeToolCall || len(s.t.Exchanges) != 1 {
		t.Fatalf("edge %s, %d exchanges", s.t.Edge, len(s.t.Exchanges))
	}
	if got, want := string(s.t.Exchanges[0].RequestBody), string(pre.ex.RequestBody); got != want {
		t.Fatal("the request sent differs from the one previewed")
	}
	// A step the reply decided opens the pane on the response.
	v = h.plainView()
	contains(t, v, "response (r)")
	notContains(t, v, "Not sent yet")

	// Back in time to context_ready: the request it assembled is there
	// again, as the one the next step sent (space returns, it sends nothing).
	h.press("esc", "[")
	contains(t, h.plainView(), "as assembled · request (r)")
	notContains(t, h.plainView(), "Not sent yet")
}
