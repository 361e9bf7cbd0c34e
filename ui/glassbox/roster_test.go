package glassbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// sampleRoster is a room of three learners: two on step 4 of the tour
// (one right, one wrong), one on their own request, and two followers.
func sampleRoster() Roster {
	return Roster{Following: 2, Learners: []Seated{
		{Name: "ada", Seat: Seat{Lesson: "tour", State: loop.CheckingPolicy, Step: 4, Predicting: true,
			Scores: map[string]Score{"tour": {Right: 2, Total: 3}},
			Last:   Prediction{Lesson: "tour", Step: 4, From: loop.AwaitingLLMResponse, Edge: loop.EdgeToolCall, Took: loop.EdgeToolCall},
			Calls:  1, P50: 840 * time.Millisecond, Max: 840 * time.Millisecond}},
		{Name: "bo", Seat: Seat{Lesson: "tour", State: loop.AwaitingLLMResponse, Step: 3, Predicting: true,
			Scores: map[string]Score{"tour": {Right: 1, Total: 2}},
			Last:   Prediction{Lesson: "tour", Step: 4, From: loop.AwaitingLLMResponse, Edge: loop.EdgeFinalAnswer},
			Calls:  1, Retries: 2, Failures: 1, P50: 2300 * time.Millisecond, Max: 2300 * time.Millisecond}},
		{Name: "cy", Seat: Seat{State: loop.WaitingForEvent}},
		{Name: "名前のながい人", Seat: Seat{State: loop.WaitingForEvent}},
	}}
}

// The room's answers are each learner's latest prediction, grouped by
// lesson, step and the state it was made from; the biggest group first.
func TestRosterAnswersGroupByStep(t *testing.T) {
	r := sampleRoster()
	r.Learners = append(r.Learners, Seated{Name: "di", Seat: Seat{Lesson: "tour",
		Last: Prediction{Lesson: "tour", Step: 2, From: loop.AssemblingContext, Edge: loop.EdgeContextReady, Took: loop.EdgeContextReady}}})
	got := r.Answers()
	if len(got) != 2 {
		t.Fatalf("%d groups, want 2: %+v", len(got), got)
	}
	g := got[0]
	if g.Lesson != "tour" || g.Step != 4 || g.From != loop.AwaitingLLMResponse || g.Answers != 2 {
		t.Fatalf("first group %+v, want tour step 4 from AWAITING_LLM_RESPONSE with 2 answers", g)
	}
	if g.Chose[loop.EdgeToolCall] != 1 || g.Chose[loop.EdgeFinalAnswer] != 1 || g.Took[loop.EdgeToolCall] != 1 {
		t.Fatalf("first group's counts %v, took %v", g.Chose, g.Took)
	}
	if got[1].Step != 2 || got[1].Answers != 1 {
		t.Fatalf("second group %+v", got[1])
	}
}

// R opens the roster in the instructor's glass box: the learners, their
// health and the room's answers, live (a new roster is drawn at the next
// frame), read-only; esc closes it. Without a room R says whose it is.
func TestRosterKeyShowsTheRoomLive(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	room := sampleRoster()
	cfg.Room = &Room{Roster: func() Roster { return room }}
	h := newHarness(t, cfg, 160, 48)
	h.press("esc", "R")
	if !isOpen[*rosterDialog](h.m) {
		t.Fatal("R did not open the roster")
	}
	v := h.plainView()
	for _, want := range []string{
		"4 learners connected · 2 following you",
		"name       lesson         # now at                     score   calls retries fails    p50    max",
		"ada        tour          #4 CHECKING_POLICY            2/3         1       0     0  840ms  840ms",
		"bo         tour          #3 AWAITING_LLM_RESPONSE      1/2         1       2     1   2.3s   2.3s",
		"cy         own request    — WAITING_FOR_EVENT          —           0       0     0      —      —",
		"名前のな…  own request    — WAITING_FOR_EVENT          —           0       0     0      —      —",
		"tour · step 4 from AWAITING_LLM_RESPONSE — 2 answers",
		"tool_call             1 █  ✓ the loop took it (1)",
		"final_answer          1 █",
		"malformed_response    0",
	} {
		contains(t, v, want)
	}

	// Live: the next frame reads the room again.
	room.Learners = room.Learners[:1]
	h.send(changedMsg{})
	v = h.plainView()
	contains(t, v, "1 learner connected")
	notContains(t, v, "bo ")

	// Read-only: the stepping keys do nothing while it is open.
	before := h.m.runs[0].live.state
	h.press("space", "c")
	if h.m.runs[0].live.state != before || !isOpen[*rosterDialog](h.m) {
		t.Fatal("a key behind the roster stepped the run")
	}
	h.press("esc")
	if isOpen[*rosterDialog](h.m) {
		t.Fatal("esc did not close the roster")
	}

	plain := newHarness(t, newWorld(t, tourScript()...).config(), 120, 34)
	plain.press("esc", "R")
	contains(t, plain.plainView(), "R: the roster is the instructor's, in a served room")
}

