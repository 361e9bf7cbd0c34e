// Package agentrun wires one run of the agent — backend, workspace, tools,
// policy, trace and engine — the same way for the TUI and for headless mode,
// from a Config made by the pipeline in config.go.
package agentrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// Run is one run of the agent, ready to step.
type Run struct {
	Config    Config
	Backend   *backend.Backend
	Workspace *tools.Workspace
	// Temporary says the workspace is a fresh copy of the sample project,
	// removed by Close (--workspace keeps its files).
	Temporary bool
	Engine    *loop.Engine
	// Session is the session file this run writes, shared by the runs of
	// compare mode (nil without one).
	Session *Session
	// Forks are the forks made when the session was reopened (--from,
	// --provider), for the front end to show.
	Forks []loop.ForkRecord
	// Notes are what the front end says before anything runs: the MCP
	// tools offered under another name than their server's (sentences, for
	// the front end to say in its language).
	Notes []error

	engineCfg loop.Config       // what Engine was built from (Resume rebuilds it)
	answers   *loop.KeptAnswers // the person's answers to questions, kept in the session
	closers   []func() error
	trace     *traceFile // --trace, or nil
	registry  *tools.Registry
	// feed hands the run's transitions to the OpenTelemetry exporter (nil
	// when export is off).
	feed *telemetry.Feed
	// exchanges reads payloads back from the session (Exchanges).
	exchanges   *loop.ExchangeReader
	exchangesMu sync.Mutex
}

// traceFile is the --trace file. Its writes are serialised and stop once
// it is closed, so a step still ending while glassbox shuts down cannot
// write into a closed file.
type traceFile struct {
	mu     sync.Mutex
	f      *os.File
	mask   *providers.Masker
	closed bool
}

func (t *traceFile) write(fn func(io.Writer) error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	var line bytes.Buffer
	err := fn(&line)
	if err == nil {
		// Each record is masked whole, over what the engine masked field
		// by field: a reason or a message that quotes a secret too.
		for _, rec := range bytes.SplitAfter(line.Bytes(), []byte("\n")) {
			body := bytes.TrimSuffix(rec, []byte("\n"))
			if _, err = t.f.Write(append(t.mask.MaskJSON(body), rec[len(body):]...)); err != nil {
				break
			}
		}
	}
	if err != nil {
		log.Printf("glassbox: --trace: %v", err)
	}
}

func (t *traceFile) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	return t.f.Close()
}

// Interrupted ends the run's trace with an interrupted record (Ctrl-C,
// SIGTERM, SIGHUP: cause says which) and returns the record for the front
// end to print. Call it before Close.
func (r *Run) Interrupted(cause error) loop.Interruption {
	rec := loop.Interruption{Run: r.Config.Name, Time: time.Now(), Interrupted: loop.InterruptRecord{
		State: r.Engine.State(), Cause: loop.CauseText(cause)}}
	if r.trace != nil {
		r.trace.write(func(w io.Writer) error { return loop.WriteInterruption(w, rec) })
	}
	return rec
}

