package agentrun

import (
	"os/exec"
	"strings"
	"testing"
)

// The command printed on quit reopens the session when pasted into a shell.
func TestResumeCommand(t *testing.T) {
	for _, c := range []struct {
		path, dir, want string
	}{
		{"/state/glassbox/sessions/20261124-150405-3fa9.jsonl", "/state/glassbox/sessions", "glassbox --resume 20261124-150405-3fa9"},
		{"/tmp/class/run.jsonl", "/state/glassbox/sessions", "glassbox --resume /tmp/class/run.jsonl"},
		{"/tmp/my class/Ada's run.jsonl", "/state/glassbox/sessions", `glassbox --resume '/tmp/my class/Ada'\''s run.jsonl'`},
		{"/tmp/$(reboot)/x;y.jsonl", "", `glassbox --resume '/tmp/$(reboot)/x;y.jsonl'`},
	} {
		s := &Session{Path: c.path}
		got := s.ResumeCommand("glassbox", c.dir)
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.path, got, c.want)
			continue
		}
		// A shell reads the argument back as the path (or the id).
		out, err := exec.Command("sh", "-c", "printf %s "+strings.TrimPrefix(got, "glassbox --resume ")).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := c.path
		if c.dir != "" && strings.HasPrefix(c.path, c.dir+"/") {
			want = s.ID()
		}
		if string(out) != want {
			t.Errorf("%s: a shell reads the argument as %q, want %q", c.path, out, want)
		}
	}
}