// TestGoldenRoster pins the roster at the recommended 120×34 and a
// projector's 160×48. Regenerate with -update.
func TestGoldenRoster(t *testing.T) {
	for _, size := range [][2]int{{120, 34}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			w := newWorld(t, tourScript()...)
			cfg := w.config()
			cfg.Room = &Room{Roster: sampleRoster}
			h := newHarness(t, cfg, size[0], size[1])
			h.normalize = zeroDurations
			h.press("esc", "R")
			v := h.view()
			checkScreen(t, v, size[0], size[1])
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// A served glass box's seat says where its run is, what was predicted
// last and how the prediction went, the scores per lesson and the health.
func TestSeatFollowsPredictions(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.Predict = true
	h := newHarness(t, cfg, 120, 34)
	if s := h.m.Seat(); s.Step != 0 || s.Last.Step != 0 || !s.Predicting || s.Lesson != "tour" {
		t.Fatalf("the first seat %+v", s)
	}
	h.press("enter", "space", "space", "1", "space", "2")
	s := h.m.Seat()
	want := Prediction{Lesson: "tour", Step: 3, From: loop.AwaitingLLMResponse, Edge: loop.EdgeFinalAnswer, Took: loop.EdgeToolCall}
	if s.Last != want {
		t.Fatalf("last prediction %+v, want %+v", s.Last, want)
	}
	if s.Step != 3 || s.State != h.m.runs[0].live.state || s.Score() != (Score{Right: 1, Total: 2}) || s.Calls != 1 {
		t.Fatalf("seat %+v", s)
	}
	if s.Equal(Seat{}) || !s.Equal(h.m.Seat()) {
		t.Fatal("Equal does not tell seats apart")
	}
	s.Scores["tour"] = Score{} // the seat's map is its own
	if h.m.Seat().Score() != (Score{Right: 1, Total: 2}) {
		t.Fatal("a seat shares its scores with the glass box")
	}
}

// A served learner's scores from before go on: the lesson's score is
// where they left it, and the next prediction adds to it.
func TestPredictScoresFromTheRoom(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.Predict = true
	cfg.Room = &Room{Scores: map[string]Score{"tour": {Right: 2, Total: 3}, "": {Right: 1, Total: 1}}}
	h := newHarness(t, cfg, 160, 48)
	contains(t, h.plainView(), "predict 2/3 tour")
	h.press("enter", "space", "space", "1")
	contains(t, h.plainView(), "predict 3/4 tour")
	if got := cfg.Room.Scores["tour"]; got != (Score{Right: 2, Total: 3}) {
		t.Fatalf("the glass box wrote into the room's map: %v", got)
	}
}

// In a served glass box X shows where the learner can fetch the page (the
// room's address), on the notice line and in History; a refusal is said.
func TestHandoutLinkForAServedLearner(t *testing.T) {
	_, cfg, path := handoutWorld(t)
	var asked string
	cfg.Room = &Room{Handout: func(p string) (string, error) {
		asked = p
		return "http://room:8080/h/TOKEN/" + filepath.Base(p), nil
	}}
	h := newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "space", "X")
	if want := filepath.Join(session.DataDir(path), "handouts", "step-2.html"); asked != want {
		t.Fatalf("the room was asked for %q, want %q", asked, want)
	}
	v := h.plainView()
	contains(t, v, "handout of step 2: http://room:8080/h/TOKEN/step-2.html")
	notContains(t, v, "handout written:")
	e := h.m.runs[0].history.entries
	if last := e[len(e)-1]; last.kind != entryLink || last.text != "http://room:8080/h/TOKEN/step-2.html" {
		t.Fatalf("History's last entry is not the handout's address: %+v", last)
	}

	_, cfg, _ = handoutWorld(t)
	cfg.Room = &Room{Handout: func(string) (string, error) { return "", fmt.Errorf("the handouts server is not listening") }}
	h = newHarness(t, cfg, 160, 48)
	h.press("enter", "space", "X")
	v = h.plainView()
	if !strings.Contains(v, "written on the server, but you cannot fetch it: the handouts server is not listening") {
		t.Fatalf("the refusal is not said:\n%s", v)
	}
}

// A room taller than the screen scrolls: the last line says how, and ↓
// brings the later learners into view.
func TestRosterScrolls(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	var room Roster
	for i := range 30 {
		room.Learners = append(room.Learners, Seated{Name: fmt.Sprintf("learner%02d", i), Seat: Seat{State: loop.WaitingForEvent}})
	}
	cfg.Room = &Room{Roster: func() Roster { return room }}
	h := newHarness(t, cfg, 120, 34)
	h.press("esc", "R")
	v := h.plainView()
	contains(t, v, "↑/↓ scroll the roster")
	contains(t, v, "learner00")
	notContains(t, v, "learner29")
	for range 40 {
		h.press("down")
	}
	v = h.plainView()
	contains(t, v, "learner29")
	notContains(t, v, "learner00")
	checkScreen(t, h.view(), 120, 34)
	h.press("up") // one line back from the last page, however far ↓ went
	contains(t, h.plainView(), "learner28")
	notContains(t, h.plainView(), "no predictions yet")
}

// In Japanese the roster speaks Japanese; the protocol's names (states,
// edges) stay as they are, and the columns stay aligned.
func TestRosterInJapanese(t *testing.T) {
	w := newWorld(t, tourScript()...)
	cfg := w.config()
	cfg.Lang = lang.JA
	cfg.Room = &Room{Roster: sampleRoster}
	h := newHarness(t, cfg, 160, 48)
	h.press("esc", "R")
	v := h.plainView()
	for _, want := range []string{
		"接続中の受講者 4 人 · フォロー中 2 人",
		"名前       レッスン       # 現在の状態                 スコア   呼出  再試行  失敗    p50    max",
		"cy         自分の依頼     — WAITING_FOR_EVENT          —           0       0     0      —      —",
		"教室の答え",
		"tour · ステップ 4（AWAITING_LLM_RESPONSE から）— 回答 2 件",
		"tool_call             1 █  ✓ ループはここを通りました（1）",
	} {
		contains(t, v, want)
	}
}
