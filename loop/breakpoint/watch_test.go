package breakpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
)

// approver approves every call and answers no question.
type approver struct{}

func (approver) Confirm(context.Context, loop.ConfirmRequest) (loop.Approval, error) {
	return loop.AllowOnce, nil
}

func (approver) Ask(context.Context, tools.Question) (string, error) {
	return "", errors.New("no answer in this test")
}

func mustParse(t *testing.T, exprs ...string) []Breakpoint {
	t.Helper()
	bps, err := ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return bps
}

func TestWatchList(t *testing.T) {
	w := NewWatch(mustParse(t, "tool=write_file", "state=HALTED", "tool=write_file")...)
	if w.Len() != 2 {
		t.Fatalf("a breakpoint spelled twice is in force twice: %v", w.List())
	}
	same := mustParse(t, "TOOL = write_file")[0]
	if w.Add(same) || w.Index(same) != 0 {
		t.Errorf("the same breakpoint spelled another way was added again")
	}
	if !w.Remove(w.Index(OnState(loop.Halted))) || w.Len() != 1 {
		t.Errorf("removing state=HALTED: %v", w.List())
	}
	if !w.Add(OnState(loop.Halted)) || w.Len() != 2 {
		t.Errorf("adding state=HALTED back: %v", w.List())
	}
	if w.Remove(2) || w.Remove(-1) || !w.Remove(0) || w.List()[0].String() != "state=HALTED" {
		t.Errorf("Remove: %v", w.List())
	}
	if w.Add(Breakpoint{}) {
		t.Error("a breakpoint without conditions was added")
	}
}

func TestWatchMarks(t *testing.T) {
	w := NewWatch(mustParse(t, "state=CHECKING_POLICY", "edge=deny", "state=HALTED,tool=x", "edge=deny,tool=y", "tool=z")...)
	m := w.Marks()
	if m.States[loop.CheckingPolicy] != Always || m.States[loop.Halted] != If || m.Edges[loop.EdgeDeny] != Always || len(m.States) != 2 || len(m.Edges) != 1 {
		t.Errorf("Marks = %+v", m)
	}
	w.Remove(0)
	w.Add(OnState(loop.Halted))
	if m := w.Marks(); m.States[loop.CheckingPolicy] != None || m.States[loop.Halted] != Always {
		t.Errorf("Marks after a change of the list = %+v", m)
	}
}

// TestWatchStopsWhereAMatchBegins: fed a run's steps, a watch reports a
// breakpoint where it begins to match, not on the steps after that still
// match.
func TestWatchStopsWhereAMatchBegins(t *testing.T) {
	steps := []loop.Transition{assembled, reply, check, {Seq: 5, From: loop.AwaitingUserConfirmation, To: loop.ExecutingTool, Edge: loop.EdgeUserApproval,
		Tool: check.Tool, Decision: check.Decision}, assembled, reply}
	for i := range steps {
		steps[i].Seq = i + 1
	}
	for _, tc := range []struct {
		exprs []string
		stops []int // the steps it stops on
		index []int // the breakpoint that stops each
	}{
		{[]string{"tool=write_file"}, []int{2, 6}, []int{0, 0}},
		{[]string{"verdict=REQUIRE_USER_CONFIRMATION"}, []int{3}, []int{0}},
		{[]string{"state=AWAITING_LLM_RESPONSE"}, []int{1, 5}, []int{0, 0}},
		{[]string{"edge=context_ready", "tool~=*"}, []int{1, 2, 5, 6}, []int{0, 1, 0, 1}},
		{[]string{"tool=write_file", "verdict=REQUIRE_USER_CONFIRMATION"}, []int{2, 3, 6}, []int{0, 1, 0}},
		{[]string{"state=HALTED"}, nil, nil},
	} {
		t.Run(strings.Join(tc.exprs, " "), func(t *testing.T) {
			w := NewWatch(mustParse(t, tc.exprs...)...)
			var stops, index []int
			for _, s := range steps {
				if h, ok := w.Step(Step{Transition: s}); ok {
					stops, index = append(stops, h.Seq), append(index, h.Index)
				}
			}
			if !slices.Equal(stops, tc.stops) || !slices.Equal(index, tc.index) {
				t.Errorf("stops on %v (breakpoints %v), want %v (%v)", stops, index, tc.stops, tc.index)
			}
		})
	}
}

