package glassbox

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// followFrom is a Follow that hands out ts in batches of the given sizes
// (a follower that keeps up, then one that lags), then says the run ended.
func followFrom(ts []loop.Transition, batches ...int) *Follow {
	return &Follow{Who: "instructor", Next: func(context.Context) (FollowBatch, bool) {
		if len(ts) == 0 {
			return FollowBatch{}, false
		}
		n := len(ts)
		if len(batches) > 0 {
			n, batches = min(batches[0], len(ts)), batches[1:]
		}
		out := ts[:n]
		ts = ts[n:]
		return FollowBatch{Transitions: out}, true
	}}
}

func seqs(ts []loop.Transition) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.Seq)
	}
	return out
}

// The instructor steps the tour; everything they take reaches the follower's
// glass box in order — one at a time and in a lagging batch — and the
// follower's History says what the instructor's says.
func TestFollowerSeesEveryTransitionInOrder(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	var sent []loop.Transition
	cfg.OnTransition = func(t loop.Transition) { sent = append(sent, t) }
	cfg.Status = func() (string, string) { return "followers", "2" }
	inst := newHarness(t, cfg, 160, 48)
	inst.press("enter")
	inst.stepUntil(loop.DeliveringOutput)
	inst.press("space")
	contains(t, inst.plainView(), "followers 2")
	if len(sent) != 14 {
		t.Fatalf("the instructor's glass box published %d transitions, want 14", len(sent))
	}

	f := newHarness(t, Config{
		Runs:   []RunConfig{{Banner: "following", Backend: "offline", Past: sent[:2]}},
		Follow: followFrom(slices.Clone(sent[2:]), 1, 1, 1, 9), NoColor: true,
		Status: func() (string, string) { return "FOLLOWING", "the instructor" },
	}, 160, 48)
	f.send(f.m.Init()())
	var got []loop.Transition
	for _, s := range f.m.runs[0].live.steps {
		got = append(got, s.t)
	}
	if !slices.Equal(seqs(got), seqs(sent)) {
		t.Fatalf("the follower has steps %v, the instructor took %v", seqs(got), seqs(sent))
	}
	v := f.plainView()
	for _, want := range []string{"▸ → list_files", "▸ ← read_file", "hello.py prints a greeting", "answer delivered to ui",
		"FOLLOWING the instructor", "state WAITING_FOR_EVENT", "the instructor's run has ended"} {
		contains(t, v, want)
	}
	if f.m.inputFocused {
		t.Fatal("a follower's input line has the keyboard")
	}
}

// A follower goes back in time on their own copy while new steps arrive;
// a stepping key catches up; nothing they type reaches anyone.
func TestFollowerIsReadOnlyAndCatchesUp(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	var sent []loop.Transition
	cfg.OnTransition = func(t loop.Transition) { sent = append(sent, t) }
	inst := newHarness(t, cfg, 160, 48)
	inst.press("enter")
	inst.stepUntil(loop.DeliveringOutput)

	more := make(chan []loop.Transition, 1)
	f := newHarness(t, Config{
		Runs: []RunConfig{{Banner: "following", Backend: "offline", Past: sent[:5]}},
		Follow: &Follow{Who: "instructor", Next: func(context.Context) (FollowBatch, bool) {
			select {
			case ts := <-more:
				return FollowBatch{Transitions: ts}, true
			default: // the instructor's run ended
				return FollowBatch{}, false
			}
		}},
		NoColor: true,
	}, 160, 48)
	f.press("[", "[")
	at := f.m.runs[0].live.selectedIndex()
	if !f.m.runs[0].live.travelling() {
		t.Fatal("[ did not go back in time")
	}
	more <- sent[5:]
	f.send(f.m.room.followCmd()())
	if !f.m.runs[0].live.travelling() || f.m.runs[0].live.selectedIndex() != at {
		t.Fatal("new steps moved a follower who was looking at a past step")
	}
	if n := len(f.m.runs[0].live.steps); n != len(sent) {
		t.Fatalf("the follower has %d steps, want %d", n, len(sent))
	}
	contains(t, f.plainView(), "space catches up")
	notContains(t, f.plainView(), "f forks")
	f.press("space")
	if f.m.runs[0].live.travelling() {
		t.Fatal("space did not catch up")
	}
	contains(t, f.plainView(), "caught up")
	for _, k := range []string{"f", "A", "/", "l", "c"} {
		f.press(k)
		if f.m.inputFocused || f.m.top() != nil {
			t.Fatalf("%q opened something in a read-only glass box", k)
		}
	}
	f.typeText("rm -rf everything")
	if f.m.inputFocused || strings.Contains(f.m.input.Value(), "rm") {
		t.Fatal("typing reached a follower's input")
	}
	contains(t, f.plainView(), "read-only: you follow the instructor's run")
	if w.eng.QueueLen() != 0 {
		t.Fatal("a follower's key reached the instructor's engine")
	}
}

