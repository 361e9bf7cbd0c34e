package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history"
)

// ExecuteCommandName is the name the model calls execute_command by.
const ExecuteCommandName = "execute_command"

const (
	// DefaultCommandTimeout is how long a command may run when
	// NewExecuteCommand is given no timeout.
	DefaultCommandTimeout = 30 * time.Second
	// maxCommandOutput caps the output returned to the model. Beyond it the
	// start and the end are kept: the start says what ran, the end usually
	// holds the error.
	maxCommandOutput = 64 << 10
	// outputWaitDelay is how long to wait for the output pipe to close
	// after the shell exits, in case background processes still hold it.
	outputWaitDelay = time.Second
)

// ExecuteCommandParams are execute_command's arguments.
type ExecuteCommandParams struct {
	Command string `json:"command"`
}

// ExecuteCommand runs a shell command in the workspace folder.
type ExecuteCommand struct {
	ws      *Workspace
	timeout time.Duration
}

var (
	_ Tool      = (*ExecuteCommand)(nil)
	_ Previewer = (*ExecuteCommand)(nil)
)

// NewExecuteCommand returns the execute_command tool. Each command runs in
// ws's root folder and is killed, with everything it started, after timeout
// (DefaultCommandTimeout if timeout is 0 or less).
func NewExecuteCommand(ws *Workspace, timeout time.Duration) *ExecuteCommand {
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	return &ExecuteCommand{ws: ws, timeout: timeout}
}

// Spec is execute_command's definition for the model.
func (t *ExecuteCommand) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name: ExecuteCommandName,
		Description: fmt.Sprintf("Run a shell command (sh -c) in the workspace folder and return its exit code "+
			"and combined output. The command is stopped after %s. It gets no input: do not run "+
			"interactive programs.", t.timeout),
		Params: []history.ParamSpec{
			{Name: "command", Type: history.TypeString, Required: true,
				Description: "the shell command line, e.g. python3 hello.py"},
		},
	}
}

// Preview shows the command and the folder it will run in.
func (t *ExecuteCommand) Preview(args json.RawMessage) string {
	var p ExecuteCommandParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return "cannot preview: " + err.Error()
	}
	return fmt.Sprintf("$ %s\n(in %s)", p.Command, t.ws.Root())
}

// Run runs the command. A non-zero exit code or a timeout is a Result with
// IsError set, so the model can react; cancellation of ctx is an error.
func (t *ExecuteCommand) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ExecuteCommandParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ExecuteCommandName, err), nil
	}
	if strings.TrimSpace(p.Command) == "" {
		return failure("%s: the command is empty; give a shell command line such as: ls -l", ExecuteCommandName), nil
	}

	runCtx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()

	out := newHeadTailBuffer(maxCommandOutput)
	cmd := exec.CommandContext(runCtx, "sh", "-c", p.Command)
	cmd.Dir = t.ws.Root()
	cmd.Env = scrubEnv(os.Environ())
	// One writer for both streams keeps them interleaved as they happened;
	// os/exec then writes from one goroutine at a time.
	cmd.Stdout, cmd.Stderr = out, out
	// Stdin stays nil: the command reads from /dev/null and never waits for
	// a keyboard that is not there.

	// The command gets its own process group, and on timeout or
	// cancellation the whole group is killed, not just the shell: otherwise
	// "sleep 30 & wait" would leave sleep running, holding the output open.
	startInOwnGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
	cmd.WaitDelay = outputWaitDelay

	err := cmd.Run()
	// Background jobs ("server &") outlive the shell in its process group;
	// stop them too. The group's id is not reused while any of them lives.
	_ = killProcessGroup(cmd)

	output := out.String()
	if output == "" {
		output = "(no output)"
	}
	switch {
	case err != nil && ctx.Err() != nil:
		res := failure("cancelled; process group killed\n%s", output)
		return res, fmt.Errorf("%s %q: %w", ExecuteCommandName, p.Command, ctx.Err())
	case err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return failure("timed out after %s; process group killed\n%s", t.timeout, output), nil
	}

	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return Result{Content: "exit code: 0\n" + output}, nil
	case errors.Is(err, exec.ErrWaitDelay):
		// The shell succeeded but left background processes holding the
		// output; they have just been killed.
		return Result{Content: "exit code: 0 (background processes it left running were stopped)\n" + output}, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return failure("exit code: %d\n%s", exitErr.ExitCode(), output), nil
	case errors.As(err, &exitErr):
		// ExitCode is -1 when a signal, not exit, ended the process.
		return failure("exit code: -1 (%s)\n%s", exitErr, output), nil
	}
	return Result{}, fmt.Errorf("%s: could not run sh: %w", ExecuteCommandName, err)
}

// scrubEnv returns env without the variables that hold secrets, so a command
// the model writes (env, printenv, a script) cannot leak an API key.
func scrubEnv(env []string) []string {
	kept := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !isSecretEnvName(name) {
			kept = append(kept, kv)
		}
	}
	return kept
}

// isSecretEnvName reports whether an environment variable's name suggests a
// secret: *_API_KEY, anything with TOKEN, SECRET or PASSWORD, GEMINI_*, and
// Google's credentials. Case does not matter.
func isSecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	switch {
	case n == "API_KEY", n == "GOOGLE_API_KEY", n == "GOOGLE_APPLICATION_CREDENTIALS":
		return true
	case strings.HasSuffix(n, "_API_KEY"), strings.HasPrefix(n, "GEMINI_"):
		return true
	}
	for _, word := range []string{"TOKEN", "SECRET", "PASSWORD"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// headTailBuffer is an io.Writer that keeps the first and the last half of
// its limit and counts what it dropped in between, so a command that prints
// megabytes costs at most limit bytes of memory.
type headTailBuffer struct {
	half  int
	head  []byte
	tail  []byte // may grow to 2×half before being trimmed back to half
	total int
}

func newHeadTailBuffer(limit int) *headTailBuffer {
	return &headTailBuffer{half: limit / 2}
}

// Write always accepts all of p.
func (b *headTailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	if room := b.half - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.half {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.half:]...)
	}
	return n, nil
}

// String returns everything written if it fit, or the head, a marker saying
// how many bytes were left out, and the tail.
func (b *headTailBuffer) String() string {
	if b.total <= 2*b.half {
		return strings.ToValidUTF8(string(b.head)+string(b.tail), "\uFFFD")
	}
	head := trimPartialRune(b.head)
	tail := b.tail[len(b.tail)-b.half:]
	// Skip a character cut in half at the start of the tail.
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	omitted := b.total - len(head) - len(tail)
	return strings.ToValidUTF8(fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, omitted, tail), "\uFFFD")
}
