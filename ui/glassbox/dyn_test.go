package glassbox

import (
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	registry "github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Every value the glass box shows through Lang.Dyn has Japanese: the
// catalog test reads T and F calls only, so each table and each value from
// another package that reaches Dyn is checked here.
func TestDynSentencesHaveJapanese(t *testing.T) {
	check := func(what string, keys ...string) {
		t.Helper()
		for _, k := range keys {
			if !lang.Has(k) {
				t.Errorf("%s %q has no Japanese", what, k)
			}
		}
	}
	for _, d := range registry.Dialects() {
		// The way to go live is a catalogue sentence around the dialect's
		// own words (dialect.GoLive.Say); its label is its own, in both
		// languages (backend's TestEveryDialectSaysItsWordsInJapanese).
		if !d.GoLive.Zero() {
			check("how to go live", "set %s (%s)", "run %s (%s)")
		}
	}
	for _, s := range []loop.CallStatus{loop.CallPending, loop.CallWaiting, loop.CallRunning, loop.CallDone, loop.CallFailed, loop.CallDenied, loop.CallSkipped} {
		check("the call status", string(s))
	}
	check("a built-in rule's reason", builtInReasons()...)
	check("whom a follower follows", "instructor")
	check("the serve side's status label", "followers")
	check("the sandbox", "on", "off")
	for _, r := range telemetry.Reasons {
		check("why spans were dropped", r.Short())
	}
	check("a what-if edit", "the loop's feedback", "the request", "the model's reply", "a tool result", "changed", "added", "removed")
	for _, marks := range decidingMarks {
		for _, mk := range marks {
			if len(mk) > 20 { // the pane's own words, not a JSON field name
				check("a deciding mark", mk)
			}
		}
	}
}

// The reasons the engine gives for a workspace that cannot go back read in
// Japanese; another reason is shown as the engine wrote it.
func TestWorkspaceReasonInJapanese(t *testing.T) {
	for in, want := range map[string]string{
		"step 6 ran a tool that may have changed files, and this run keeps no session to restore them from": "ステップ 6 でファイルを変えたかもしれないツールが動きましたが、この実行には元に戻すためのセッションがありません",
		"step 4 changed files glassbox kept no copy of (big.bin)":                                           "ステップ 4 が、glassbox が複製を取っていないファイルを変えました (big.bin)",
		"open x: permission denied": "open x: permission denied",
	} {
		if got := workspaceReason(lang.JA, in); got != want {
			t.Errorf("workspaceReason(JA, %q) = %q, want %q", in, got, want)
		}
		if got := workspaceReason(lang.EN, in); got != in {
			t.Errorf("workspaceReason(EN, %q) = %q", in, got)
		}
	}
}

// The reason each dialect gives for going offline with nothing configured
// (what a Japanese learner meets on the first screen) reads in Japanese,
// from the dialect's structured reason (backend.Backend.Why); a flag stays
// a flag, and so does a reason that is no longer the dialect's (a fork's).
func TestBackendReasonInJapanese(t *testing.T) {
	empty := dialect.NewEnv(func(string) string { return "" }, nil, nil)
	for _, d := range registry.Dialects() {
		_, why := d.Live(t.Context(), empty)
		r := &runView{reason: why.String(), why: why}
		got := r.reasonIn(lang.JA)
		if got == why.String() || len(englishRuns(got)) > 0 {
			t.Errorf("%s: reasonIn(JA) of %q = %q", d.Name, why, got)
		}
		if r.reasonIn(lang.EN) != why.String() {
			t.Errorf("%s: reasonIn(EN) = %q, want %q", d.Name, r.reasonIn(lang.EN), why)
		}
	}
	for _, tc := range []struct {
		reason string
		why    dialect.Reason
		want   string
	}{
		{"GEMINI_API_KEY is set", dialect.Sayf("%s is set", "GEMINI_API_KEY"), "GEMINI_API_KEY が設定されています"},
		{"OLLAMA_HOST is set (http://10.0.0.5:11434)", dialect.Sayf("%s is set (%s)", "OLLAMA_HOST", "http://10.0.0.5:11434"), "OLLAMA_HOST が設定されています (http://10.0.0.5:11434)"},
		{"Ollama answered at http://127.0.0.1:11434", dialect.Sayf("%s answered at %s", "Ollama", "http://127.0.0.1:11434"), "Ollama が http://127.0.0.1:11434 で応答しました"},
		{"--offline", dialect.Reason{}, "--offline"},
		{"--offline", dialect.Sayf("%s is set", "GEMINI_API_KEY"), "--offline"}, // forked since: the reason changed
	} {
		r := &runView{reason: tc.reason, why: tc.why}
		if got := r.reasonIn(lang.JA); got != tc.want {
			t.Errorf("reasonIn(JA) of %q = %q, want %q", tc.reason, got, tc.want)
		}
	}
}