func TestWatchForget(t *testing.T) {
	w := NewWatch(mustParse(t, "tool=write_file")...)
	if _, ok := w.Step(Step{Transition: check}); !ok {
		t.Fatal("no stop on the first match")
	}
	if _, ok := w.Step(Step{Transition: check}); ok {
		t.Fatal("a stop on a match that goes on")
	}
	w.Forget()
	if _, ok := w.Step(Step{Transition: check}); !ok {
		t.Error("after Forget the next match is not a new one")
	}
	w.Add(OnState(loop.AwaitingUserConfirmation))
	if h, ok := w.Step(Step{Transition: check}); !ok || h.Index != 1 {
		t.Errorf("a breakpoint added while the others match: %+v, %v", h, ok)
	}
}

// TestWatchOnALesson steps the write-file lesson offline, in each dialect,
// and feeds every step to a watch: the breakpoints stop where the docs say.
func TestWatchOnALesson(t *testing.T) {
	lesson, _ := lessons.ByName("write-file")
	for _, d := range backend.Dialects() {
		t.Run(d.Name, func(t *testing.T) {
			steps := lessonSteps(t, d, lesson.RequestIn("en"))
			for _, tc := range []struct{ expr, want string }{
				// The reply that asks for write_file; the check, the
				// approval, the run and the result follow it unstopped.
				{"tool=write_file", "AWAITING_LLM_RESPONSE -tool_call->"},
				{"tool=write_file,verdict=REQUIRE_USER_CONFIRMATION", "CHECKING_POLICY -confirm_required->"},
				{"edge=user_approval", "AWAITING_USER_CONFIRMATION -user_approval->"},
				{"state=CHECKING_POLICY", "AWAITING_LLM_RESPONSE -tool_call->"},
				{"dialect=" + d.Name + ",edge=final_answer", "AWAITING_LLM_RESPONSE -final_answer->"},
				{"tokens>1,edge=tool_call", "AWAITING_LLM_RESPONSE -tool_call->"},
				{"path~=*,edge=final_answer", "AWAITING_LLM_RESPONSE -final_answer->"},
				{"tool=execute_command", ""},
				{"verdict=DENY", ""},
			} {
				w := NewWatch(mustParse(t, tc.expr)...)
				var got []string
				for _, s := range steps {
					if _, ok := w.Step(Step{Transition: s, Dialect: d.Name}); ok {
						got = append(got, fmt.Sprintf("%s -%s->", s.From, s.Edge))
					}
				}
				if strings.Join(got, " ") != tc.want {
					t.Errorf("%s stops at %q, want %q", tc.expr, got, tc.want)
				}
			}
		})
	}
}

// lessonSteps runs the write-file lesson offline in dialect d, every
// confirmation approved by the person, and returns its steps.
func lessonSteps(t *testing.T, d backend.Dialect, request string) []loop.Transition {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c := agentrun.Defaults(true)
	c.Provider, c.ToolMode, c.Offline, c.Lesson = d.Provider, d.ToolMode, true, "write-file"
	r, err := agentrun.Open(context.Background(), c, approver{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.Engine.Submit(loop.Event{Source: "cli", Type: "user_input", Data: request})
	var out []loop.Transition
	for {
		tr, err := r.Engine.Step(context.Background())
		if errors.Is(err, loop.ErrIdle) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
}

// BenchmarkWatchStep is what every step of a run costs with breakpoints in
// force: three of them, tested on a model's 40 KB reply.
func BenchmarkWatchStep(b *testing.B) {
	bps, err := ParseAll([]string{"tool~=write_*,verdict=DENY", "tokens>8000", "path~=*:streamGenerateContent,bytes>100k"})
	if err != nil {
		b.Fatal(err)
	}
	w := NewWatch(bps...)
	steps := []Step{{Transition: reply, Dialect: "gemini"}, {Transition: check, Dialect: "gemini"}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Step(steps[i%2])
	}
}
