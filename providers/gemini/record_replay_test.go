package gemini

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// conversation runs the two-call tool conversation and returns both replies.
func conversation(t *testing.T, p *Provider, question string) []*providers.Response {
	t.Helper()
	tools := []history.ToolSpec{{Name: "now", Description: "The current time."}}
	msgs := []history.Message{{Role: history.RoleUser, Text: question}}
	first, err := p.Call(context.Background(), providers.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, first.Message, history.Message{Role: history.RoleTool, Result: &history.ToolResult{Name: "now", Content: "2026-11-21"}})
	second, err := p.Call(context.Background(), providers.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return []*providers.Response{first, second}
}

// TestRecordThenReplay records a live-like session into a cassette through
// Config.OnExchange, then replays it with ReplayTransport as Config.Transport:
// the SDK parses the recorded bytes into the same replies.
func TestRecordThenReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "days.cassette.jsonl")
	writer, err := providers.NewCassetteWriter(path, providers.CassetteHeader{Provider: Name, Model: DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeGemini(t,
		reply{file: "resp_functionCall_thoughtSignature_STOP_usage__firebase_googleai.json"},
		reply{file: "resp_text_STOP__firebase_googleai.json"})
	live := newTestProvider(t, f, Config{OnExchange: func(ex providers.Exchange) {
		if err := writer.Write(ex); err != nil {
			t.Error(err)
		}
	}})
	const question = "How many days until New Year's Eve?"
	recorded := conversation(t, live, question)
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}

	cassette, err := providers.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cassette.Exchanges) != 2 || cassette.Header.Provider != "gemini" {
		t.Fatalf("cassette holds %d exchanges from %q, want 2 from gemini", len(cassette.Exchanges), cassette.Header.Provider)
	}

	t.Run("the same conversation replays identically", func(t *testing.T) {
		replay := providers.NewReplayTransport(cassette)
		p := newTestProvider(t, nil, Config{APIKey: "another-key-9999", BaseURL: "http://replay.invalid", Transport: replay})
		replayed := conversation(t, p, question)
		for i := range recorded {
			if !reflect.DeepEqual(replayed[i].Message, recorded[i].Message) || replayed[i].StopReason != recorded[i].StopReason || replayed[i].Usage != recorded[i].Usage {
				t.Errorf("reply %d differs on replay:\n got %+v\nwant %+v", i+1, replayed[i].Message, recorded[i].Message)
			}
			if d := replayed[i].Exchanges[0].Divergence; d != "" {
				t.Errorf("reply %d flagged a divergence: %s", i+1, d)
			}
			// The stream replays event by event, with the recorded times.
			got, want := replayed[i].Exchanges[0], recorded[i].Exchanges[0]
			if !reflect.DeepEqual(got.Chunks, want.Chunks) || got.TTFB != want.TTFB || got.Total != want.Total {
				t.Errorf("reply %d replayed %d chunks (ttfb %v, total %v), want the recorded %d with their times (ttfb %v, total %v)",
					i+1, len(got.Chunks), got.TTFB, got.Total, len(want.Chunks), want.TTFB, want.Total)
			}
		}
		if d := replay.Divergences(); len(d) != 0 {
			t.Errorf("Divergences = %q, want none", d)
		}

		_, err := p.Call(context.Background(), userSays("one more"))
		var pe *providers.Error
		want := "the cassette has no recorded exchange #3 for POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, want) {
			t.Errorf("error = %v, want one starting %q", err, want)
		}
	})

	t.Run("a different question is served but flagged", func(t *testing.T) {
		replay := providers.NewReplayTransport(cassette)
		p := newTestProvider(t, nil, Config{BaseURL: "http://replay.invalid", Transport: replay})
		resp, err := p.Call(context.Background(), providers.Request{
			Messages: []history.Message{{Role: history.RoleUser, Text: "How many days until my birthday?"}},
			Tools:    []history.ToolSpec{{Name: "now", Description: "The current time."}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StopReason != providers.StopToolUse {
			t.Errorf("stop reason %s, want the recorded tool call served anyway", resp.StopReason)
		}
		want := "request body differs from recording #1 at contents[0].parts[0].text"
		if got := resp.Exchanges[0].Divergence; got != want {
			t.Errorf("Exchange.Divergence = %q, want %q", got, want)
		}
		if got := replay.Divergences(); len(got) != 1 || got[0] != want {
			t.Errorf("Divergences = %q, want [%q]", got, want)
		}
	})
}
