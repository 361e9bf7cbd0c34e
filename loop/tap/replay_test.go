package tap_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
)

// A tap's cassette is played back through a tap with no agent and no
// network: the same steps, held and stepped as the agent's were, and the
// same replies.
func TestReplayTapCassette(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tap.cassette")
	w, err := providers.NewCassetteWriter(path, providers.CassetteHeader{Provider: tap.CassetteProvider})
	if err != nil {
		t.Fatal(err)
	}
	x := startTap(t, tap.Options{Upstream: tap.Offline, Mode: tap.Running, OnExchange: func(e providers.Exchange) { w.Write(e) }})
	calls, answer := playGeminiCLI(t, x, "read hello.py")
	post(t, x.URL, "/v1/responses", `{"input":"hi"}`)
	want := "new_event context_ready tool_call allow* tool_success* observed context_ready final_answer delivered* new_event context_ready llm_failure reported*"
	x.waitEdges(t, want)
	waitFor(t, "the cassette", func() bool { c, err := providers.LoadCassette(path); return err == nil && len(c.Exchanges) == 3 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !tap.IsCassette(path) {
		t.Fatal("a tap's cassette is not recognised")
	}
	c, err := providers.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := tap.Replay(ctx, c, tap.Options{Mode: tap.Stepping})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var steps []string
	var notes []string
	held := map[int]bool{}
	for {
		n, ok := r.Next(ctx)
		if !ok {
			t.Fatal("the replay ended early")
		}
		for _, e := range n.Events {
			if e.Step != nil {
				steps = append(steps, edges([]loop.Transition{*e.Step}))
				if e.Step.LLM != nil && e.Step.LLM.Text != "" && !strings.Contains(e.Step.LLM.Text, "hello") {
					t.Fatalf("the replayed answer is %q", e.Step.LLM.Text)
				}
			} else {
				notes = append(notes, e.Note.Error())
			}
		}
		if len(n.Holds) > 0 {
			held[n.Holds[0].ID] = true
			r.Step()
		}
		if len(notes) > 0 && strings.Contains(notes[len(notes)-1], "the recording ends here") {
			break
		}
	}
	if got := strings.Join(steps, " "); got != want {
		t.Fatalf("replayed\n got %s\nwant %s", got, want)
	}
	if len(held) != 4 || len(calls) != 1 || !strings.Contains(answer, "hello") {
		t.Fatalf("%d holds (want a request and a reply for each of 2 calls), calls %v", len(held), calls)
	}
}
