package strip

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/headless"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func plain(s ...string) string  { return strings.Join(s, "") }
func marked(s ...string) string { return "*" + strings.Join(s, "") }

// firstCall runs dialect offline on the tour's first request and returns
// the strip's view of the first model call.
func firstCall(t *testing.T, dialect string) Call {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	d, _ := backend.Lookup(dialect)
	c := agentrun.Defaults(true)
	c.Provider, c.ToolMode, c.Offline = d.Provider, d.ToolMode, true
	r, err := agentrun.Open(context.Background(), c, headless.NewPerson(strings.NewReader(""), io.Discard))
	if err == nil {
		t.Cleanup(func() { r.Close() })
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Engine.Submit(loop.Event{Source: "cli", Type: "user_input", Data: "list the files"})
	for {
		tr, err := r.Engine.Step(context.Background())
		if errors.Is(err, loop.ErrIdle) {
			t.Fatal("no model call")
		}
		if err != nil {
			t.Fatal(err)
		}
		if call, ok := FromTransition(dialect, tr); ok {
			return call
		}
	}
}

func TestFromTransitionReadsTheWire(t *testing.T) {
	g, l := firstCall(t, "gemini"), firstCall(t, "llama")
	for _, c := range []Call{g, l} {
		if c.Iteration != 1 || c.StopReason != "tool_use" || len(c.ToolCalls) != 1 || !strings.HasPrefix(c.ToolCalls[0], "list_files ") {
			t.Fatalf("%+v", c)
		}
		if c.RequestBytes == 0 || c.ReplyBytes == 0 || c.Chunks == 0 || c.InputTokens == 0 {
			t.Fatalf("%s: the wire numbers are missing: %+v", c.Run, c)
		}
	}
	if g.Parse != "" || l.Parse == "" {
		t.Fatalf("only JSON mode has a parse step: gemini %q, llama %q", g.Parse, l.Parse)
	}
	if g.FinishReason != "STOP" || l.FinishReason != "stop" {
		t.Fatalf("finish reasons %q %q", g.FinishReason, l.FinishReason)
	}
}

func TestRenderFitsAndMarksDifferences(t *testing.T) {
	a := &Call{Run: "gemini", Iteration: 2, StopReason: "tool_use", FinishReason: "STOP", ToolCalls: []string{`read_file {"path":"hello.py"}`}, InputTokens: 823, OutputTokens: 7, LatencyMS: 4, RequestBytes: 3100, ReplyBytes: 612, Chunks: 1}
	b := &Call{Run: "llama", Iteration: 2, StopReason: "tool_use", FinishReason: "stop", ToolCalls: []string{`read_file {"path":"hello.py"}`}, Parse: "tool_call read_file", InputTokens: 875, OutputTokens: 36, LatencyMS: 0, RequestBytes: 2900, ReplyBytes: 1200, Chunks: 36}
	for _, w := range []int{160, 120, 80} {
		out := Render(lang.EN, w, [2]string{"gemini", "llama"}, [2]*Call{a, b}, plain, plain)
		lines := strings.Split(out, "\n")
		if len(lines) != 3 {
			t.Fatalf("width %d: %d lines", w, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %d wide: %q", w, ansi.StringWidth(l), l)
			}
		}
		if !strings.Contains(lines[1], "read_file") || !strings.Contains(lines[2], "read_file") {
			t.Fatalf("width %d: the tool calls are not shown:\n%s", w, out)
		}
	}
	wide := Render(lang.EN, 160, [2]string{"gemini", "llama"}, [2]*Call{a, b}, plain, marked)
	for _, want := range []string{"JSON parse", "chunks", "*tool_use / stop", "*36", "3.1 KB/612 B"} {
		if !strings.Contains(wide, want) {
			t.Errorf("160 columns lack %q:\n%s", want, wide)
		}
	}
	// Same values are not marked; the tool calls match here.
	if strings.Contains(wide, `*read_file`) {
		t.Errorf("equal tool calls were marked:\n%s", wide)
	}
	narrow := Render(lang.EN, 80, [2]string{"gemini", "llama"}, [2]*Call{a, b}, plain, plain)
	if strings.Contains(narrow, "chunks") {
		t.Errorf("80 columns keep the optional chunk column:\n%s", narrow)
	}
}

func TestRenderBeforeAnyCall(t *testing.T) {
	out := Render(lang.EN, 160, [2]string{"gemini", "llama:native"}, [2]*Call{nil, nil}, plain, marked)
	if !strings.Contains(out, "llama:native") || !strings.Contains(out, "no model call yet") || strings.Contains(out, "*") {
		t.Fatalf("%s", out)
	}
}
