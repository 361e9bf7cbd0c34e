package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func TestApprovalAnswers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want loop.Approval
	}{
		{"y", loop.AllowOnce}, {"YES", loop.AllowOnce}, {" はい ", loop.AllowOnce}, {"許可", loop.AllowOnce}, {"ｙ", loop.AllowOnce},
		{"a", loop.AllowSession}, {"always", loop.AllowSession}, {"常に", loop.AllowSession}, {"いつも", loop.AllowSession}, {"Ａ", loop.AllowSession},
		{"n", loop.Deny}, {"いいえ", loop.Deny}, {"拒否", loop.Deny}, {"", loop.Deny}, {"yes please", loop.Deny}, {"はいはい", loop.Deny},
	} {
		if got := approval(tc.in); got != tc.want {
			t.Errorf("approval(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// transitions is one of every kind of step line the human trace prints.
func transitions() []loop.Transition {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	call := &history.ToolCall{Name: "write_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}
	return []loop.Transition{
		{Seq: 1, Time: now, From: loop.WaitingForEvent, Edge: loop.EdgeNewEvent, To: loop.AssemblingContext, Event: &loop.Event{Source: "cli", Type: "user_input", Data: "write notes"}},
		{Seq: 2, Time: now, From: loop.AssemblingContext, Edge: loop.EdgeContextReady, To: loop.AwaitingLLMResponse, Iteration: 1, HistoryLen: 1},
		{Seq: 3, Time: now, From: loop.CheckingPolicy, Edge: loop.EdgeConfirmRequired, To: loop.AwaitingUserConfirmation, Tool: call,
			Decision: &loop.Decision{Verdict: loop.RequireConfirm, Rule: "write_needs_confirmation", Reason: "writes a file"}},
		{Seq: 4, Time: now, From: loop.ExecutingTool, Edge: loop.EdgeToolSuccess, To: loop.RecordingResult, Tool: call, Result: &loop.ResultRecord{Content: "wrote 5 bytes", DurationMS: 3}},
		{Seq: 5, Time: now, From: loop.RecordingResult, Edge: loop.EdgeObserved, To: loop.AssemblingContext, Tool: call, Result: &loop.ResultRecord{Content: "wrote 5 bytes"}},
	}
}

// The human trace speaks the chosen language; the names it shows (tags,
// states, edges, rules, tools) and the JSONL trace do not change.
func TestTraceLanguage(t *testing.T) {
	print := func(l lang.Lang, json bool) string {
		var out bytes.Buffer
		p := printer{o: Options{Lang: l, JSON: json}, out: &out, runs: []*agentrun.Run{{}}}
		for _, tr := range transitions() {
			if err := p.round([]*loop.Transition{&tr}); err != nil {
				t.Fatal(err)
			}
		}
		return out.String()
	}
	if en, ja := print(lang.EN, true), print(lang.JA, true); en != ja || en == "" {
		t.Fatalf("the JSONL trace differs by language:\nen: %s\nja: %s", en, ja)
	}
	en, ja := print(lang.EN, false), print(lang.JA, false)
	for _, want := range []string{"context assembled (1 message + tool definitions)", "(rule write_needs_confirmation: writes a file)", "write_file → ok in 3 ms", "added to context → back to the model"} {
		if !strings.Contains(en, want) {
			t.Errorf("English trace lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"コンテキストを組み立てました(メッセージ 1 件 + ツール定義)", "(ルール write_needs_confirmation: writes a file)", "write_file → 成功(3 ms)", "コンテキストに追加 → モデルへ戻ります"} {
		if !strings.Contains(ja, want) {
			t.Errorf("Japanese trace lacks %q:\n%s", want, ja)
		}
	}
	for _, name := range []string{"[EVENT]", "[THINK]", "[POLICY]", "[ACT]", "[OBSERVE]", "--context_ready-->", "CHECKING_POLICY --confirm_required--> AWAITING_USER_CONFIRMATION", "REQUIRE_USER_CONFIRMATION"} {
		if !strings.Contains(ja, name) {
			t.Errorf("the Japanese trace lost the name %q:\n%s", name, ja)
		}
	}
	for _, english := range []string{"context assembled", "added to context", "tool definitions"} {
		if strings.Contains(ja, english) {
			t.Errorf("English %q left in the Japanese trace:\n%s", english, ja)
		}
	}
}

// The prompts to the person are in their language; a Japanese answer
// approves.
func TestPersonAsksInJapanese(t *testing.T) {
	var out bytes.Buffer
	p := NewPersonIn(strings.NewReader("はい\n"), &out, lang.JA)
	got, err := p.Confirm(t.Context(), loop.ConfirmRequest{
		Call:     history.ToolCall{Name: "write_file", Args: json.RawMessage(`{"path":"a"}`)},
		Decision: loop.Decision{Verdict: loop.RequireConfirm, Rule: "write_needs_confirmation", Reason: "writes a file"},
	})
	if err != nil || got != loop.AllowOnce {
		t.Fatalf("Confirm = %v, %v; want AllowOnce", got, err)
	}
	for _, want := range []string{"エージェントが write_file {\"path\":\"a\"} を実行しようとしています", "ルール write_needs_confirmation: writes a file", "許可しますか?", "はい"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the prompt lacks %q:\n%s", want, out.String())
		}
	}
}

// A built-in rule's reason reads in the trace's language, what the rule
// matched after it stays as it is, and a --policy author's reason stays as
// written; the JSONL trace keeps the English (loop.WriteJSON never calls Say).
func TestRuleReasonsInTheTraceLanguage(t *testing.T) {
	p := loop.DefaultPolicy()
	var builtIn string
	for _, r := range p.Rules {
		if r.Name == "read-only-tools" {
			builtIn = r.Reason
		}
	}
	if builtIn == "" {
		t.Fatal("the built-in policy has no read-only-tools rule")
	}
	ja, ok := lang.JA.Dyn(builtIn), lang.Has(builtIn)
	if !ok {
		t.Fatalf("no Japanese for the built-in reason %q", builtIn)
	}
	for _, c := range []struct {
		reason string
		l      lang.Lang
		want   string
	}{
		{builtIn, lang.JA, "(ルール read-only-tools: " + ja + ")"},
		{builtIn + " (matched notes/x)", lang.JA, "(ルール read-only-tools: " + ja + " (matched notes/x))"},
		{"our own workshop rule", lang.JA, "(ルール read-only-tools: our own workshop rule)"},
		{builtIn, lang.EN, "(rule read-only-tools: " + builtIn + ")"},
	} {
		tr := loop.Transition{
			Seq: 4, From: loop.CheckingPolicy, Edge: loop.EdgeAllow, To: loop.ExecutingTool,
			Tool:     &history.ToolCall{Name: "list_files", Args: []byte(`{"path":"."}`)},
			Decision: &loop.Decision{Verdict: loop.Allow, Rule: "read-only-tools", Reason: c.reason},
		}
		if got := loop.HumanIn(tr, sayIn(c.l)); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s %q:\n got %q\nwant it to end with %q", c.l, c.reason, got, c.want)
		}
	}
}