// Open builds a run from a validated Config. person answers confirmations
// and questions (the TUI's dialogs, or standard input headless). Everything
// that can be refused is checked before anything is written: the policy
// and the workspace first, then the backend (which may create a cassette),
// then the trace.
func Open(ctx context.Context, c Config, person loop.Person) (_ *Run, err error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	r := &Run{Config: c}
	defer func() {
		if err != nil {
			r.Close() // what was made so far: a temporary workspace goes
		}
	}()
	if err := r.openWorkspace(c); err != nil {
		return nil, err
	}
	r.Workspace.SetQuota(c.Quota)
	// A .env in the workspace holds secrets glassbox did not read: they
	// are masked like the environment's.
	c.Env = c.Env.WithSecrets(workspaceSecrets(r.Workspace.Root())...)
	r.Config = c
	r.answers = loop.NewKeptAnswers(person) // saved in the session as given
	r.registry = tools.Default(r.Workspace, r.answers, 0)
	policy, err := r.confine(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := r.openBackend(ctx, c); err != nil {
		return nil, err
	}
	onTransition, err := r.openTrace(c)
	if err != nil {
		return nil, err
	}
	// Spans go to the collector (--otlp) from what each step records.
	onTransition = both(onTransition, r.observe(c, r.registry, ""))
	person = r.answers
	if c.Yes {
		person = yesPerson{person}
	}
	r.engineCfg = loop.Config{
		Provider:      r.Backend.Provider,
		Backend:       r.Backend.Kind,
		BackendReason: r.Backend.Reason,
		Tools:         r.registry,
		Workspace:     r.Workspace,
		Policy:        policy,
		Person:        person,
		MaxIterations: c.MaxIterations,
		Run:           c.Name,
		Sleep:         c.Sleep,
		OnTransition:  onTransition,
		// Keys are masked in everything the engine records, whichever
		// backend runs: a tool's output may still quote one.
		Secrets: c.Env.Secrets(),
		Dialect: LoopDialect(r.Backend.Dialect),
		OnFork: func(f loop.ForkRecord) {
			r.Forks = append(r.Forks, f)
			if r.trace != nil {
				r.trace.write(func(w io.Writer) error { return traceFork(w, f) })
			}
		},
	}
	r.Engine, err = loop.New(r.engineCfg)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// openWorkspace opens the folder the run's tools may touch: a session's
// kept workspace, --workspace itself or a copy of it, or a fresh copy of
// the sample project. Only a folder glassbox made itself is removed when
// the run closes.
func (r *Run) openWorkspace(c Config) (err error) {
	switch {
	case c.KeepWorkspace != "":
		if r.Workspace, err = keptWorkspace(c.KeepWorkspace, c.Workspace); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
	case c.Workspace != "" && !c.CopyWorkspace:
		if r.Workspace, err = tools.NewWorkspace(c.Workspace); err != nil {
			return fmt.Errorf("%w: --workspace: %w", ErrUsage, err)
		}
	case c.Workspace != "":
		if r.Workspace, err = copyWorkspace(c.Workspace); err != nil {
			return fmt.Errorf("%w: --workspace %s: %w", ErrUsage, c.Workspace, err)
		}
		r.Temporary = true
	default:
		if r.Workspace, err = tools.NewSampleWorkspace(); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		r.Temporary = true
	}
	if r.Temporary {
		root := r.Workspace.Root()
		r.closers = append(r.closers, func() error { return os.RemoveAll(root) })
	}
	return nil
}

// confine loads the policy (built in, or --policy) and confines the
// tools by it: execute_command's network, variables and concealed files,
// which the MCP servers started under the same sandbox share; a policy
// file's tool names are checked against the tools the run has.
func (r *Run) confine(ctx context.Context, c Config) (*loop.Policy, error) {
	policy := loop.DefaultPolicy()
	if c.Policy != "" {
		var err error
		if policy, err = loop.LoadPolicy(c.Policy); err != nil {
			return nil, sentence.Errorf("%w: --policy %s: %w", ErrUsage, c.Policy, err)
		}
	}
	var box tools.Confinement
	if t, ok := r.registry.Get(tools.ExecuteCommandName); ok {
		ec := t.(*tools.ExecuteCommand)
		ec.AllowNetwork(policy.Network)
		if err := ec.PassEnv(policy.Env); err != nil {
			return nil, sentence.Errorf("%w: --policy %s: %w", ErrUsage, c.Policy, err)
		}
		ec.Conceal(concealed(c, r.Workspace.Root()))
		box = ec.Confinement()
	}
	// A stdio server runs under the commands' sandbox, with the same
	// network, variables and concealed files.
	if err := r.attachMCP(ctx, c, box); err != nil {
		return nil, err
	}
	if c.Policy != "" {
		if err := policy.CheckTools(r.registry.Names()); err != nil {
			return nil, sentence.Errorf("%w: --policy %s: %w", ErrUsage, c.Policy, err)
		}
	}
	return policy, nil
}

// openBackend chooses how the dialect is reached (providers/backend) and
// refuses now a tool the dialect cannot describe (an MCP server's schema
// Ollama's native tools cannot carry), not at the first call.
func (r *Run) openBackend(ctx context.Context, c Config) error {
	dialect, _ := c.Dialect() // Validate checked it
	var recordTemp string
	if c.Record != "" {
		recordTemp = recordTempDir(os.Getenv)
	}
	var err error
	r.Backend, err = backend.Choose(ctx, backend.Options{
		Dialect: dialect, Model: c.Model, Offline: c.Offline, OfflineWhy: c.OfflineWhy, Live: c.Live,
		SimLatency: c.SimLatency, Replay: c.Replay, Record: c.Record, RecordTemp: recordTemp, Env: c.Env, Call: c.Call,
		GoLive: c.GoLive,
	})
	if err != nil {
		if errors.Is(err, backend.ErrWrongDialect) {
			err = fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return err
	}
	r.closers = append(r.closers, r.Backend.Close)
	if tc, ok := r.Backend.Provider.(interface {
		CheckTools([]history.ToolSpec) error
	}); ok {
		if err := tc.CheckTools(r.registry.Specs()); err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
	}
	return nil
}

// openTrace opens --trace for appending and returns what writes each
// transition to it (nil without --trace).
func (r *Run) openTrace(c Config) (func(loop.Transition), error) {
	if c.Trace == "" {
		return nil, nil
	}
	f, err := os.OpenFile(c.Trace, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: --trace: %w", ErrUsage, err)
	}
	r.trace = &traceFile{f: f, mask: providers.NewMasker(c.Env.Secrets()...)}
	r.closers = append(r.closers, r.trace.close)
	return func(t loop.Transition) { r.trace.write(func(w io.Writer) error { return loop.WriteJSON(w, t) }) }, nil
}

// concealed are the files this run's commands must not read: every .env
// glassbox read — its own settings' and those at the top of the workspace
// (workspaceSecrets) — and where the run works on a copy of the folder
// that held its own (--compare, a session's kept workspace), its copy
// there.
func concealed(c Config, root string) []string {
	hide := tools.DotEnvFiles(root)
	if c.DotEnv == "" {
		return hide
	}
	hide = append(hide, c.DotEnv)
	if c.Workspace == "" {
		return hide
	}
	src, err := filepath.Abs(c.Workspace)
	if err == nil {
		src, err = filepath.EvalSymlinks(src)
	}
	if err != nil {
		return hide
	}
	dotenv, err := filepath.EvalSymlinks(c.DotEnv)
	if err != nil {
		return hide
	}
	if rel, err := filepath.Rel(src, dotenv); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		hide = append(hide, filepath.Join(root, rel))
	}
	return hide
}

// Sandbox is the sandbox line of this run's commands (tools.SandboxStatus
// with the policy's network setting): what confines them and what this
// kernel leaves open.
func (r *Run) Sandbox() string {
	if r.registry != nil {
		if ec, ok := r.registry.Get(tools.ExecuteCommandName); ok {
			return ec.(*tools.ExecuteCommand).LastSandbox()
		}
	}
	return tools.SandboxStatus()
}

// WorkspaceLabel is the workspace as a person should read it.
func (r *Run) WorkspaceLabel() string { return r.WorkspaceLabelIn(loop.English) }

// WorkspaceLabelIn is WorkspaceLabel said with say (a front end's language).
func (r *Run) WorkspaceLabelIn(say loop.Say) string {
	root := r.Workspace.Root()
	switch {
	case r.Temporary && r.Config.Workspace != "":
		return say("%s (this run's own copy of %s, removed on exit)", root, r.Config.Workspace)
	case r.Temporary:
		return say("%s (a fresh copy of the sample project, removed on exit; --workspace DIR keeps the files)", root)
	case r.Config.KeepWorkspace != "":
		return say("%s (kept with the session)", root)
	}
	return root
}

// copyWorkspace copies dir into a new temporary folder: in compare mode each
// run writes to its own copy, so neither sees the other's files.
func copyWorkspace(dir string) (*tools.Workspace, error) {
	tmp, err := os.MkdirTemp("", "glassbox-workspace-*")
	if err != nil {
		return nil, sentence.Errorf("create a temporary copy: %w", err)
	}
	if err := tools.CopyFolder(context.Background(), tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return nil, sentence.Errorf("copying it for this run failed (%v); compare mode works on a copy of the folder per run", err)
	}
	ws, err := tools.NewWorkspace(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return ws, nil
}

// attachMCP attaches the --mcp servers (docs/mcp.md): a stdio server runs
// in the workspace under the commands' sandbox (box); each server's tools
// join the registry after the built-in ones, and every server is closed
// with the run. With --record, the run's frames are written beside the cassette when it
// closes; with --replay, the servers of that recording answer instead
// (--mcp starts nothing).
func (r *Run) attachMCP(ctx context.Context, c Config, box tools.Confinement) error {
	wire := r.registry.Wire()
	if c.Record != "" {
		wire.Keep()
		path, secrets := mcptool.RecordingPath(c.Record), c.Env.Secrets()
		r.closers = append(r.closers, func() error { // runs after the servers close
			frames := wire.Kept()
			if len(frames) == 0 {
				return nil
			}
			m := providers.NewMasker(secrets...)
			for i := range frames {
				frames[i] = loop.MaskFrame(m, frames[i])
			}
			return mcptool.WriteRecording(path, frames)
		})
	}
	var servers []*mcptool.Server
	if c.Replay != "" {
		frames, err := mcptool.LoadRecording(mcptool.RecordingPath(c.Replay))
		if err != nil {
			return fmt.Errorf("%w: --replay: %w", ErrUsage, err)
		}
		if servers, err = mcptool.ReplayServers(ctx, frames, wire, mcptool.Options{}); err != nil {
			return fmt.Errorf("%w: --replay: %w", ErrUsage, err)
		}
		for _, s := range servers {
			r.closers = append(r.closers, s.Close)
		}
	} else {
		for _, m := range c.MCP {
			spec, err := mcptool.ParseSpec(m)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrUsage, err)
			}
			s, err := mcptool.Attach(ctx, spec, wire, mcptool.Options{Dir: r.Workspace.Root(), Sandbox: box})
			if err != nil {
				// A server that cannot be reached is how glassbox was started.
				// Its log (in err) may quote a secret it could read.
				return fmt.Errorf("%w: --mcp %s: %s", ErrUsage, spec.Name, providers.NewMasker(c.Env.Secrets()...).Mask(err.Error()))
			}
			servers = append(servers, s)
			r.closers = append(r.closers, s.Close)
		}
	}
	for _, s := range servers {
		if err := r.registry.Add(s.Tools()...); err != nil {
			return fmt.Errorf("--mcp %s: %w", s.Name(), err)
		}
		for _, rn := range s.Renamed() {
			r.Notes = append(r.Notes, sentence.Errorf("the MCP server %s names a tool %q, which no model accepts as a name: it is offered as %s and called by its own name", s.Name(), rn.Remote, rn.Offered))
		}
	}
	return nil
}

// Close ends the run: the cassette and trace are finished and a temporary
// workspace is removed. It reports every error it met.
func (r *Run) Close() error {
	// This run's commands still running stop first, with everything they
	// started: nothing may keep writing into a folder about to go.
	if r.registry != nil { // nil when Open failed before making it
		if ec, ok := r.registry.Get(tools.ExecuteCommandName); ok {
			ec.(*tools.ExecuteCommand).StopCommands()
		}
	}
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i]())
	}
	r.closers = nil
	return errors.Join(errs...)
}

