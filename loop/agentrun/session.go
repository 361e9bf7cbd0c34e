package agentrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/tools"
)

// Session is the session file the runs of one glassbox write to.
type Session struct {
	Path string
	// Resumed is set when the session was reopened (--resume).
	Resumed bool
	// Warnings say what reading the file dropped (a torn last line);
	// Recovery says, per run, what a crash left under way and how it is
	// taken up.
	Warnings []string
	Recovery []string

	writer   *session.Writer
	journals []*loop.Journal
}

// ID is the session's id: the file's name without .jsonl.
func (s *Session) ID() string { return strings.TrimSuffix(filepath.Base(s.Path), ".jsonl") }

// ResumeCommand is the command line that reopens the session, ready to
// paste into a shell: "glassbox --resume 20261124-150405-3fa9" when the
// file is in the sessions folder dir, else with its path (single-quoted
// when it holds characters a shell would read).
func (s *Session) ResumeCommand(cmd, dir string) string {
	arg := s.Path
	if filepath.Dir(s.Path) == dir {
		arg = s.ID()
	}
	if strings.ContainsFunc(arg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) {
		arg = "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
	}
	return cmd + " --resume " + arg
}

// Err is the first error met saving the session, if any.
func (s *Session) Err() error {
	for _, j := range s.journals {
		if err := j.Err(); err != nil {
			return err
		}
	}
	return nil
}

// SessionDir is the default sessions folder for env.
func SessionDir(getenv func(string) string) (string, error) { return session.Dir(getenv) }

// NewSessionPath names a new session file in the default folder.
func NewSessionPath(getenv func(string) string) (string, error) {
	dir, err := session.Dir(getenv)
	if err != nil {
		return "", err
	}
	return session.NewPath(dir, time.Now())
}

// keptWorkspace makes a session's own workspace in dir: a copy of from, or
// of the sample project when from is "". It is never removed by glassbox.
func keptWorkspace(dir, from string) (*tools.Workspace, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if from != "" {
		if err := tools.CopyFolder(context.Background(), dir, from); err != nil {
			return nil, sentence.Errorf("copying %s for the session failed: %v", from, err)
		}
	} else if err := tools.CopySample(dir); err != nil {
		return nil, err
	}
	return tools.NewWorkspace(dir)
}

func traceFork(w io.Writer, rec loop.ForkRecord) error {
	line, err := rec.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

// openSession is OpenAll with a session: each run's workspace, when
// glassbox makes it, is made inside the session's folder and kept; the
// header lists every run; every engine writes through its own Journal.
func openSession(ctx context.Context, c Config, person func(name string) loop.Person) ([]*Run, error) {
	if err := checkOutput("--session", c.Session); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if _, err := os.Stat(c.Session); err == nil {
		return nil, sentence.Errorf("%w: --session %s already exists; a session file is never overwritten (reopen it with --resume %s)", ErrUsage, c.Session, c.Session)
	}
	data := session.DataDir(c.Session)
	configs := c.Runs()
	for i, rc := range configs {
		if rc.Workspace == "" || rc.CopyWorkspace {
			name := "workspace"
			if rc.Name != "" {
				name += "-" + strings.ReplaceAll(rc.Name, ":", "-")
			}
			configs[i].KeepWorkspace, configs[i].CopyWorkspace = filepath.Join(data, name), false
		}
	}
	runs, err := openRuns(ctx, configs, person)
	if err != nil {
		return nil, err
	}
	var secrets []string
	for _, r := range runs {
		secrets = append(secrets, r.Config.Env.Secrets()...)
	}
	h := session.Header{Glassbox: c.Version, Started: time.Now().UTC(), Request: providers.NewMasker(secrets...).Mask(c.Request)}
	for _, r := range runs {
		h.Runs = append(h.Runs, runInfo(r))
	}
	w, err := session.Create(c.Session, h)
	if err != nil {
		CloseAll(runs)
		return nil, fmt.Errorf("%w: --session: %w", ErrUsage, err)
	}
	sessionGuard(w, runs)
	s := &Session{Path: c.Session, writer: w}
	for _, r := range runs {
		j := loop.NewJournal(w, r.Config.Name, r.Workspace.Root())
		if err := testCrash(j); err != nil {
			CloseAll(runs)
			return nil, err
		}
		j.KeepAnswers(r.answers)
		r.Engine.SetJournal(j)
		s.journals = append(s.journals, j)
		r.Session = s
	}
	last := runs[len(runs)-1]
	last.closers = append([]func() error{w.Close}, last.closers...)
	return runs, nil
}

func runInfo(r *Run) session.RunInfo {
	c := r.Config
	info := session.RunInfo{
		Name: c.Name, Provider: c.Provider, ToolMode: r.Backend.Dialect.ToolMode, Model: r.Backend.Provider.Model(),
		Backend: r.Backend.Kind, Lesson: c.Lesson, Workspace: r.Workspace.Root(), Kept: c.KeepWorkspace != "",
		MaxIterations: c.MaxIterations, Policy: abs(c.Policy), Replay: abs(c.Replay),
	}
	return info
}

func abs(path string) string {
	if path == "" {
		return ""
	}
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// resumeSession is OpenAll with --resume: the session's runs are built
// again as they were started (provider, model, tool mode, backend, lesson,
// workspace, limits), their engines rebuilt from the file, and the file
// continued. --from forks from a step (the workspace restored); --provider
// or --tool-mode (Onto) continues with another dialect.
func resumeSession(ctx context.Context, c Config, person func(name string) loop.Person) (_ []*Run, err error) {
	path, f, err := readResumed(c)
	if err != nil {
		return nil, err
	}
	configs, err := resumedConfigs(c, path, f)
	if err != nil {
		return nil, err
	}
	runs, err := openRuns(ctx, configs, person)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			CloseAll(runs)
		}
	}()
	w, err := session.Append(f)
	if err != nil {
		return nil, sentence.Errorf("reopening %s: %w", path, err)
	}
	sessionGuard(w, runs)
	s := &Session{Path: path, Resumed: true, Warnings: f.Warnings, writer: w}
	runs[len(runs)-1].closers = append([]func() error{w.Close}, runs[len(runs)-1].closers...)
	for i, r := range runs {
		if err := r.resumeEngine(s, f.Runs[i]); err != nil {
			return nil, err
		}
	}
	if c.From >= 0 || c.Onto != "" {
		for _, r := range runs {
			if err := forkRun(ctx, c, r); err != nil {
				return nil, err
			}
		}
	}
	// Replay is positional: a replayed run goes on in its cassette where it
	// had got to by the step it continues from.
	for i, r := range runs {
		if r.Backend.Replay != nil {
			r.Backend.Replay.StartAt(loop.CassettePosition(f.Runs[i], c.From))
		}
	}
	return runs, nil
}

