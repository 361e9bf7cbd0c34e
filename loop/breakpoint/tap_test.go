package breakpoint

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// agentExchange reads one exchange a real agent made (captured in
// providers/wire/testdata/agents).
func agentExchange(t *testing.T, agent, n string) providers.Exchange {
	t.Helper()
	dir := filepath.Join("..", "..", "providers", "wire", "testdata", "agents", agent)
	file := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n+ext))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sc := bufio.NewScanner(bytes.NewReader(file(".meta")))
	sc.Scan()
	method, target, _ := strings.Cut(sc.Text(), " ")
	return providers.Exchange{Method: method, URL: "http://127.0.0.1:8080" + target, Status: 200,
		RequestBody: file(".request.json"), ResponseBody: file(".response")}
}

// TestTapHolds is the tap's use of a watch (API.md): each request, as it
// arrives, and each reply, before it is delivered, goes through
// loop/outside; the steps it makes are fed to the watch with the call's
// dialect, and the request or reply is held when one of them stops.
func TestTapHolds(t *testing.T) {
	for _, tc := range []struct {
		agent string
		calls []string
		exprs []string
		held  string
	}{
		// Gemini CLI asks for list_directory in its first reply: that reply is held.
		{"geminicli", []string{"001", "002"}, []string{"tool=list_directory"}, "reply 001"},
		{"geminicli", []string{"001", "002"}, []string{"tool~=run_*"}, ""},
		// Both its requests are 14 KB here (trimmed from 47 KB): each is
		// held as it arrives; the reply to the first carries the same
		// request and goes on.
		{"geminicli", []string{"001", "002"}, []string{"bytes>10k"}, "request 001, request 002"},
		// A request not yet answered has an estimate (14016 bytes: 3504
		// tokens); the reply brings the provider's count (9050).
		{"geminicli", []string{"001", "002"}, []string{"tokens>3000"}, "request 001, request 002"},
		{"geminicli", []string{"001", "002"}, []string{"tokens>9000"}, "reply 001, reply 002"},
		{"geminicli", []string{"001", "002"}, []string{"dialect=gemini,edge=final_answer"}, "reply 002"},
		{"geminicli", []string{"001", "002"}, []string{"dialect=openai"}, ""},
		{"opencode", []string{"001", "002", "003"}, []string{"path=/v1/chat/completions,edge=context_ready"}, "request 001, request 002, request 003"},
		{"opencode", []string{"001", "002", "003"}, []string{"tool=read"}, "reply 002"},
		{"opencode", []string{"001", "002", "003"}, []string{"dialect=openai,state=CHECKING_POLICY"}, "reply 002"},
	} {
		t.Run(tc.agent+" "+strings.Join(tc.exprs, " "), func(t *testing.T) {
			w := NewWatch(mustParse(t, tc.exprs...)...)
			b := outside.New(outside.Options{Source: "tap", Backend: "tap"})
			var held []string
			hold := func(what string, x providers.Exchange, steps []loop.Transition) {
				codec, _, _ := backend.Wire().Detect(x.Method, x.URL)
				stop := false
				for _, s := range steps {
					if _, ok := w.Step(Step{Transition: s, Dialect: codec.Family}); ok {
						stop = true
					}
				}
				if stop {
					held = append(held, what)
				}
			}
			for _, n := range tc.calls {
				x := agentExchange(t, tc.agent, n)
				hold("request "+n, x, b.Request(x))
				hold("reply "+n, x, b.Response(x))
			}
			if got := strings.Join(held, ", "); got != tc.held {
				t.Errorf("held %q, want %q", got, tc.held)
			}
		})
	}
}