// yesPerson approves every confirmation (--yes) and passes questions on. The
// trace still shows confirm_required → user_approval, as a person would have
// seen it; DENY rules are never asked, so they still deny. A confirmation
// that needs a person (the security layer could not know what the command
// runs) is not answered: it goes as if no person had answered, denied, with
// the reason.
type yesPerson struct{ loop.Person }

func (yesPerson) Confirm(_ context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	if req.Decision.NeedsPerson {
		return loop.Deny, sentence.Errorf("--yes does not answer this confirmation, only a person may (rule %s: %s)",
			req.Decision.Rule, req.Decision.Reason)
	}
	return loop.AllowOnce, nil
}

// OpenAll opens every run of c — one, or two in compare mode — each with the
// person person(name) returns. If one cannot open, none stays open.
//
// With c.Resume, the runs are those of the session it names, rebuilt from
// the file; with c.Session, every run writes that session file.
func OpenAll(ctx context.Context, c Config, person func(name string) loop.Person) ([]*Run, error) {
	switch {
	case c.Resume != "":
		return resumeSession(ctx, c, person)
	case c.Session != "":
		return openSession(ctx, c, person)
	}
	return openRuns(ctx, c.Runs(), person)
}

// openRuns opens each run; if one cannot open, none stays open.
func openRuns(ctx context.Context, configs []Config, person func(name string) loop.Person) ([]*Run, error) {
	var runs []*Run
	for _, rc := range configs {
		r, err := Open(ctx, rc, person(rc.Name))
		if err != nil {
			CloseAll(runs)
			if rc.Name != "" {
				err = sentence.Errorf("the %s run: %w", rc.Name, err)
			}
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// CloseAll closes every run and reports every error.
func CloseAll(runs []*Run) error {
	var errs []error
	for _, r := range runs {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// LoopDialect is what the engine needs to know of a dialect.
func LoopDialect(d backend.Dialect) loop.Dialect {
	return loop.Dialect{Name: d.Name, Label: d.Short, ToolMode: d.ToolMode, Native: d.Native, Dropped: d.Dropped}
}
