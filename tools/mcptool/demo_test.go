package mcptool

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/tools"
)

// TestDemoServer: --mcp demo starts this program again as the demo server
// (DemoArg), under the sandbox, and each of its tools teaches its part:
// echo's read-only annotation is a hint, not an attribute; file_ticket's
// schema (enum, array, nested object) arrives as written; divide by zero is
// an isError result; count_slowly sends one notifications/progress frame a
// number before its answer.
func TestDemoServer(t *testing.T) {
	spec, err := ParseSpec("demo")
	if err != nil || !spec.Demo || spec.Name != DemoName {
		t.Fatalf("ParseSpec(demo) = %+v, %v", spec, err)
	}
	wire := &tools.WireLog{}
	s, err := Attach(context.Background(), spec, wire, Options{Dir: t.TempDir(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runtime.GOOS == "linux" && !strings.HasPrefix(s.Sandbox(), "on") {
		t.Errorf("the demo server runs outside the sandbox: %q", s.Sandbox())
	}
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Spec().Name)
	}
	if want := []string{"demo__count_slowly", "demo__divide", "demo__echo", "demo__file_ticket"}; !slices.Equal(names, want) { // tools/list sorts by name
		t.Fatalf("tools = %v, want %v", names, want)
	}
	echo := toolNamed(t, s, "demo__echo").Spec()
	if !slices.Contains(echo.Attrs.Hints, "readOnlyHint") || echo.Attrs.ReadsOnly || !echo.Attrs.ChangesFiles {
		t.Errorf("echo's attributes = %+v: the hint must be kept and not trusted", echo.Attrs)
	}
	var given, got any
	_ = json.Unmarshal([]byte(ticketSchema), &given)
	_ = json.Unmarshal(toolNamed(t, s, "demo__file_ticket").Spec().Schema, &got)
	if b1, _ := json.Marshal(given); string(b1) != string(mustJSON(got)) {
		t.Errorf("file_ticket's schema changed on the way:\n%s\n%s", b1, mustJSON(got))
	}
	wire.Drain()

	for _, tc := range []struct {
		tool, args string
		isError    bool
		want       string
	}{
		{"demo__echo", `{"text":"hello"}`, false, "echo: hello"},
		{"demo__file_ticket", `{"title":"the build is red","severity":"high","labels":["ci"],"reporter":{"name":"Aiko","team":"backend"}}`, false,
			`ticket #1 filed: "the build is red", severity high, labels ci, reported by Aiko (backend)`},
		{"demo__file_ticket", `{"title":"x","severity":"urgent"}`, true, `severity "urgent" is not one of low, medium, high, critical`},
		{"demo__divide", `{"a":7,"b":2}`, false, "3.5"},
		{"demo__divide", `{"a":7,"b":0}`, true, "cannot divide 7 by zero"},
		{"demo__count_slowly", `{"to":3}`, false, "counted to 3: 1 2 3"},
		{"demo__count_slowly", `{"to":99}`, true, "to is 99; count_slowly counts to 1 through 10"},
	} {
		res, err := toolNamed(t, s, tc.tool).Run(context.Background(), json.RawMessage(tc.args))
		if err != nil || res.IsError != tc.isError || res.Content != tc.want {
			t.Errorf("%s %s = %+v, %v; want isError %v and %q", tc.tool, tc.args, res, err, tc.isError, tc.want)
		}
	}
	var progress []string
	for _, f := range wire.Drain() {
		if f.Method == "notifications/progress" && f.Dir == "recv" {
			progress = append(progress, string(f.Body))
		}
	}
	if len(progress) != 3 || !strings.Contains(progress[2], `"message":"counted 3"`) || !strings.Contains(progress[2], `"total":3`) {
		t.Errorf("progress frames = %q, want one per number", progress)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// BenchmarkAttachDemo is what --mcp demo costs a run: glassbox started
// again under the sandbox (helper, confining stage, the server), the
// handshake and tools/list, one call, and the close.
func BenchmarkAttachDemo(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		s, err := Attach(context.Background(), DemoSpec, &tools.WireLog{}, Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := toolNamed(b, s, "demo__echo").Run(context.Background(), json.RawMessage(`{"text":"x"}`)); err != nil || res.IsError {
			b.Fatal(res, err)
		}
		s.Close()
	}
}