// readResumed finds and reads the session --resume names, refusing flags
// that cannot apply to it (another dialect or a workspace for both runs
// of a comparison).
func readResumed(c Config) (string, *session.File, error) {
	dir, derr := session.Dir(os.Getenv)
	path, err := session.Find(dir, c.Resume)
	if err != nil {
		if derr != nil && !strings.ContainsRune(c.Resume, os.PathSeparator) {
			err = fmt.Errorf("%w (%w)", err, derr)
		}
		return "", nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	f, err := session.Read(path)
	if err != nil {
		return "", nil, fmt.Errorf("%w: --resume: %w", ErrUsage, err)
	}
	if c.Onto != "" && len(f.Runs) > 1 {
		return "", nil, sentence.Errorf("%w: --provider/--tool-mode with --resume continue one run on another dialect; %s holds the two runs of a comparison", ErrUsage, path)
	}
	if c.Workspace != "" && len(f.Runs) > 1 {
		return "", nil, sentence.Errorf("%w: --workspace with --resume names the folder of one run; %s holds the two runs of a comparison, each in its own folder beside it", ErrUsage, path)
	}
	return path, f, nil
}

// resumedConfigs are the Configs of the session's runs (resumedConfig),
// each checked for outputs that would overwrite what it reads.
func resumedConfigs(c Config, path string, f *session.File) ([]Config, error) {
	var configs []Config
	for _, rl := range f.Runs {
		rc, err := resumedConfig(c, path, rl.Info)
		if err != nil {
			return nil, err
		}
		configs = append(configs, rc)
	}
	for _, rc := range configs {
		if err := checkOutputs(rc.outputs(), rc.inputsOf(path)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUsage, err)
		}
	}
	return configs, nil
}

// resumeEngine rebuilds r's engine from its part of the session (rl), its
// journal going on writing s, and notes what was recovered.
func (r *Run) resumeEngine(s *Session, rl *session.RunLog) error {
	j := loop.NewJournal(s.writer, r.Config.Name, r.Workspace.Root())
	j.KeepAnswers(r.answers)
	if rl.System != "" {
		r.engineCfg.System = rl.System
	}
	e, recovery, err := loop.Resume(r.engineCfg, rl, j)
	if err != nil {
		return fmt.Errorf("%w: --resume %s: %w", ErrUsage, s.Path, err)
	}
	r.Engine, r.Session = e, s
	if r.feed != nil {
		r.feed.Seed(e.History()) // the first call's content starts from here
	}
	s.journals = append(s.journals, j)
	if err := testCrash(j); err != nil {
		return err
	}
	if recovery != "" {
		s.Recovery = append(s.Recovery, prefixName(r.Config.Name)+recovery)
	}
	return nil
}

