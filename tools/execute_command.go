package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
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
	// network lets commands connect out (the policy's network = true);
	// the sandbox otherwise refuses outbound TCP.
	network atomic.Bool
	pass    atomic.Value // []string: variables the policy passes on (PassEnv)
	conceal atomic.Value // []string: files commands must not read (Conceal)
	sandbox atomic.Value // string: the last command's sandbox line
	limits  Limits       // CommandLimits() unless a test says otherwise
}

// AllowNetwork lets commands connect out under the sandbox (the policy's
// network setting). Call it before the first command.
func (t *ExecuteCommand) AllowNetwork(on bool) { t.network.Store(on) }

// PassEnv names variables commands get from glassbox's environment besides
// the allow-list (the policy's env setting). A name that looks secret is
// refused (CheckPassEnv); call it before the first command.
func (t *ExecuteCommand) PassEnv(names []string) error {
	for _, n := range names {
		if err := CheckPassEnv(n); err != nil {
			return err
		}
	}
	t.pass.Store(append([]string(nil), names...))
	return nil
}

// Conceal names files commands must not read even where they lie inside
// the workspace: the .env glassbox read its keys from, when glassbox runs
// in the folder it hands the agent (--workspace .). In the command's own
// mount namespace each is covered by an empty, read-only file; glassbox
// still sees it as it is. Paths outside the workspace need nothing: the
// sandbox does not let commands read there at all.
func (t *ExecuteCommand) Conceal(paths []string) {
	var abs []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if a, err := filepath.Abs(p); err == nil {
			abs = append(abs, a)
		}
	}
	t.conceal.Store(abs)
}

func (t *ExecuteCommand) concealed() []string {
	paths, _ := t.conceal.Load().([]string)
	return paths
}

func (t *ExecuteCommand) passEnv() []string {
	names, _ := t.pass.Load().([]string)
	return names
}

// LastSandbox is the sandbox line of the last command that ran ("on — …"
// or "off — reason"), or before any has, the line its commands will get
// (with the policy's network setting).
func (t *ExecuteCommand) LastSandbox() string {
	if s, ok := t.sandbox.Load().(string); ok {
		return s
	}
	return sandboxStatus(t.network.Load(), t.ws.Quota())
}

func (t *ExecuteCommand) setLastSandbox(s string) { t.sandbox.Store(s) }

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
	return &ExecuteCommand{ws: ws, timeout: timeout, limits: CommandLimits()}
}

// Spec is execute_command's definition for the model.
func (t *ExecuteCommand) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name:  ExecuteCommandName,
		Attrs: history.Attributes{ChangesFiles: true, ReachesOut: true},
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
//
// Where the program can serve as the sandbox helper (RunSandboxHelper was
// called), the command runs through it: confined by Landlock where the
// kernel has it, and with every process it started stopped when the shell
// ends, however it detached. Otherwise it runs as `sh -c` in its own
// process group.
func (t *ExecuteCommand) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ExecuteCommandParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ExecuteCommandName, err), nil
	}
	if strings.TrimSpace(p.Command) == "" {
		return failure("%s: the command is empty; give a shell command line such as: ls -l", ExecuteCommandName), nil
	}
	// Each command gets its own temporary folder (TMPDIR, and HOME inside
	// it), the only place outside the workspace the sandbox lets it write;
	// it goes afterwards, or at the next start if glassbox dies first.
	tmp, err := newCommandTemp()
	if err != nil {
		return Result{}, fmt.Errorf("%s: cannot make the command's temporary folder: %w", ExecuteCommandName, err)
	}
	defer tmp.remove()

	runCtx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	out := newHeadTailBuffer(maxCommandOutput)
	var res Result
	if helperReady.Load() {
		res, err = t.runHelper(runCtx, p.Command, tmp, out)
	} else {
		res, err = t.runShell(runCtx, p.Command, tmp, out)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", ExecuteCommandName, err)
	}
	sandbox := res.Sandbox // what it ran under, whatever ended it
	switch {
	case ctx.Err() != nil:
		res = failure("cancelled; the command and everything it started were killed\n%s", out.output())
		res.Sandbox = sandbox
		return res, fmt.Errorf("%s %q: %w", ExecuteCommandName, p.Command, ctx.Err())
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		res = failure("timed out after %s; the command and everything it started were killed\n%s", t.timeout, out.output())
		res.Sandbox = sandbox
	}
	return res, nil
}

// runHelper runs command through the sandbox helper and reads its report.
func (t *ExecuteCommand) runHelper(ctx context.Context, command string, tmp commandTemp, out *headTailBuffer) (Result, error) {
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	defer statusR.Close()
	job := sandboxJob{Workspace: t.ws.Root(), Temp: tmp.dir, Network: t.network.Load(), Conceal: t.concealed(), Shell: command,
		Limits: t.limits, Quota: t.ws.Quota()}
	cmd, release, err := helperCommand(ctx, job, statusW)
	if err != nil {
		statusW.Close()
		return t.runShell(ctx, command, tmp, out)
	}
	cmd.Env = commandEnv(os.Environ(), tmp, t.ws.Root(), t.passEnv())
	cmd.Stdout, cmd.Stderr = out, out
	startInOwnGroup(cmd)
	// The helper stops the command and everything it started, then exits;
	// if it does not within WaitDelay, os/exec kills it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = outputWaitDelay
	err = startTracked(cmd, t)
	release()
	if err != nil {
		return Result{}, fmt.Errorf("could not start the sandbox helper: %w", err)
	}
	report := make(chan helperReport, 1)
	go func() {
		last, ok := readHelperReports(statusR, nil)
		report <- helperReport{last, ok}
	}()
	waitErr := cmd.Wait()
	untrack(cmd)
	_ = killProcessGroup(cmd)
	r := <-report
	if !r.ok || r.last.Started {
		// The helper died before it could report the end (it was killed
		// after WaitDelay): what it left is swept up here.
		n := sweepStray()
		return failure("the sandbox helper ended without a report (%v); %d processes left behind were stopped\n%s", waitErr, n, out.output()), nil
	}
	t.setLastSandbox(r.last.Sandbox)
	return t.helperResult(r.last, out.output()), nil
}

