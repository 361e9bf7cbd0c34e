package role

import (
	"strings"
	"testing"

	registry "github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// The way to go live is Japanese on a Japanese screen, with the commands
// and flags as they are; English is the registry's own sentence.
func TestGoLiveInJapanese(t *testing.T) {
	got := Flags(lang.JA)
	for _, want := range []string{"GEMINI_API_KEY を設定 (Gemini)", "serve を起動 (Llama)", "OPENAI_BASE_URL を設定 (OpenAI 互換サーバー)", "を付けて起動します"} {
		if !strings.Contains(got, want) {
			t.Errorf("Flags(JA) = %q, want it to contain %q", got, want)
		}
	}
	if Flags(lang.EN) != registry.GoLive() {
		t.Errorf("Flags(EN) = %q, want registry.GoLive()", Flags(lang.EN))
	}
}

// What each role may do is one table, and what each is told follows from
// it: a follower may only look and catch up, and is told nothing of
// requests, steps or going live; a learner is told to ask the instructor,
// never of flags; the backend's reason is the instructor's choice to both.
func TestEachRoleIsToldWhatItMayDo(t *testing.T) {
	for _, l := range lang.All {
		if Follower.May(Send) || Follower.May(Step) || Follower.May(Change) || !Follower.May(CatchUp) {
			t.Fatal("a follower may send, step or change the run, or may not catch up")
		}
		if !Instructor.May(Roster) || Learner.May(Roster) || Local.May(Roster) {
			t.Fatal("the roster is not the instructor's alone")
		}
		if Follower.GoLive(l) != "" {
			t.Errorf("%s: a follower is told how to go live: %q", l, Follower.GoLive(l))
		}
		for _, r := range []Role{Learner, Follower} {
			if got := r.GoLive(l); strings.Contains(got, "--") || strings.Contains(got, "GEMINI_API_KEY") || strings.Contains(got, "go run") {
				t.Errorf("%s %s is told of flags: %q", l, r, got)
			}
			if got := r.BackendReason(l, "--offline"); strings.Contains(got, "--offline") {
				t.Errorf("%s %s reads the instructor's flag as the reason: %q", l, r, got)
			}
		}
		if got := Local.BackendReason(l, "--offline"); got != "--offline" {
			t.Errorf("%s: one's own flag is not the reason: %q", l, got)
		}
		for _, r := range []Role{Local, Instructor} {
			if !strings.Contains(r.GoLive(l), "--provider") {
				t.Errorf("%s %s is not told the flags: %q", l, r, r.GoLive(l))
			}
		}
		fm := Follower.FirstMoves(l)
		for _, never := range []string{l.T("type a request"), "Enter", "c "} {
			if strings.Contains(fm, never) {
				t.Errorf("%s: a follower's first moves say %q: %s", l, never, fm)
			}
		}
		if tu := Learner.TutorGoLive(); tu[l.String()] == "" {
			t.Errorf("%s: the tutor has nothing to tell a learner", l)
		}
		if len(Follower.TutorGoLive()) != 0 {
			t.Error("the tutor would tell a follower how to go live")
		}
	}
}

// One who steps through a trace file (glassbox open) replays it and
// changes nothing; one at a tap steps the agent's calls but sends none of
// its requests. Each is told its own words when a key is refused.
func TestReadersAndTappersMayWhatTheirGlassBoxDoes(t *testing.T) {
	if !Reader.May(Replay) || Reader.May(Send) || Reader.May(Step) || Reader.May(Change) {
		t.Fatal("a reader may not only replay")
	}
	if !Tapper.May(Step) || Tapper.May(Send) || Tapper.May(Lessons) || Tapper.May(Change) {
		t.Fatal("a tap may send, pick lessons or fork")
	}
	for _, l := range lang.All {
		if got := Reader.Refusal(l, Send, ""); !strings.Contains(got, l.T("read-only: this is a trace file, not a live agent (space steps · [ ] go back in time · q quits)")) {
			t.Errorf("%s: a reader is refused with %q", l, got)
		}
		if Reader.GoLive(l) != "" || Tapper.GoLive(l) != "" {
			t.Errorf("%s: a reader or a tap is told how to go live", l)
		}
		if got := Reader.BackendReason(l, "a trace file"); got != "a trace file" {
			t.Errorf("%s: a reader's backend reason is %q", l, got)
		}
	}
}