func prefixName(name string) string {
	if name == "" {
		return ""
	}
	return "[" + name + "] "
}

// tapBackend is the backend a tap's session names (loop/tap.CassetteProvider,
// spelled here so that opening a run does not depend on the tap).
const tapBackend = "tap"

// resumedConfig is the Config of a run as the session's header recorded
// it, with the person's flags where they apply (--yes, --trace, --json,
// --record, and the backend when --offline, --live or --replay is given).
//
// A session file is untrusted input (anyone can write one, or hand one to
// a learner): what could widen what commands may do is never taken from
// it. Its workspace is used only if it is the session's own folder
// (sessionWorkspace), and a policy file it names is used only when the
// person names it again with --policy.
func resumedConfig(c Config, path string, info session.RunInfo) (Config, error) {
	rc := c
	rc.Resume, rc.From, rc.Onto = "", -1, ""
	rc.Compare, rc.Name = nil, info.Name
	rc.Provider, rc.ToolMode, rc.Model = info.Provider, info.ToolMode, info.Model
	if info.Lesson != "" {
		rc.Lesson = info.Lesson
	}
	rc.MaxIterations = info.MaxIterations
	if err := refuseResume(c, path, info); err != nil {
		return rc, err
	}
	ws, err := sessionWorkspace(path, info, c.Workspace)
	if err != nil {
		return rc, err
	}
	rc.Workspace, rc.CopyWorkspace, rc.KeepWorkspace = ws, false, ""
	if d, err := backend.For(rc.Provider, rc.ToolMode); err == nil {
		rc.ToolMode = d.ToolMode // "" for a provider with one way of offering tools
	}
	if info.Name != "" {
		rc.Record = PerRunPath(c.Record, info.Name)
	}
	if !c.Offline && !c.Live && c.Replay == "" {
		switch info.Backend {
		case "offline":
			rc.Offline = true
		case "live":
			rc.Live = true
		case "replay":
			rc.Replay = info.Replay
		}
	}
	if _, err := os.Stat(rc.Workspace); err != nil {
		return rc, sentence.Errorf("%w: the session's workspace %s is gone (%v); a session can only continue on its files", ErrUsage, rc.Workspace, err)
	}
	return rc, nil
}

// refuseResume says why a run of the session at path cannot go on as c
// asks: it is a tap's, it is damaged, or it names a policy file the person
// did not name again.
func refuseResume(c Config, path string, info session.RunInfo) error {
	switch {
	case info.Backend == tapBackend:
		return sentence.Errorf("%w: %s is the session of a tap (another agent's calls): go on with it with glassbox tap --resume %s", ErrUsage, path, path)
	case info.MaxIterations < 1:
		return sentence.Errorf("%w: the session %s says max_iterations %d; it has been edited or is damaged", ErrUsage, path, info.MaxIterations)
	case info.Policy != "" && c.Policy == "":
		return sentence.Errorf("%w: the session %s ran under the policy file %s; glassbox never takes rules from a session file. To go on under them, name the file yourself: glassbox --resume %s --policy %s", ErrUsage, path, info.Policy, path, info.Policy)
	}
	return nil
}

// forkRun applies --from and --provider/--tool-mode to a resumed run.
func forkRun(ctx context.Context, c Config, r *Run) error {
	step := c.From
	if step < 0 {
		step = r.Engine.Seq()
	}
	if step > r.Engine.Seq() {
		return sentence.Errorf("%w: --from %d: the session has steps 0 to %d", ErrUsage, step, r.Engine.Seq())
	}
	if c.Onto == "" || c.Onto == r.Backend.Dialect.Name {
		err := r.Engine.Fork(step)
		if errors.Is(err, loop.ErrWorkspaceNotRestorable) {
			return fmt.Errorf("%w: --from %d: %w", ErrUsage, step, err)
		}
		return err
	}
	onto, err := r.onto(ctx, c.Onto, c)
	if err != nil {
		return err
	}
	if err := r.Engine.ForkOnto(step, onto.Onto, true); err != nil {
		if errors.Is(err, loop.ErrWorkspaceNotRestorable) {
			return fmt.Errorf("%w: --from %d: %w", ErrUsage, step, err)
		}
		return err
	}
	onto.Switched()
	return nil
}

// Onto is another dialect for a run to continue with (Engine.ForkOnto),
// reached the way the run's own backend is.
type Onto struct {
	loop.Onto
	// Switched records that the run's engine now uses it: call it after
	// ForkOnto succeeded.
	Switched func()
}

// OntoDialect builds the provider of another dialect for r, reached as
// the run's backend is (an offline run goes on offline), for a fork that
// continues with it. The backend is closed with the run.
func (r *Run) OntoDialect(ctx context.Context, name string) (Onto, error) {
	return r.onto(ctx, name, Config{})
}

