package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
)

// A stdio MCP server is a program glassbox keeps running and talks to over
// its standard input and output (docs/mcp.md, "What is confined").
// StartProgram starts it exactly as execute_command starts a command —
// through the sandbox helper, in the workspace, with the same allow-listed
// environment, its own temporary folder and session, and everything it
// starts stopped with it — only its standard input and output stay open as
// the JSON-RPC pipe, and its standard error is kept as its log.

// Confinement is what a run's policy opens in the sandbox: the same for its
// commands and its stdio servers.
type Confinement struct {
	// Network lets the program connect out (the policy's network = true).
	Network bool
	// PassEnv names variables it gets besides the allow-list (the policy's
	// env); a name that looks secret is refused (CheckPassEnv).
	PassEnv []string
	// Conceal are files it must find empty even inside the folders it may
	// read (the .env glassbox read).
	Conceal []string
	// Quota caps the workspace while it runs (the workspace's own).
	Quota Quota
}

// Confinement is what this tool's commands are confined by (AllowNetwork,
// PassEnv, Conceal): a run's stdio servers get the same.
func (t *ExecuteCommand) Confinement() Confinement {
	return Confinement{Network: t.network.Load(), PassEnv: t.passEnv(), Conceal: t.concealed(), Quota: t.ws.Quota()}
}

// ProgramSpec is a program to start with StartProgram.
type ProgramSpec struct {
	// Argv is the program and its arguments, run without a shell; Argv[0]
	// is looked up in the sandbox's PATH unless it holds a slash.
	Argv []string
	// Self runs glassbox itself (the file opened at start, never a path)
	// with Argv as its arguments: the MCP server bundled in the binary.
	Self bool
	// Dir is its working folder, the run's workspace: the one folder it
	// may write besides its temporary folder.
	Dir string
	Confinement
	// Stderr receives what it writes to its standard error (nil: dropped).
	Stderr io.Writer
}

// Program is a running program started by StartProgram. Read reads its
// standard output, Write writes its standard input, Close ends it.
type Program struct {
	cmd      *exec.Cmd
	stdin    *os.File
	stdout   *os.File
	tmp      commandTemp
	sandbox  string
	reads    []string
	done     chan struct{} // closed when the helper (or the program) has ended
	stopping sync.Once
	// last is the helper's last report, set before reported closes (never,
	// without a helper).
	last     helperStatus
	reported chan struct{}
}

var _ io.ReadWriteCloser = (*Program)(nil)

// programStopDelay is how long Close waits for a program to end once its
// input is closed, before the helper is told to stop it.
const programStopDelay = 2 * time.Second

// StartProgram starts spec's program under the sandbox, as execute_command
// starts a command (or, where there is no sandbox helper, in its own
// session with the same environment, and Sandbox says "off — …"). It
// returns once the program runs confined; a sandbox that could not be
// applied is an error and nothing runs.
func StartProgram(spec ProgramSpec) (*Program, error) {
	if len(spec.Argv) == 0 && !spec.Self {
		return nil, errors.New("no program to start")
	}
	dir, err := filepath.Abs(spec.Dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("the working folder %s: %w", spec.Dir, err)
	}
	for _, n := range spec.PassEnv {
		if err := CheckPassEnv(n); err != nil {
			return nil, err
		}
	}
	tmp, err := newCommandTemp()
	if err != nil {
		return nil, fmt.Errorf("cannot make the program's temporary folder: %w", err)
	}
	p := &Program{tmp: tmp, done: make(chan struct{}), reported: make(chan struct{})}
	if !spec.Self {
		if p.reads, err = ServerReads(spec.Argv, dir); err != nil {
			tmp.remove()
			return nil, err
		}
	}
	started, err := p.start(spec, dir)
	if err != nil {
		tmp.remove()
		return nil, err
	}
	first := <-started
	if first.Error != "" {
		p.Close()
		return nil, fmt.Errorf("not started: %s", first.Error)
	}
	p.sandbox = first.Sandbox
	return p, nil
}

