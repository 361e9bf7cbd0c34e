package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExecuteCommand(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"hello.txt": "hi from the workspace\n"})
	tests := []struct {
		name        string
		command     string
		want        string
		wantIsError bool
	}{
		{name: "success", command: "echo hello", want: "exit code: 0\nhello\n"},
		{name: "runs in the workspace", command: "cat hello.txt", want: "exit code: 0\nhi from the workspace\n"},
		{name: "working folder is the root", command: "pwd", want: "exit code: 0\n" + ws.Root() + "\n"},
		{name: "no output", command: "true", want: "exit code: 0\n(no output)"},
		{name: "non-zero exit is an error result", command: "echo oops >&2; exit 3",
			want: "exit code: 3\noops\n", wantIsError: true},
		{name: "stdout and stderr interleaved", command: "echo one; echo two >&2; echo three",
			want: "exit code: 0\none\ntwo\nthree\n"},
		{name: "stdin is empty, so cat does not wait", command: "cat", want: "exit code: 0\n(no output)"},
		{name: "killed by a signal", command: "kill -9 $$", want: "exit code: -1 (signal: killed)\n(no output)", wantIsError: true},
		{name: "empty command", command: "  ", wantIsError: true,
			want: "execute_command: the command is empty; give a shell command line such as: ls -l"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":`+quote(tt.command)+`}`)
			if res.Content != tt.want || res.IsError != tt.wantIsError {
				t.Errorf("Run(%q) = %+v\nwant {Content:%q IsError:%v}", tt.command, res, tt.want, tt.wantIsError)
			}
		})
	}
}

func TestExecuteCommandTimeout(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	tests := []struct {
		name    string
		command string
	}{
		{name: "sleeping shell", command: "echo started; sleep 5"},
		{name: "child of a child", command: "echo started; sh -c 'sleep 30 & wait'"},
		{name: "pipeline", command: "echo started; sleep 30 | cat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := run(t, NewExecuteCommand(ws, time.Second), `{"command":`+quote(tt.command)+`}`)
			elapsed := time.Since(start)
			want := "timed out after 1s; the command and everything it started were killed\nstarted\n"
			if res.Content != want || !res.IsError {
				t.Errorf("Run = %+v, want {Content:%q IsError:true}", res, want)
			}
			// Well under the sleeps, and under outputWaitDelay's backstop
			// plus margin: the group kill, not the backstop, ended it.
			// (The timeout leaves the sandbox time to start on a loaded
			// machine, under -race too.)
			if elapsed > 3*time.Second {
				t.Errorf("Run took %s after a 1s timeout; the process group was not killed promptly", elapsed)
			}
		})
	}
}