// The instructor's status bar counts followers: Config.Changed wakes the
// glass box when the count moves, so the frame is drawn again.
func TestStatusSegmentRedrawsWhenChanged(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	n := 0
	ch := make(chan struct{}, 1)
	cfg.Status = func() (string, string) { return "followers", strconv.Itoa(n) }
	cfg.Changed = ch
	h := newHarness(t, cfg, 160, 48)
	contains(t, h.plainView(), "followers 0")
	n = 3
	ch <- struct{}{}
	msg := h.m.room.changedCmd()()
	if _, ok := msg.(changedMsg); !ok {
		t.Fatalf("Changed delivered %T, want changedMsg", msg)
	}
	next, cmd := h.m.Update(msg)
	if cmd == nil {
		t.Fatal("the glass box stopped listening to Changed")
	}
	if v := ansi.Strip(next.(*Model).View()); !strings.Contains(v, "followers 3") {
		t.Fatal("the status bar did not show the new count")
	}
}

// The instructor's glass box tells OnWire the model call in flight each
// time it grows: the request as it went out, then every chunk of the reply.
func TestInstructorPublishesTheCallInFlight(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	var wired []providers.Exchange
	cfg.OnWire = func(ex providers.Exchange) { wired = append(wired, ex) }
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space") // send; new_event; context_ready
	if len(wired) != 0 {
		t.Fatalf("%d wire events before any model call", len(wired))
	}
	h.press("space") // the provider call
	if len(wired) < 2 {
		t.Fatalf("OnWire heard %d times; want the request and at least one chunk", len(wired))
	}
	if len(wired[0].Chunks) != 0 || wired[0].Method != "POST" {
		t.Fatalf("the first wire event is not the request as it went out: %d chunks, method %q", len(wired[0].Chunks), wired[0].Method)
	}
	for i := 1; i < len(wired); i++ {
		if len(wired[i].Chunks) != i {
			t.Fatalf("wire event %d has %d chunks, want %d (one more each time)", i, len(wired[i].Chunks), i)
		}
	}
}

// A follower sees the instructor's model call stream in: the Raw payload
// pane shows the call in flight as the instructor's does, the latest one
// handed over replacing the one before, and the step's record replaces it
// once the transition arrives.
func TestFollowerSeesTheCallStreamIn(t *testing.T) {
	cfg, _ := offlineWorld(t, "tour")
	var sent []loop.Transition
	var wired []providers.Exchange
	cfg.OnTransition = func(t loop.Transition) { sent = append(sent, t) }
	cfg.OnWire = func(ex providers.Exchange) { wired = append(wired, ex) }
	inst := newHarness(t, cfg, 160, 48)
	inst.press("enter", "space", "space", "space")
	if len(sent) != 3 || len(wired) < 2 {
		t.Fatalf("the instructor took %d steps with %d wire events", len(sent), len(wired))
	}
	f := newHarness(t, Config{
		Runs:    []RunConfig{{Banner: "following", Backend: "offline", Past: sent[:2]}},
		Follow:  &Follow{Who: "instructor", Next: func(context.Context) (FollowBatch, bool) { return FollowBatch{}, false }},
		NoColor: true,
	}, 160, 48)
	deliver := func(b FollowBatch) { // what Next hands over; its next wait is not run
		next, _ := f.m.Update(followMsg{b: b, ok: true})
		f.m = next.(*Model)
	}
	f.press("tab", "tab", "tab") // the Raw payload pane has the keys
	first, last := wired[0], wired[len(wired)-1]
	deliver(FollowBatch{Live: &first})
	contains(t, f.plainView(), "live · request (r)")
	contains(t, f.plainView(), "POST http://gemini.offline.invalid/v1beta/models/gemini-2.5-f")
	deliver(FollowBatch{Live: &last})
	contains(t, f.plainView(), fmt.Sprintf("%d chunk%s arrived", len(last.Chunks), plural(len(last.Chunks))))
	deliver(FollowBatch{Transitions: sent[2:3]})
	v := f.plainView()
	notContains(t, v, "live · ")
	contains(t, v, "▶ tool_call")
}