// start starts the helper (or the program itself) with the pipes; the
// channel gets the first report: the sandbox line, or why nothing runs.
func (p *Program) start(spec ProgramSpec, dir string) (<-chan helperStatus, error) {
	job := sandboxJob{Workspace: dir, Temp: p.tmp.dir, Network: spec.Network, Conceal: spec.Conceal, Reads: p.reads, Argv: spec.Argv, Self: spec.Self,
		Limits: ServerLimits(), Quota: spec.Quota}
	cmd, statusR, release, err := programCommand(job)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		release()
		closeAll(statusR)
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		release()
		closeAll(statusR, inR, inW)
		return nil, err
	}
	cmd.Dir = dir
	cmd.Env = commandEnv(os.Environ(), p.tmp, dir, spec.PassEnv)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, spec.Stderr
	cmd.WaitDelay = outputWaitDelay
	startInOwnGroup(cmd)
	err = startTracked(cmd, p)
	release()
	closeAll(inR, outW) // the child's ends
	if err != nil {
		closeAll(statusR, inW, outR)
		return nil, fmt.Errorf("could not start %s: %w", programName(job), err)
	}
	p.cmd, p.stdin, p.stdout = cmd, inW, outR
	first := make(chan helperStatus, 1)
	if statusR == nil {
		first <- helperStatus{Started: true, Sandbox: "off — " + trimOff(SandboxStatus())}
	} else {
		go func() {
			last, ok := readHelperReports(statusR, func(s helperStatus) {
				select {
				case first <- s:
				default:
				}
			})
			statusR.Close()
			if !ok {
				first <- helperStatus{Error: "the sandbox helper ended without a report"}
			}
			p.last = last
			close(p.reported)
		}()
	}
	go func() {
		cmd.Wait()
		untrack(cmd)
		_ = killProcessGroup(cmd) // what it left in its group, without a helper
		close(p.done)
	}()
	return first, nil
}

// programCommand is how job starts: through the helper, with the read end
// of its status pipe, or where there is none the program itself (statusR
// nil). release closes the child's ends once it has started.
func programCommand(job sandboxJob) (cmd *exec.Cmd, statusR *os.File, release func(), err error) {
	if helperReady.Load() {
		statusR, statusW, err := os.Pipe()
		if err != nil {
			return nil, nil, nil, err
		}
		cmd, release, err := helperCommand(context.Background(), job, statusW)
		if err == nil {
			return cmd, statusR, release, nil
		}
		closeAll(statusR, statusW)
	}
	cmd, err = unconfinedProgram(job)
	return cmd, nil, func() {}, err
}