// helperReport is the helper's last report, and whether there was one.
type helperReport struct {
	last helperStatus
	ok   bool
}

// helperResult is the result the model reads from the helper's last
// report: the exit code, what was stopped, the output, and a note naming
// the limit or the sandbox when one of them said no.
func (t *ExecuteCommand) helperResult(st helperStatus, output string) Result {
	if st.Error != "" {
		return Result{IsError: true, Content: "not run: " + st.Error, Sandbox: st.Sandbox}
	}
	var res Result
	switch {
	case st.Signal != "":
		res = failure("exit code: -1 (signal: %s)%s\n%s", st.Signal, stoppedNote(st.Stopped), output)
	case st.Exit == 0:
		res = Result{Content: "exit code: 0" + stoppedNote(st.Stopped) + "\n" + output}
	default:
		res = failure("exit code: %d%s\n%s", st.Exit, stoppedNote(st.Stopped), output)
	}
	res.Sandbox = st.Sandbox
	limit := st.Limit
	if limit == "" {
		limit = limitHit(t.limits, st.Signal, st.Exit, output)
	}
	switch {
	case limit != "":
		res.IsError = true
		res.Content += "\n" + limitNote(limit)
	case res.IsError && strings.HasPrefix(st.Sandbox, "on") && kernelRefusal(output):
		res.Content += "\n" + sandboxNote(t.network.Load())
	}
	return res
}

// runShell runs command as `sh -c` in its own process group: no sandbox
// helper is available (a test binary without it, or not Linux).
func (t *ExecuteCommand) runShell(ctx context.Context, command string, tmp commandTemp, out *headTailBuffer) (Result, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = t.ws.Root()
	cmd.Env = commandEnv(os.Environ(), tmp, t.ws.Root(), t.passEnv())
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
	if err := startTracked(cmd, t); err != nil {
		return Result{}, fmt.Errorf("could not run sh: %w", err)
	}
	err := cmd.Wait()
	untrack(cmd)
	// Background jobs ("server &") outlive the shell in its process group;
	// stop them too. The group's id is not reused while any of them lives.
	_ = killProcessGroup(cmd)
	// What left the group (setsid) and was re-parented to glassbox, its
	// subreaper, goes too.
	n := sweepStray()
	sandbox := "off — " + strings.TrimPrefix(SandboxStatus(), "off — ")
	t.setLastSandbox(sandbox)

	var exitErr *exec.ExitError
	var res Result
	switch {
	case err == nil:
		res = Result{Content: "exit code: 0" + stoppedNote(n) + "\n" + out.output()}
	case errors.Is(err, exec.ErrWaitDelay):
		// The shell succeeded but left background processes holding the
		// output; they have just been killed.
		res = Result{Content: "exit code: 0 (background processes it left running were stopped)\n" + out.output()}
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		res = failure("exit code: %d%s\n%s", exitErr.ExitCode(), stoppedNote(n), out.output())
	case errors.As(err, &exitErr):
		// ExitCode is -1 when a signal, not exit, ended the process.
		res = failure("exit code: -1 (%s)\n%s", exitErr, out.output())
	default:
		return Result{}, fmt.Errorf("could not run sh: %w", err)
	}
	res.Sandbox = sandbox
	return res, nil
}

// kernelRefusal reports whether output holds the messages a refused write
// or connection prints.
func kernelRefusal(output string) bool {
	for _, m := range []string{"Permission denied", "Operation not permitted", "Read-only file system"} {
		if strings.Contains(output, m) {
			return true
		}
	}
	return false
}

// sandboxNote is the teaching line under a command the kernel may have
// refused: the rule said ALLOW (or a person approved), the kernel said no.
func sandboxNote(network bool) string {
	what := "reads outside the workspace, TMPDIR and the system's program folders, writes outside the workspace and TMPDIR, and connections out"
	if network {
		what = "reads outside the workspace, TMPDIR and the system's program folders, writes outside the workspace and TMPDIR, and Unix and raw sockets"
	}
	return "[sandbox] The security policy let this command run, but it ran under the kernel's sandbox (Landlock and seccomp), which refuses " +
		what + ": a \"Permission denied\" or \"Operation not permitted\" above is most likely the kernel saying no. Work inside the workspace instead."
}

// IsSecretEnvName reports whether an environment variable's name suggests a
// secret: *_API_KEY, anything with TOKEN, SECRET or PASSWORD, GEMINI_*, and
// Google's credentials. Case does not matter.
func IsSecretEnvName(name string) bool {
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

// output is what the command printed, or "(no output)".
func (b *headTailBuffer) output() string {
	if s := b.String(); s != "" {
		return s
	}
	return "(no output)"
}