func TestExecuteCommandCancelled(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the command is under way (it has printed and made its
	// marker), however long starting the sandbox took on a loaded machine.
	var start time.Time
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(ws.Root(), "started")); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		start = time.Now()
		cancel()
	}()
	res, err := NewExecuteCommand(ws, 30*time.Second).Run(ctx, []byte(`{"command":"echo working; touch started; sleep 30 & wait"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want it to wrap context.Canceled", err)
	}
	if !strings.HasPrefix(res.Content, "cancelled; the command and everything it started were killed\nworking") || !res.IsError {
		t.Errorf("Run = %+v, want an error result that says it was cancelled and keeps the output", res)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Run took %s after cancellation", elapsed)
	}
}

func TestExecuteCommandDefaultTimeout(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	for _, timeout := range []time.Duration{0, -time.Second} {
		t.Run(fmt.Sprint(timeout), func(t *testing.T) {
			if got := NewExecuteCommand(ws, timeout).timeout; got != DefaultCommandTimeout {
				t.Errorf("timeout = %s, want %s", got, DefaultCommandTimeout)
			}
		})
	}
}

func TestExecuteCommandGiantOutput(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	// START\n, then 100000 × "x\n", then END\n: 200010 bytes in all.
	res := run(t, NewExecuteCommand(ws, 10*time.Second), `{"command":"echo START; yes x | head -n 100000; echo END"}`)
	if res.IsError {
		t.Fatalf("unexpected error result: %.200s", res.Content)
	}
	const total = 6 + 200000 + 4
	marker := fmt.Sprintf("\n[... %d bytes omitted ...]\n", total-maxCommandOutput)
	if !strings.HasPrefix(res.Content, "exit code: 0\nSTART\nx\n") {
		t.Errorf("the head was not kept: %.100q", res.Content)
	}
	if !strings.HasSuffix(res.Content, "x\nx\nEND\n") {
		t.Errorf("the tail was not kept: %q", res.Content[len(res.Content)-100:])
	}
	if !strings.Contains(res.Content, marker) {
		t.Errorf("no marker %q in the output", marker)
	}
	if body := strings.TrimPrefix(res.Content, "exit code: 0\n"); len(body) != maxCommandOutput+len(marker) {
		t.Errorf("output is %d bytes, want %d kept plus the marker", len(body), maxCommandOutput)
	}
}

// Issue 19 items 2 and 5: a command's environment is built from an
// allow-list, not by removing known secret names. Inside tmux, an SSH agent
// or a desktop session, the sockets that lead out of the sandbox (TMUX,
// SSH_AUTH_SOCK, DBUS_*) are not named to it, no secret reaches it whatever
// its name, and neither PWD nor OLDPWD tells it where glassbox was started.
func TestCommandsSeeAnAllowListedEnvironment(t *testing.T) {
	withheld := map[string]string{
		"FOO_API_KEY": "sk-foo-value", "MY_TOKEN": "tok-value", "GEMINI_API_KEY": "gem-value", "db_password": "pw-value",
		"OPENAI_KEY": "sk-openai-value", "DB_PASS": "dbpass-value", "MYSQL_PWD": "mysql-value", "GH_PAT": "ghp-value",
		"STRIPE_KEY": "stripe-value", "DATABASE_URL": "postgres://u:hunter2@db/x",
		"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%1", "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus", "OLDPWD": "/where/glassbox/started",
		"PWD": "/where/glassbox/runs", "LD_PRELOAD": "/nonexistent/evil.so", "GLASSBOX_UNNAMED": "unnamed-value",
	}
	for k, v := range withheld {
		t.Setenv(k, v)
	}
	kept := map[string]string{"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color", "TZ": "Asia/Tokyo", "GLASSBOX_NAMED": "named-value"}
	for k, v := range kept {
		t.Setenv(k, v)
	}
	t.Setenv("PATH", "/root/.pyenv/shims:.:relative/bin:/usr/local/bin:/usr/bin:/bin")
	ws := newTestWorkspace(t, nil)
	ec := NewExecuteCommand(ws, 10*time.Second)
	if err := ec.PassEnv([]string{"GLASSBOX_NAMED"}); err != nil {
		t.Fatal(err)
	}
	res := run(t, ec, `{"command":"env; echo \"cwd=$(pwd)\""}`)
	if res.IsError {
		t.Fatalf("env: %+v", res)
	}
	for k, v := range withheld {
		// sh sets PWD itself, to the workspace (checked below).
		if (k != "PWD" && strings.Contains(res.Content, "\n"+k+"=")) || strings.Contains(res.Content, v) {
			t.Errorf("the command saw %s (%s):\n%s", k, v, res.Content)
		}
	}
	for k, v := range kept {
		if !strings.Contains(res.Content, "\n"+k+"="+v+"\n") {
			t.Errorf("the command lacks %s=%s:\n%s", k, v, res.Content)
		}
	}
	env := map[string]string{}
	for _, line := range strings.Split(res.Content, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	if env["PATH"] != "/usr/local/bin:/usr/bin:/bin" {
		t.Errorf("PATH = %q: only absolute folders the sandbox lets it run programs from", env["PATH"])
	}
	tmp := env["TMPDIR"]
	if !strings.HasPrefix(filepath.Base(tmp), "glassbox-cmd-") || env["HOME"] != filepath.Join(tmp, "home") {
		t.Errorf("TMPDIR = %q, HOME = %q: HOME belongs inside the command's own temporary folder", tmp, env["HOME"])
	}
	if env["cwd"] != ws.Root() || (env["PWD"] != "" && env["PWD"] != ws.Root()) {
		t.Errorf("cwd = %q, PWD = %q, want the workspace %s", env["cwd"], env["PWD"], ws.Root())
	}
	for _, name := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "HOME", "LD_PRELOAD", "PATH", "A=B"} {
		if err := ec.PassEnv([]string{name}); err == nil {
			t.Errorf("PassEnv(%s) was accepted", name)
		}
	}
}

func TestIsSecretEnvName(t *testing.T) {
	tests := []struct {
		name   string
		secret bool
	}{
		{"OPENAI_API_KEY", true},
		{"openai_api_key", true},
		{"GITHUB_TOKEN", true},
		{"tokenizer_path", true}, // contains TOKEN: scrubbed, better safe
		{"AWS_SECRET_ACCESS_KEY", true},
		{"PGPASSWORD", true},
		{"GEMINI_MODEL", true},
		{"Gemini_Base", true},
		{"GOOGLE_API_KEY", true},
		{"google_application_credentials", true},
		{"API_KEY", true},
		{"PATH", false},
		{"HOME", false},
		{"GOOGLE_GEMINI_BASE_URL", false},
		{"OLLAMA_HOST", false},
		{"KEYBOARD", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSecretEnvName(tt.name); got != tt.secret {
				t.Errorf("IsSecretEnvName(%q) = %v, want %v", tt.name, got, tt.secret)
			}
		})
	}
}

func TestExecuteCommandPreview(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "command", args: `{"command":"python3 hello.py"}`, want: "$ python3 hello.py\n(in " + ws.Root() + ")"},
		{name: "bad arguments", args: `{"cmd":"ls"}`, want: `cannot preview: unknown argument "cmd"; execute_command takes: command`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewExecuteCommand(ws, 0).Preview([]byte(tt.args)); got != tt.want {
				t.Errorf("Preview = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeadTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{name: "fits", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly the limit", limit: 10, writes: []string{"0123456789"}, want: "0123456789"},
		{name: "one write over", limit: 10, writes: []string{"0123456789AB"}, want: "01234\n[... 2 bytes omitted ...]\n789AB"},
		{name: "many small writes", limit: 4, writes: strings.Split("abcdefghijklmnop", ""),
			want: "ab\n[... 12 bytes omitted ...]\nop"},
		{name: "cut character at the head", limit: 6, writes: []string{"ab日cdefgh"}, want: "ab\n[... 6 bytes omitted ...]\nfgh"},
		{name: "cut character at the tail", limit: 6, writes: []string{"abcdefgh日"}, want: "abc\n[... 5 bytes omitted ...]\n日"},
		{name: "invalid bytes become replacement characters", limit: 10, writes: []string{"a\xffb"}, want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHeadTailBuffer(tt.limit)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