// unconfinedProgram is the program itself, without the helper: a test
// binary that does not serve as the helper, or a system without it.
func unconfinedProgram(job sandboxJob) (*exec.Cmd, error) {
	if !job.Self {
		return exec.Command(job.Argv[0], job.Argv[1:]...), nil
	}
	path, err := selfPath()
	if err != nil {
		if path, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(path, job.Argv...)
	cmd.Args[0] = "glassbox"
	return cmd, nil
}

// notFound says why program could not be found (exec.LookPath's err).
func notFound(program string, err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("no program %q in the sandbox's PATH (%s); name it by its full path", program, os.Getenv("PATH"))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot run %s: %v", program, err)
}

func programName(job sandboxJob) string {
	if job.Self || len(job.Argv) == 0 {
		return "glassbox"
	}
	return job.Argv[0]
}

func trimOff(line string) string {
	if len(line) > len("off — ") && line[:len("off — ")] == "off — " {
		return line[len("off — "):]
	}
	return line
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// Read reads the program's standard output.
func (p *Program) Read(b []byte) (int, error) { return p.stdout.Read(b) }

// Write writes to the program's standard input.
func (p *Program) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the program as MCP's stdio transport says to: its input is
// closed; if it has not ended within programStopDelay the helper is told
// to stop it (SIGTERM: it kills the program and everything it started),
// and is killed if it does not. Its temporary folder goes. Close waits
// until all that is done and may be called more than once.
func (p *Program) Close() error {
	p.stopping.Do(func() {
		p.stdin.Close()
		if !p.waitEnd(programStopDelay) {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			if !p.waitEnd(5 * time.Second) {
				_ = killProcessGroup(p.cmd)
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		p.stdout.Close()
		p.tmp.remove()
	})
	return nil
}

func (p *Program) waitEnd(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// StoppedBy names the limit that stopped the program — its memory, its
// processes, its CPU time, the workspace's quota — once it has ended, or
// says "" (it runs, it ended for another reason, or no report came within
// wait).
func (p *Program) StoppedBy(wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.reported:
	case <-t.C:
		return ""
	}
	if p.last.Limit != "" {
		return p.last.Limit
	}
	return limitHit(ServerLimits(), p.last.Signal, p.last.Exit, "")
}

// Sandbox is the program's sandbox line ("on — …" or "off — reason").
func (p *Program) Sandbox() string { return p.sandbox }

// Reads are the files and folders outside the workspace and the system's
// folders the program may read (ServerReads).
func (p *Program) Reads() []string { return slices.Clone(p.reads) }

// ServerReads are what a stdio server started as argv in dir may read (and
// run), never write, beyond what a command may: each word of its command
// line that names an existing file or folder outside dir and the system's
// folders (a relative word is taken from dir), and the folder that holds
// each such file — the script's own modules beside it — unless that folder
// is /, the home folder, the temporary folder or a folder above one of
// them, where the file alone is opened. A word naming a path inside dir
// adds nothing, wherever a link there leads (the agent writes in dir);
// outside it, symbolic links are followed and what is returned is where
// they lead.
//
// A word may not open what no program of the agent's may read: a folder
// that is or holds /, the home folder, the temporary folder (every
// command's own folder is in it) or glassbox's state folder (sessions and
// the key that seals approvals), nor anything inside the state folder.
// Such a word is an error that names it: the server is not started.
func ServerReads(argv []string, dir string) ([]string, error) {
	r := serverReads{dir: dir}
	home, _ := os.UserHomeDir()
	r.broadDirs = []string{"/", home, os.TempDir()}
	for _, word := range argv {
		if err := r.word(word); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

// serverReads is ServerReads under way.
type serverReads struct {
	dir       string
	broadDirs []string // /, home, the temporary folder
	out       []string
}

// broad reports whether folder is or holds one of the broad folders.
func (r *serverReads) broad(folder string) bool {
	for _, d := range r.broadDirs {
		if d != "" && within(resolved(d), folder) {
			return true
		}
	}
	return false
}

// add adds p unless a command may read it already (the workspace, the
// system's folders) or it is there.
func (r *serverReads) add(p string) {
	inside := within(p, r.dir) || slices.ContainsFunc(systemReadPaths, func(sys string) bool { return within(p, sys) })
	if !inside && !slices.Contains(r.out, p) {
		r.out = append(r.out, p)
	}
}

// word adds what one word of the command line names.
func (r *serverReads) word(word string) error {
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	if within(p, r.dir) {
		// Readable already; and a link the agent planted in the
		// workspace must not open what it points to.
		return nil
	}
	fi, err := os.Stat(p)
	if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
		return nil
	}
	p = resolved(p)
	if err := tooBroad(word, p, fi.IsDir(), r.broad); err != nil {
		return err
	}
	r.add(p)
	if folder := filepath.Dir(p); fi.Mode().IsRegular() && !r.broad(folder) {
		r.add(folder)
	}
	return nil
}

// tooBroad refuses a word whose path p would open what no program of the
// agent's may read: a folder that is or holds a broad one, or glassbox's
// state folder, or anything inside the state folder.
func tooBroad(word, p string, isDir bool, broad func(string) bool) error {
	if isDir && broad(p) {
		return fmt.Errorf("the server's command line names the folder %s, which is or holds /, your home folder or the temporary folder: a server may read what its command line names, so name a folder inside them", word)
	}
	if state := stateFolder(); state != "" && (within(p, state) || isDir && within(state, p)) {
		return fmt.Errorf("the server's command line names %s, which is or holds glassbox's state folder %s (sessions and the key that seals approvals): a server may read what its command line names, never that", word, state)
	}
	return nil
}

// stateFolder is glassbox's state folder, resolved ("" when there is
// none).
func stateFolder() string {
	dir, err := session.Dir(os.Getenv)
	if err != nil {
		return ""
	}
	return resolved(filepath.Dir(dir))
}

// resolved is path with its symbolic links followed, or as it is.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

// TempDir is the program's own temporary folder (its TMPDIR, with its
// HOME inside), removed by Close.
func (p *Program) TempDir() string { return p.tmp.dir }