func (r *Run) onto(ctx context.Context, name string, c Config) (Onto, error) {
	d, ok := backend.Lookup(name)
	if !ok {
		return Onto{}, sentence.Errorf("%w: %q is not a dialect; pick one of %s", ErrUsage, name, backend.Names())
	}
	oc := r.Config
	oc.Provider, oc.ToolMode, oc.Model = d.Provider, d.ToolMode, ""
	oc.Offline, oc.Live, oc.Replay = c.Offline, c.Live, c.Replay
	if !c.Offline && !c.Live && c.Replay == "" && (r.Backend.Kind == backend.KindOffline || r.Backend.Kind == backend.KindReplay) {
		oc.Offline = true // an offline (or replayed) session goes on offline
	}
	b, err := backend.Choose(ctx, backend.Options{
		Dialect: d, Offline: oc.Offline, OfflineWhy: oc.OfflineWhy, Live: oc.Live, SimLatency: oc.SimLatency, Replay: oc.Replay, Env: oc.Env, Call: oc.Call,
		GoLive: oc.GoLive,
	})
	if err != nil {
		return Onto{}, err
	}
	r.closers = append(r.closers, b.Close)
	return Onto{
		Onto: loop.Onto{Provider: b.Provider, Backend: b.Kind, BackendReason: b.Reason, Dialect: LoopDialect(b.Dialect)},
		Switched: func() {
			r.Backend = b
			r.Config.Provider, r.Config.ToolMode = d.Provider, d.ToolMode
		},
	}, nil
}

// checkSession checks the session flags against each other.
func checkSession(c Config) error {
	if c.Resume == "" {
		switch {
		case c.From >= 0:
			return sentence.Errorf("--from forks a resumed session: use it with --resume ID|FILE")
		case c.Onto != "":
			return sentence.Errorf("continuing on another dialect needs a session: use --provider with --resume ID|FILE")
		}
		return nil
	}
	switch {
	case c.Session != "":
		return sentence.Errorf("--resume continues the session in its own file; leave --session out")
	case len(c.Compare) > 0:
		return sentence.Errorf("--resume reopens the runs the session holds; leave --compare out")
	}
	return nil
}

// StepFlag is --from: a step number, unset (-1) until given.
type StepFlag struct{ N *int }

func (f StepFlag) String() string {
	if f.N == nil || *f.N < 0 {
		return ""
	}
	return strconv.Itoa(*f.N)
}

func (f StepFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return sentence.Errorf("want a step number (0 or more), not %q", v)
	}
	*f.N = n
	return nil
}

// ResumeFlags reads what the flags set on the command line (set) mean for
// a resumed session: an explicit --provider or --tool-mode continues on that
// dialect; --model cannot change a session's model.
func (c *Config) ResumeFlags(set map[string]bool) error {
	if c.Resume == "" {
		return nil
	}
	if set["model"] {
		return sentence.Errorf("--model with --resume: the session keeps its model; to continue on another provider use --provider (its default model)")
	}
	if !set["provider"] && !set["tool-mode"] {
		return nil
	}
	d, err := c.Dialect()
	if err != nil {
		return err
	}
	c.Onto = d.Name
	return nil
}

// DefaultSession gives a run without --session and --resume a new file in
// the sessions folder.
func (c *Config) DefaultSession(getenv func(string) string) error {
	if c.Session != "" || c.Resume != "" {
		return nil
	}
	path, err := NewSessionPath(getenv)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	c.Session = path
	return nil
}

// TestCrashVar names the crash tests' hook: GLASSBOX_TEST_CRASH_AT=STATE
// makes glassbox kill itself (SIGKILL, as kill -9 would) the moment the run
// enters STATE, with the step into it on disk; STATE:mid kills it when the
// step from STATE has done its work (the model answered, the tool ran, the
// person answered) and is not yet on disk. It exists for the crash tests
// (crash_test.go); nothing else sets it.
const TestCrashVar = "GLASSBOX_TEST_CRASH_AT"

func testCrash(j *loop.Journal) error {
	v := os.Getenv(TestCrashVar)
	if v == "" {
		return nil
	}
	name, mode, _ := strings.Cut(v, ":")
	state := loop.State(name)
	if !slices.Contains(loop.States, state) || (mode != "" && mode != "mid") {
		return sentence.Errorf("%w: %s=%s: want a state name, optionally followed by :mid", ErrUsage, TestCrashVar, v)
	}
	j.SetTestCrash(state, mode == "mid", func() {
		p, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = p.Kill()
			time.Sleep(10 * time.Second) // SIGKILL arrives meanwhile
		}
		log.Fatalf("glassbox: %s: could not kill itself: %v", TestCrashVar, err)
	})
	return nil
}
