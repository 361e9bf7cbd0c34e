package glassbox

import (
	"context"
	"os"
	"slices"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// ConfigFor is what the glass box shows of the runs glassbox opened
// (agentrun.OpenAll): each run's engine, person (persons, by run name) and
// backend, the lessons and dialects on offer, the sandbox's status, and for
// a resumed session its past steps and what resuming found. lesson is the
// lesson offered first.
func ConfigFor(lesson string, runs []*agentrun.Run, persons map[string]*Person) (Config, error) {
	cfg := Config{Lesson: lesson, NoColor: os.Getenv("NO_COLOR") != "", Sandbox: tools.SandboxStatus()}
	if len(runs) > 0 {
		cfg.Lang = lang.Lang(runs[0].Config.Lang)
		cfg.Sandbox = runs[0].Sandbox() // with the policy's network setting
		if exp := runs[0].Config.Telemetry; exp != nil {
			cfg.Telemetry = exp.Stats
		}
	}
	for _, d := range backend.Dialects() {
		cfg.Dialects = append(cfg.Dialects, d.Name)
	}
	language := "" // the lessons' titles and requests in the runs' language (--lang)
	if len(runs) > 0 {
		language = runs[0].Config.Lang
	}
	for _, l := range lessons.All() {
		cfg.Lessons = append(cfg.Lessons, Lesson{Name: l.Name, Title: l.TitleIn(language), Request: l.RequestIn(language), Dialects: backend.Showing(l), FromBus: l.FromBus})
	}
	for _, r := range runs {
		rc, err := runConfigFor(cfg.Lang, r, persons[r.Config.Name])
		if err != nil {
			return Config{}, err
		}
		cfg.Runs = append(cfg.Runs, rc)
		for _, k := range r.Config.Env.Secrets() {
			if !slices.Contains(cfg.Secrets, k) {
				cfg.Secrets = append(cfg.Secrets, k)
			}
		}
	}
	if len(runs) > 0 && runs[0].Session != nil {
		dir, _ := agentrun.SessionDir(os.Getenv)
		cfg.Resume = runs[0].Session.ResumeCommand("glassbox", dir)
		cfg.Session = runs[0].Session.Path
	}
	return cfg, nil
}

// runConfigFor is what the glass box shows of run r, opened by glassbox:
// its engine and person, its backend and why, its workspace, its place on
// the MCP bus, and for a resumed session its past and what resuming found.
func runConfigFor(l lang.Lang, r *agentrun.Run, person *Person) (RunConfig, error) {
	rc := RunConfig{
		Name:          r.Config.Name,
		Engine:        r.Engine,
		Person:        person,
		Banner:        r.Backend.Describe(),
		Backend:       r.Backend.Kind,
		BackendReason: r.Backend.Reason,
		BackendWhy:    r.Backend.Why,
		Workspace:     workspaceLabel(l, r),
		Temporary:     r.Temporary,
		// Every run is on the MCP bus, reached in-process by the
		// mcp-bus lesson and, with --mcp-listen, over HTTP.
		Bus: bus.New(bus.Options{Version: r.Config.Version, Secrets: r.Config.Env.Secrets()}),
	}
	rc.Bus.Bind(r.Engine, r.Wire())
	var err error
	if rc.Past, err = r.Past(); err != nil {
		return RunConfig{}, err
	}
	if s := r.Session; s != nil && s.Resumed {
		rc.Notes = append(append(rc.Notes, s.Warnings...), s.Recovery...)
	}
	for _, n := range r.Notes {
		rc.Notes = append(rc.Notes, l.Error(n))
	}
	if d, ok := backend.Lookup(r.Config.Name); ok {
		rc.Label = d.LabelIn(r.Config.Lang)
	}
	if r.Session != nil {
		rc.Exchanges = r.Exchanges
	}
	rc.Onto = func(ctx context.Context, dialect string) (loop.Onto, func(), error) {
		o, err := r.OntoDialect(ctx, dialect)
		return o.Onto, o.Switched, err
	}
	return rc, nil
}

// workspaceLabel is the workspace as a person reads it
// (agentrun.Run.WorkspaceLabelIn), in language l.
func workspaceLabel(l lang.Lang, r *agentrun.Run) string { return r.WorkspaceLabelIn(l.F) }
