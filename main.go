// Command glassbox is a full-screen terminal glass box for an AI coding
// agent: every transition of its Think → Act → Observe loop is visible and
// steppable, with the raw HTTP payloads, the security decisions and the tool
// results. Run it with no arguments for the TUI, or `glassbox run PROMPT` for
// a headless trace.
//
// This file binds flags, dispatches subcommands and chooses exit codes; the
// wiring lives in loop/agentrun, backend choice in providers/backend, the
// front ends under ui/ (ui/glassbox, ui/headless, ui/serve, …).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
	anatomycmd "github.com/glassbox-dev/glassbox/ui/anatomy"
	"github.com/glassbox-dev/glassbox/ui/export"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/headless"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/open"
	"github.com/glassbox-dev/glassbox/ui/role"
	"github.com/glassbox-dev/glassbox/ui/serve"
	"github.com/glassbox-dev/glassbox/ui/sessions"
	"github.com/glassbox-dev/glassbox/ui/tapbox"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes (docs/architecture.md, "How a run is opened").
const (
	exitOK       = 0
	exitProvider = 1
	exitUsage    = 2
	exitHalted   = 3
)

func main() {
	// First of all: started as the sandbox helper, glassbox confines
	// itself, runs one command and exits here.
	tools.RunSandboxHelper()
	// Secrets leave glassbox's environment block (/proc/PID/environ): it
	// re-executes itself without them and reads them from a pipe.
	if err := agentrun.HideSecrets(); err != nil {
		l := langOf(os.Args[1:])
		fmt.Fprintf(os.Stderr, "glassbox: %s\n", l.F("could not hide the secret variables from commands (%s); they stay readable in /proc/%d/environ", l.Error(err), os.Getpid()))
	}
	// Orphans of a command (setsid daemons whose parent died) become
	// glassbox's children, so they can be found and stopped.
	if err := tools.BecomeSubreaper(); err != nil {
		l := langOf(os.Args[1:])
		fmt.Fprintf(os.Stderr, "glassbox: %s\n", l.F("cannot become a subreaper (%s): a command's detached processes may outlive it", l.Error(err)))
	}
	// A glassbox killed outright (kill -9) left its commands' folders
	// (and, a helper killed outright, cgroups) behind; this start removes
	// those whose owner is gone.
	tools.RemoveStaleCommandFolders()
	tools.RemoveStaleCgroups()
	// Ctrl-C, kill (SIGTERM) and a closed terminal (SIGHUP) all end the
	// run the same way: children stopped, the trace closed with an
	// interrupted record, temporary files removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := realMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	tools.StopAllCommands() // whatever path ended the program
	os.Exit(code)
}

// realMain is main without the process: tests call it directly. A first
// argument that names a subcommand runs it; anything else opens the
// full-screen glass box with those flags.
func realMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if c, ok := lookup(args[0]); ok {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return runTUI(ctx, args, stdin, stdout, stderr)
}

// runFunc runs a subcommand on the arguments after its name and returns
// the exit code.
type runFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// mainFunc is a subcommand that lives in its own package, flags and all
// (docs/architecture.md, "Subcommands"): it returns an error and
// main chooses the exit code (exits).
type mainFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// subcommand is one row of the table: `glassbox NAME ARGS…` runs run on
// ARGS. Dispatch, `glassbox help` and `glassbox --help` are all read from
// the table.
type subcommand struct {
	name    string  // what follows glassbox
	args    string  // what follows the name in the help ("[flags] PROMPT"), typed as it is
	summary string  // one line; an English sentence of the catalog (ui/lang/ja_cli.go)
	run     runFunc // the exit code it returns is glassbox's
	hidden  bool    // glassbox's own (mcp-demo): dispatched, never listed
}

// subcommands is the table, in the order the help lists it. Adding a
// subcommand is its package and one row here.
func subcommands() []subcommand {
	return []subcommand{
		{"run", "[flags] PROMPT", "headless: run the loop on PROMPT and print the trace", runCommand, false},
		{"lessons", "", "list the bundled offline lessons", listLessons, false},
		{"sessions", "[--stats [ID]]", "list the saved sessions (resume one with --resume ID); --stats adds each run's health", exits("glassbox sessions", sessions.Main), false},
		{"export", "SESSION [--step N] [--format md|html|har] [--out FILE]", "a step or a whole session as a self-contained page (a handout), or its HTTP exchanges as HAR", exits("glassbox export", export.Main(version)), false},
		{"tap", "[flags]", "a glass box around any agent: its model calls held and stepped (point it at the address printed)", exits("glassbox tap", tapbox.Main(version)), false},
		{"anatomy", "SESSION|CASSETTE [--step N] [--run NAME] [--json]", "what each model call's request is made of, what each part costs, and how the requests grow", exits("glassbox anatomy", anatomycmd.Main), false},
		{"rosetta", "SESSION --step N [--run NAME] [--format md|html]", "one step's conversation as every dialect would send it, side by side", exits("glassbox rosetta", anatomycmd.RosettaMain), false},
		{"open", "FILE [--json]", "step through a trace another tool wrote (HAR, OTLP JSON, Gemini CLI telemetry), read only", exits("glassbox open", open.Main), false},
		{"serve", "[flags]", "serve a glass box to each learner over SSH (ssh -p 2222 HOST)", serveRoom, false},
		{"follow", "ADDR [--fingerprint SHA256:…]", "follow an instructor's broadcast in your own glass box, read only", followRoom, false},
		{"mcp-serve", "[flags]", "glassbox on the MCP bus over standard input and output: ask_agent calls become events", mcpServe, false},
		{"version", "", "print glassbox's version", printVersion, false},
		{"help", "", "this list of commands", help, false},
		{mcptool.DemoArg, "", "the demo MCP server on standard input and output (what --mcp demo starts)", serveDemo, true},
	}
}

// lookup is the subcommand named name.
func lookup(name string) (subcommand, bool) {
	for _, c := range subcommands() {
		if c.name == name {
			return c, true
		}
	}
	return subcommand{}, false
}

// exits runs a subcommand of its own package: nil and flag.ErrHelp (the
// help was asked for and shown) exit 0; an error is printed after name,
// with exit code 2 when it wraps agentrun.ErrUsage and 1 otherwise.
func exits(name string, m mainFunc) runFunc {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		err := m(ctx, args, stdin, stdout, stderr)
		if err == nil || errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail(langOf(args), stderr, name, err)
	}
}

// runCommand is `glassbox run`, waiting for real between retries.
func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runHeadless(ctx, args, nil, stdin, stdout, stderr)
}

// printVersion is `glassbox version`.
func printVersion(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "glassbox %s\n", version)
	return exitOK
}

// help is `glassbox help [--lang ja]`: the commands, and where the flags are.
func help(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) int {
	l := langOf(args)
	overview(l, stdout)
	fmt.Fprintln(stdout, "\n"+l.T("Run 'glassbox run -h' for the flags."))
	return exitOK
}

// overview writes what glassbox is and its commands, one line each (two
// when the usage is long), from the table: `glassbox help` and the glass
// box's own `glassbox --help` both begin with it.
func overview(l lang.Lang, w io.Writer) {
	fmt.Fprintln(w, l.T("glassbox: a glass box for an AI coding agent."))
	fmt.Fprintln(w, "\n"+l.T("Usage:"))
	line := func(usage, summary string) {
		const column = 30 // where the summaries begin, after "  "
		if len(usage) < column-1 {
			fmt.Fprintf(w, "  %-*s%s\n", column, usage, summary)
			return
		}
		fmt.Fprintf(w, "  %s\n  %*s%s\n", usage, column, "", summary)
	}
	line("glassbox [flags]", l.T("full-screen TUI (offline simulation unless a provider is configured)"))
	for _, c := range subcommands() {
		if !c.hidden {
			line(strings.TrimSpace("glassbox "+c.name+" "+c.args), l.Dyn(c.summary))
		}
	}
}

// langOf is the language of a command's help and of what it says before
// its flags are parsed (lang.OfArgs).
func langOf(args []string) lang.Lang { return lang.OfArgs(args, os.Getenv) }

// chosenLang is the language a command speaks after loadConfig: the one
// it chose, or, when it failed before choosing, langOf(args).
func chosenLang(c agentrun.Config, err error, args []string) lang.Lang {
	if err == nil {
		return lang.Lang(c.Lang)
	}
	return langOf(args)
}

// loadConfig is the config pipeline: defaults, then .env under the
// environment, then the flags, then validation. It returns the positional
// arguments left after the flags; err wraps agentrun.ErrUsage for a mistake,
// or is flag.ErrHelp.
func loadConfig(name string, args []string, headless bool, stderr io.Writer) (agentrun.Config, []string, error) {
	return loadConfigWith(name, args, headless, stderr, nil)
}

// loadConfigWith is loadConfig with more flags: extra binds them.
func loadConfigWith(name string, args []string, headless bool, stderr io.Writer, extra func(*flag.FlagSet, lang.Lang)) (agentrun.Config, []string, error) {
	l := langOf(args)
	c := configFromEnv(name, headless, l, stderr)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	bindFlags(fs, &c, headless, l)
	if extra != nil {
		extra(fs, l)
	}
	fs.Usage = func() {
		commandUsage(name, headless, l, stderr)
		printDefaults(fs, name)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, nil, err
		}
		return c, nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if err := checkConfig(&c, fs); err != nil {
		return c, nil, err
	}
	l, err := lang.Choose(c.Lang, os.Getenv)
	if err != nil {
		return c, nil, fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	c.Lang = l.String()
	// On one's own terminal the tutor names one's own flags; serve words
	// it for its instructor and learners (ui/role).
	c.GoLive = role.Local.TutorGoLive()
	return c, fs.Args(), nil
}

// configFromEnv is the first half of the pipeline: the defaults, then .env
// under the environment. What it ignores it says on stderr.
func configFromEnv(name string, headless bool, l lang.Lang, stderr io.Writer) agentrun.Config {
	c := agentrun.Defaults(headless)
	dot, ignored, err := agentrun.ReadDotEnv(".env")
	if err != nil {
		fmt.Fprintf(stderr, "%s: .env: %s\n", name, l.F("%s (file ignored)", l.Error(err)))
	}
	if abs, err := filepath.Abs(".env"); err == nil && dot != nil {
		c.DotEnv = abs // hidden from commands, even inside the workspace
	}
	if len(ignored) > 0 {
		fmt.Fprintf(stderr, "%s: .env: %s\n", name, l.F("ignored %s — glassbox reads only its own variables from .env", strings.Join(ignored, ", ")))
	}
	c.ApplyEnv(agentrun.Layered(os.Getenv, func(k string) string { return dot[k] }))
	c.Env = c.Env.WithSecrets(agentrun.SecretsIn(os.Environ(), ".env")...)
	for _, w := range agentrun.DotEnvAddresses(dot, os.Getenv) {
		fmt.Fprintf(stderr, "%s: .env: %s\n", name, l.Error(w))
	}
	return c
}

// commandUsage is what -h prints above the flags of a command that loads
// the config; the glass box's own (`glassbox --help`) lists the commands.
func commandUsage(name string, headless bool, l lang.Lang, stderr io.Writer) {
	switch {
	case name == "glassbox mcp-serve":
		fmt.Fprintln(stderr, l.T("Usage: glassbox mcp-serve [flags]\n\nServes glassbox as an MCP server over standard input and output: each ask_agent call\nbecomes an mcp_bus event, and the run's answer is the call's result. The trace goes to\nstandard error; confirmations are asked on the terminal, else of the client (docs/mcp.md).\n\nFlags:"))
	case name == "glassbox serve":
		fmt.Fprintln(stderr, l.T("Usage: glassbox serve [flags]\n\nServes a glass box to every learner over SSH. Provider flags apply to every learner;\nthe flags that name one person's files (--workspace, --session, --resume, --from,\n--compare, --trace, --record) are not for a room: each learner has their own.\n\nLearners get in with the workshop passphrase: a new one is made and printed at every\nstart, or set GLASSBOX_PASSPHRASE to choose it (at least 8 characters; it is never\nprinted). With --authorized-keys only those keys get in and no passphrase is made;\nwith GLASSBOX_PASSPHRASE set as well, either gets in.\n\nFlags:"))
	case headless:
		fmt.Fprintln(stderr, l.T("Usage: glassbox run [flags] PROMPT\n\nRuns the agent loop on PROMPT until it is idle and prints every transition.\nWith --lesson and no PROMPT, the lesson's own request is used.\n\nFlags:"))
	default:
		overview(l, stderr)
		fmt.Fprintln(stderr, "\n"+l.T("Flags of the full-screen glass box (glassbox [flags]):"))
	}
}

// printDefaults lists fs's flags as -h shows them; serve's leave out the
// run flags a room refuses (serve.Refuses).
func printDefaults(fs *flag.FlagSet, name string) {
	if name != "glassbox serve" {
		fs.PrintDefaults()
		return
	}
	shown := flag.NewFlagSet(name, flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if !serve.Refuses(f.Name) {
			shown.Var(f.Value, f.Name, f.Usage)
		}
	})
	shown.PrintDefaults()
}

// checkConfig is the last half of the pipeline, once the flags are
// parsed: the checks that span several
// flags, then validation. Its errors wrap agentrun.ErrUsage.
func checkConfig(c *agentrun.Config, fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.CompareSpec == "true" && fs.NArg() > 0 && agentrun.LooksLikeCompare(fs.Arg(0)) {
		// A boolean-style flag takes its value only after "=": the list
		// would otherwise become the request.
		return sentence.Errorf("%w: --compare %s: write --compare=%s (with \"=\"); with a space the list is read as the request", agentrun.ErrUsage, fs.Arg(0), fs.Arg(0))
	}
	if err := c.ApplyCompare(); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if err := c.ResumeFlags(set); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	// The mcp-tool lesson needs a server: started for it without one, it
	// gets the demo server inside glassbox. Only a person's --lesson does
	// this, never a session file's (--resume takes --mcp again).
	if c.Lesson == lessons.MCPTool && len(c.MCP) == 0 && c.Resume == "" {
		c.MCP = []string{mcptool.DemoName}
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	return nil
}

// bindFlags binds the flags (docs/architecture.md, "How a run is opened") onto c; c's values are the defaults.
func bindFlags(fs *flag.FlagSet, c *agentrun.Config, headless bool, l lang.Lang) {
	fs.StringVar(&c.Provider, "provider", c.Provider, l.F("which provider: %s", backend.Providers()))
	fs.StringVar(&c.Model, "model", c.Model, l.F("model id (default %s); in compare mode, for every run without its own @MODEL", backend.DefaultModels()))
	fs.StringVar(&c.ToolMode, "tool-mode", c.ToolMode, l.F("how the tools are offered, for a provider with several ways: %s", backend.ToolModes()))
	fs.BoolVar(&c.Offline, "offline", c.Offline, l.T("force the offline simulation"))
	fs.BoolVar(&c.Live, "live", c.Live, l.T("force the live service (never falls back to offline)"))
	fs.StringVar(&c.Lesson, "lesson", c.Lesson, l.T("offline: which lesson's request to start with (see 'glassbox lessons')"))
	fs.DurationVar(&c.SimLatency, "sim-latency", c.SimLatency, l.T("offline: simulated delay per provider call"))
	fs.StringVar(&c.Workspace, "workspace", c.Workspace, l.T("the folder the tools may touch (default: a fresh copy of the sample project, kept with the session)"))
	fs.IntVar(&c.MaxIterations, "max-iterations", c.MaxIterations, l.T("LLM calls per event before HALTED"))
	fs.StringVar(&c.Policy, "policy", c.Policy, l.T("security rules (TOML) replacing the built-in ones (docs/policy.md)"))
	fs.BoolVar(&c.Yes, "yes", c.Yes, l.T("approve every confirmation (DENY rules still deny; one that needs a person is never approved)"))
	fs.StringVar(&c.Record, "record", c.Record, l.T("write a cassette of the raw HTTP exchanges to FILE"))
	fs.StringVar(&c.Replay, "replay", c.Replay, l.T("serve the provider from a cassette FILE (no key, no network)"))
	fs.StringVar(&c.Trace, "trace", c.Trace, l.T("also append the JSONL trace to FILE"))
	fs.StringVar(&c.Lang, "lang", c.Lang, l.T("the language of what you read: en or ja (default: from LC_ALL, LC_MESSAGES or LANG); the JSONL trace and payloads stay as they are"))
	fs.Var(mcpFlag{&c.MCP}, "mcp", l.T("attach an MCP server: NAME=COMMAND ARGS… (stdio), NAME=URL (streamable HTTP) or demo (the one bundled in glassbox); repeatable; its tools join as NAME__tool (docs/mcp.md)"))
	fs.StringVar(&c.Session, "session", c.Session, l.T("autosave the session to FILE (default: a new file under $XDG_STATE_HOME/glassbox/sessions)"))
	fs.StringVar(&c.Resume, "resume", c.Resume, l.T("reopen a saved session, by id or file (see 'glassbox sessions')"))
	fs.Var(agentrun.StepFlag{N: &c.From}, "from", l.T("with --resume: fork from step N (the future cut, the workspace restored to that step; default: the last step)"))
	fs.DurationVar(&c.Call.Limits.Stall, "stall", c.Call.Limits.Stall, l.T("a model call with no byte for this long fails (stalled) and is retried"))
	fs.DurationVar(&c.Call.Limits.Call, "call-timeout", c.Call.Limits.Call, l.T("a model call longer than this fails and is retried"))
	fs.Var(streamFlag{&c.Call.Unary}, "stream", l.T("stream every model call; --stream=false makes unary calls (one request, one JSON body)"))
	fs.IntVar(&c.Call.NumPredict, "num-predict", c.Call.NumPredict, l.T("Llama only: the most tokens one reply may have (Ollama's num_predict; -1: no bound)"))
	fs.StringVar(&c.OTLP, "otlp", c.OTLP, l.T("send OpenTelemetry GenAI spans to a collector at URL over OTLP/HTTP (such as http://localhost:4318; /v1/traces is added); also OTEL_EXPORTER_OTLP_ENDPOINT (docs/standards.md)"))
	fs.BoolVar(&c.OTLPContent, "otlp-content", c.OTLPContent, l.T("with --otlp: the spans also carry the messages, system instructions, tool arguments and results, masked"))
	fs.Var(compareFlag{&c.CompareSpec}, "compare", l.F("two runs side by side on the same input: --compare (%s) or --compare=A[@MODEL],B[@MODEL] from %s", agentrun.CompareDefault(), backend.Names()))
	if headless {
		fs.BoolVar(&c.JSON, "json", c.JSON, l.T("print the JSONL trace on stdout instead of the human trace"))
	}
}

// streamFlag is --stream (the default) and --stream=false, kept as its
// opposite, CallOptions.Unary.
type streamFlag struct{ unary *bool }

func (f streamFlag) String() string {
	if f.unary == nil {
		return "true"
	}
	return strconv.FormatBool(!*f.unary)
}

func (f streamFlag) Set(v string) error {
	stream, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", v)
	}
	*f.unary = !stream
	return nil
}

func (streamFlag) IsBoolFlag() bool { return true }

// serveDemo is the hidden subcommand `glassbox mcp-demo`: the demo MCP
// server on standard input and output, which --mcp demo starts under the
// sandbox (docs/mcp.md, "The demo server").
func serveDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	l := lang.FromLocale(os.Getenv)
	if len(args) > 0 {
		fmt.Fprintln(stderr, l.F("glassbox %s takes no arguments: it serves the demo MCP server on standard input and output (attach it with --mcp demo)", mcptool.DemoArg))
		return exitUsage
	}
	if err := mcptool.ServeDemo(ctx, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, l.F("glassbox %s: the demo MCP server stopped: %v", mcptool.DemoArg, err))
		return exitProvider
	}
	return exitOK
}

// mcpFlag collects the repeated --mcp values.
type mcpFlag struct{ specs *[]string }

func (f mcpFlag) String() string {
	if f.specs == nil {
		return ""
	}
	return strings.Join(*f.specs, " ")
}

func (f mcpFlag) Set(v string) error {
	*f.specs = append(*f.specs, v)
	return nil
}

// compareFlag is --compare: a boolean-style flag (bare --compare compares
// agentrun.DefaultCompare) that also takes =A,B. Its value is read by
// Config.ApplyCompare, so a mistake gets glassbox's own message rather than
// the flag package's "invalid boolean value" and the whole usage.
type compareFlag struct{ spec *string }

func (f compareFlag) String() string {
	if f.spec == nil {
		return ""
	}
	return *f.spec
}

func (f compareFlag) Set(v string) error {
	*f.spec = v
	return nil
}

func (compareFlag) IsBoolFlag() bool { return true }

// runHeadless is `glassbox run [flags] PROMPT`. sleep replaces the engine's
// retry wait (tests); nil waits for real.
func runHeadless(ctx context.Context, args []string, sleep func(context.Context, time.Duration) error, stdin io.Reader, stdout, stderr io.Writer) int {
	var bf busFlags
	var nb noBreaks
	c, rest, err := loadConfigWith("glassbox run", args, true, stderr, func(fs *flag.FlagSet, l lang.Lang) { bf.bind(fs, l); nb.bind(fs, l) })
	if err == nil {
		err = bf.check(c)
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	l := chosenLang(c, err, args)
	if err == nil {
		err = nb.check(l)
	}
	fromBus := false
	if err == nil {
		c.Sleep = sleep
		if s := c.CompareSummaryIn(l.F); s != "" {
			fmt.Fprintf(stderr, "glassbox run: %s\n", s)
		}
		headless.TuneGC(os.Getenv)
		fromBus, err = request(&c, rest, bf, l)
	}
	if err == nil {
		err = c.DefaultSession(os.Getenv)
	}
	if err == nil {
		err = c.StartTelemetry(os.Getenv)
	}
	if err != nil {
		return fail(l, stderr, "glassbox run", err)
	}
	headless.TelemetryStarted(l, stderr, "glassbox run", c.Telemetry)
	defer headless.TelemetryClosed(l, stderr, "glassbox run", c.Telemetry)
	person := headless.NewPersonIn(stdin, stderr, l)
	runs, err := agentrun.OpenAll(ctx, c, func(name string) loop.Person { return person.For(name) })
	if err != nil {
		return fail(l, stderr, "glassbox run", err)
	}
	o := headless.Options{JSON: c.JSON, Version: version, Width: glassbox.Width(stdout), Lang: l}
	stop, err := attachBus(ctx, &c, bf, fromBus, runs, &o, l, stderr)
	defer stop()
	if err != nil {
		agentrun.CloseAll(runs)
		return fail(l, stderr, "glassbox run", err)
	}
	outcome := headless.Run(ctx, runs, c.Request, o, stdout, stderr)
	if err := agentrun.CloseAll(runs); err != nil {
		fmt.Fprintf(stderr, "glassbox run: %s\n", l.Error(err))
	}
	headless.SessionSaved(l, stderr, "glassbox run", sessionDir(), runs)
	switch outcome {
	case headless.Halted:
		return exitHalted
	case headless.ProviderFailed:
		return exitProvider
	}
	return exitOK
}

// request sets c.Request from the words after the flags: the prompt, or,
// without one, the lesson's own request (unless the run resumes or the
// MCP bus brings the requests). fromBus is a lesson whose request arrives
// over the bus rather than as typed.
func request(c *agentrun.Config, rest []string, bf busFlags, l lang.Lang) (fromBus bool, err error) {
	for _, a := range rest[min(1, len(rest)):] {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			return false, fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("%q comes after the prompt; flags go before it (glassbox run [flags] PROMPT)", a))
		}
	}
	prompt := strings.TrimSpace(strings.Join(rest, " "))
	if prompt == "" && c.Resume == "" && bf.addr == "" {
		lesson, _ := lessons.ByName(c.Lesson) // Validate checked it
		prompt, fromBus = lesson.RequestIn(c.Lang), lesson.FromBus
	}
	c.Request, c.Version = prompt, version
	return fromBus, nil
}

// attachBus puts a headless run on the MCP bus: a lesson's request asked
// over it (fromBus; c.Request is then cleared, the bus queues it), or the
// bus served at --mcp-listen's address. stop ends either; it is never nil.
func attachBus(ctx context.Context, c *agentrun.Config, bf busFlags, fromBus bool, runs []*agentrun.Run, o *headless.Options, l lang.Lang, stderr io.Writer) (stop func(), err error) {
	if fromBus {
		// The lesson's request arrives over the MCP bus, from a client
		// inside glassbox: it is queued as an mcp_bus event, not as typed.
		stop, err := headless.AskOverBus(ctx, runs, c.Request, version)
		if err != nil {
			return func() {}, err
		}
		c.Request = ""
		return stop, nil
	}
	if bf.addr == "" {
		return func() {}, nil
	}
	lctx, stopListening := context.WithCancel(ctx)
	b := bus.New(bus.Options{Version: version, Secrets: c.Env.Secrets()})
	b.Bind(runs[0].Engine, runs[0].Wire())
	on, err := bf.listen(lctx, b)
	if err != nil {
		return stopListening, err
	}
	fmt.Fprintf(stderr, "glassbox run: %s\n", busListening(l, on)+" "+l.T("Ctrl-C ends it."))
	o.Wait = headless.WaitForBus(b, nil)
	return stopListening, nil
}

// busFlags are --mcp-listen and --mcp-listen-public (glassbox on the MCP
// bus over streamable HTTP, docs/mcp.md).
type busFlags struct {
	addr   string
	public bool
}

func (f *busFlags) bind(fs *flag.FlagSet, l lang.Lang) {
	fs.StringVar(&f.addr, "mcp-listen", "", l.T("also take requests from the MCP bus: serve the ask_agent tool over streamable HTTP at ADDR/mcp (a loopback HOST:PORT, such as 127.0.0.1:7777)"))
	fs.BoolVar(&f.public, "mcp-listen-public", false, l.T("let --mcp-listen use an address that is not a loopback one (whoever reaches it can ask the agent)"))
}

// check refuses what the bus cannot do, before anything opens.
func (f *busFlags) check(c agentrun.Config) error {
	l := lang.Lang(c.Lang)
	if f.addr == "" {
		if f.public {
			return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("--mcp-listen-public goes with --mcp-listen ADDR"))
		}
		return nil
	}
	loopback, err := bus.Loopback(f.addr)
	if err != nil {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--mcp-listen %q: want HOST:PORT, such as 127.0.0.1:7777", f.addr))
	}
	if !loopback && !f.public {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--mcp-listen %s is not a loopback address: whoever reaches it could ask the agent to act in your workspace. Listen on 127.0.0.1, or give --mcp-listen-public if you mean it.", f.addr))
	}
	if c.CompareSpec != "" {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("--mcp-listen serves one run; it does not go with --compare"))
	}
	return nil
}

// listen serves b over streamable HTTP at --mcp-listen's address until
// ctx is done, and returns where, with this start's token.
func (f *busFlags) listen(ctx context.Context, b *bus.Bus) (bus.Listening, error) {
	on, err := b.Listen(ctx, f.addr)
	if err != nil {
		return on, fmt.Errorf("%w: --mcp-listen %s: %v", agentrun.ErrUsage, f.addr, err)
	}
	return on, nil
}

// busListening says where the bus listens and the token a caller must
// present: where the address is printed (glassbox run's standard error,
// the glass box's History), the token with it.
func busListening(l lang.Lang, on bus.Listening) string {
	return l.F("on the MCP bus at %s (tool %s). Callers present this start's token %s as Authorization: Bearer %s, or in the address: %s (another glassbox: --mcp NAME=%s). Requests from web pages of another origin are refused.",
		on.Endpoint(), bus.ToolName, on.Token, on.Token, on.EndpointWithToken(), on.EndpointWithToken())
}

// mcpServe is `glassbox mcp-serve`: glassbox as an MCP server over its
// standard input and output. The trace goes to standard error.
func mcpServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, rest, err := loadConfig("glassbox mcp-serve", args, true, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	l := chosenLang(c, err, args)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("unexpected argument %q: the requests come from the MCP client, through ask_agent", rest[0]))
	}
	if err == nil && c.CompareSpec != "" {
		err = fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("mcp-serve serves one run; it does not go with --compare"))
	}
	if err != nil {
		return fail(l, stderr, "glassbox mcp-serve", err)
	}
	c.Version = version
	if err := c.DefaultSession(os.Getenv); err != nil {
		return fail(l, stderr, "glassbox mcp-serve", err)
	}
	if err := c.StartTelemetry(os.Getenv); err != nil {
		return fail(l, stderr, "glassbox mcp-serve", err)
	}
	headless.TelemetryStarted(l, stderr, "glassbox mcp-serve", c.Telemetry)
	defer headless.TelemetryClosed(l, stderr, "glassbox mcp-serve", c.Telemetry)
	b := bus.New(bus.Options{Version: version, Secrets: c.Env.Secrets()})
	person, how, release := headless.ServePerson(b, l)
	defer release()
	runs, err := agentrun.OpenAll(ctx, c, func(string) loop.Person { return person })
	if err != nil {
		return fail(l, stderr, "glassbox mcp-serve", err)
	}
	b.Bind(runs[0].Engine, runs[0].Wire())
	fmt.Fprintf(stderr, "glassbox mcp-serve: %s\n", l.F("on the MCP bus over standard input and output (tool %s); %s", bus.ToolName, how))
	ended := make(chan struct{})
	sctx, stopServing := context.WithCancel(ctx)
	go func() {
		defer close(ended)
		if err := b.ServeStdio(sctx, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil {
			fmt.Fprintf(stderr, "glassbox mcp-serve: %s\n", l.F("the MCP connection ended: %v", err))
		}
	}()
	headless.Run(ctx, runs, "", headless.Options{JSON: c.JSON, Version: version, Wait: headless.WaitForBus(b, ended), Lang: l}, stderr, stderr)
	stopServing()
	if err := agentrun.CloseAll(runs); err != nil {
		fmt.Fprintf(stderr, "glassbox mcp-serve: %s\n", l.Error(err))
	}
	headless.SessionSaved(l, stderr, "glassbox mcp-serve", sessionDir(), runs)
	if ctx.Err() != nil {
		return exitProvider
	}
	return exitOK
}

// nopWriteCloser keeps standard output open when the MCP connection closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveRoom is `glassbox serve`: ui/serve binds its own flags and runs it.
func serveRoom(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var o serve.Options
	var fs *flag.FlagSet
	c, rest, err := loadConfigWith("glassbox serve", args, false, stderr, func(f *flag.FlagSet, l lang.Lang) { fs = f; serve.BindFlags(f, &o, l) })
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	l := chosenLang(c, err, args)
	if err == nil {
		c.Version = version
		err = c.StartTelemetry(os.Getenv)
	}
	if err == nil {
		headless.TelemetryStarted(l, stderr, "glassbox serve", c.Telemetry)
		defer headless.TelemetryClosed(l, stderr, "glassbox serve", c.Telemetry)
		err = serve.Configure(&o, c, fs, rest, os.Getenv)
	}
	if err != nil {
		return fail(l, stderr, "glassbox serve", err)
	}
	o.Run.Version = version
	if o.Instruct {
		if !glassbox.IsTerminal(stdout) {
			fmt.Fprintf(stderr, "glassbox serve: %s\n", l.T("--instruct runs your glass box here and needs a terminal"))
			return exitUsage
		}
		ctx = glassbox.Context(ctx)
	}
	if err := serve.Main(ctx, o, stdout); err != nil {
		return fail(l, stderr, "glassbox serve", err)
	}
	return exitOK
}

// followRoom is `glassbox follow ADDR`: the instructor's broadcast in a
// glass box of one's own, read only.
func followRoom(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("glassbox follow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := serve.FollowOptions{KnownHosts: serve.DefaultKnownHosts()}
	langFlag := ""
	l := langOf(args)
	fs.StringVar(&langFlag, "lang", "", l.T("the language of what you read: en or ja (default: from LC_ALL, LC_MESSAGES or LANG)"))
	fs.StringVar(&o.Fingerprint, "fingerprint", "", l.T("the room's host key fingerprint (SHA256:…), as the instructor reads it out"))
	fs.StringVar(&o.KnownHosts, "known-hosts", o.KnownHosts, l.T("recognise the room by this known_hosts file when no --fingerprint is given"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox follow ADDR [--fingerprint SHA256:…]")+"\n\n"+
			l.T("Follows an instructor's broadcast (glassbox serve --instruct, glassbox --broadcast) in your own glass box, read only. ADDR is HOST or HOST:PORT (port 2222). The room is recognised by its fingerprint or your known_hosts; the workshop passphrase is asked.")+"\n\n"+l.T("Flags:"))
		fs.PrintDefaults()
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.Addr, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	l, err := lang.Choose(langFlag, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "glassbox follow: --lang: %s\n", langOf(nil).Error(err))
		return exitUsage
	}
	o.Lang = l
	if o.Addr == "" && fs.NArg() > 0 {
		o.Addr = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "glassbox follow: "+l.F("unexpected argument %q (one room at a time)", fs.Arg(0)))
		return exitUsage
	}
	if o.Addr == "" || fs.NArg() > 1 {
		fs.Usage()
		return exitUsage
	}
	in, ok := stdin.(*os.File)
	if !ok || !glassbox.IsTerminal(stdout) || !glassbox.IsTerminal(in) {
		fmt.Fprintln(stderr, "glassbox follow: "+l.T("the glass box needs a terminal (and the passphrase is asked on it)"))
		return exitUsage
	}
	o.Passphrase = func() (string, error) {
		fmt.Fprint(stderr, l.F("workshop passphrase for %s: ", o.Addr))
		pw, err := glassbox.ReadPassword(ctx, in)
		fmt.Fprintln(stderr)
		return strings.TrimSpace(pw), err
	}
	if err := serve.FollowMain(glassbox.Context(ctx), o); err != nil {
		return fail(l, stderr, "glassbox follow", err)
	}
	return exitOK
}

// readTUIFlags reads the glass box's command line and checks that it can
// open; flag.ErrHelp means the help was asked for and shown.
func readTUIFlags(args []string, stdout, stderr io.Writer) (agentrun.Config, *tuiFlags, []breakpoint.Breakpoint, lang.Lang, error) {
	tf := &tuiFlags{}
	c, rest, err := loadConfigWith("glassbox", args, false, stderr, tf.bind)
	if err == nil {
		err = tf.bus.check(c)
	}
	var bps []breakpoint.Breakpoint
	if err == nil {
		bps, err = tf.breakpoints()
	}
	if errors.Is(err, flag.ErrHelp) {
		return c, tf, nil, lang.EN, err
	}
	l := chosenLang(c, err, args)
	if err == nil {
		err = tuiCanOpen(rest, stdout, l)
	}
	return c, tf, bps, l, err
}

// runTUI opens the full-screen glass box.
func runTUI(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c, tf, bps, l, err := readTUIFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil && tapbox.IsCassette(c.Replay) {
		// A tap's recording: another agent's calls, stepped again.
		if err := tapbox.Replay(ctx, c.Replay, bps, l); err != nil {
			return fail(l, stderr, "glassbox --replay", err)
		}
		return exitOK
	}
	if err == nil {
		c.Version = version
		err = c.DefaultSession(os.Getenv)
	}
	if err == nil {
		err = c.StartTelemetry(os.Getenv)
	}
	if err != nil {
		return fail(l, stderr, "glassbox", err)
	}
	// After the glass box and its runs have closed: what was sent, what dropped.
	defer headless.TelemetryClosed(l, stdout, "glassbox", c.Telemetry)
	// The glass box's memory limit holds from here: reading a long session
	// back is the first thing that can grow the heap.
	glassbox.TuneMemory(os.Getenv)
	persons := map[string]*glassbox.Person{}
	runs, err := agentrun.OpenAll(ctx, c, func(name string) loop.Person {
		p := glassbox.NewPerson()
		persons[name] = p
		return p
	})
	if err != nil {
		return fail(l, stderr, "glassbox", err)
	}
	defer func() {
		if err := agentrun.CloseAll(runs); err != nil {
			fmt.Fprintf(stderr, "glassbox: %s\n", l.Error(err))
		}
		headless.SessionSaved(l, stdout, "glassbox", sessionDir(), runs)
	}()
	cfg, err := glassbox.ConfigFor(c.Lesson, runs, persons)
	if err != nil {
		return fail(l, stderr, "glassbox", err)
	}
	cfg.Predict = tf.predict
	cfg.Breakpoints = bps
	if tf.broadcast != "" {
		_, stop, err := serve.Broadcasting(&cfg, serve.Options{Addr: tf.broadcast, FollowOnly: true, StateDir: filepath.Dir(sessionDir()), Run: c}, stdout)
		if err != nil {
			return fail(l, stderr, "glassbox --broadcast", err)
		}
		defer stop()
	}
	tctx := glassbox.Context(ctx)
	if tf.bus.addr != "" {
		on, err := tf.bus.listen(tctx, cfg.Runs[0].Bus)
		if err != nil {
			return fail(l, stderr, "glassbox", err)
		}
		cfg.Runs[0].BusListens = true
		cfg.Runs[0].Notes = append(cfg.Runs[0].Notes, busListening(l, on))
	}
	return tuiEnded(ctx, glassbox.Run(tctx, cfg), runs, l, stderr)
}

// tuiFlags are the glass box's own flags, beside the config's.
type tuiFlags struct {
	predict   bool
	broadcast string
	bus       busFlags
	breaks    breakpoint.Flags
}

func (f *tuiFlags) bind(fs *flag.FlagSet, l lang.Lang) {
	fs.BoolVar(&f.predict, "predict", false, l.T("predict mode: pick the edge you expect before each step (P toggles it)"))
	fs.StringVar(&f.broadcast, "broadcast", "", l.T("broadcast your run on ADDR (e.g. 127.0.0.1:2222) to followers: ssh -p PORT follow@HOST or glassbox follow HOST:PORT"))
	fs.Var(&f.breaks, "break", l.F("stop c where EXPR matches (docs/breakpoints.md): conditions joined by commas, all of which must hold — %s; repeatable, any one stops", breakpoint.Conditions()))
	f.bus.bind(fs, l)
}

// breakpoints reads the --break values.
func (f *tuiFlags) breakpoints() ([]breakpoint.Breakpoint, error) {
	bps, err := breakpoint.ParseAll(f.breaks)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	return bps, nil
}

// noBreaks is --break on glassbox run, which takes none: it does not stop
// between steps, so a breakpoint would be silently ignored there.
type noBreaks struct{ breakpoint.Flags }

func (f *noBreaks) bind(fs *flag.FlagSet, l lang.Lang) {
	fs.Var(&f.Flags, "break", l.T("not for glassbox run, which runs to the end without stopping: breakpoints stop c in the glass box (glassbox --break EXPR)"))
}

func (f *noBreaks) check(l lang.Lang) error {
	if len(f.Flags) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--break %s: glassbox run runs the loop to the end without stopping, so a breakpoint has nothing to stop; step with breakpoints in the glass box: glassbox --break %s", f.Flags[0], f.Flags[0]))
}

// tuiCanOpen refuses words after the flags (a prompt meant for `glassbox
// run`) and an output that is not a terminal.
func tuiCanOpen(rest []string, stdout io.Writer, l lang.Lang) error {
	if len(rest) > 0 {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("unexpected argument %q (did you mean 'glassbox run %s'?)", rest[0], rest[0]))
	}
	if !glassbox.IsTerminal(stdout) {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("the glass box needs a terminal; for scripts and pipes use 'glassbox run [flags] PROMPT' (see 'glassbox help')"))
	}
	return nil
}

// tuiEnded is the exit code of a glass box that ended with err.
func tuiEnded(ctx context.Context, err error, runs []*agentrun.Run, l lang.Lang, stderr io.Writer) int {
	if ctx.Err() != nil {
		// A signal ended the glass box: the trace says so; the deferred
		// CloseAll stops the commands and removes temporary workspaces.
		for _, r := range runs {
			r.Interrupted(context.Cause(ctx))
		}
		return exitProvider
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "glassbox: %s\n", l.Error(err))
		return exitProvider
	}
	return exitOK
}

// fail prints err in language l and returns its exit code: 2 for usage
// mistakes.
func fail(l lang.Lang, stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimPrefix(l.Error(err), agentrun.ErrUsage.Error()+": "))
	if errors.Is(err, agentrun.ErrUsage) {
		return exitUsage
	}
	return exitProvider
}

// listLessons is `glassbox lessons [--lang en|ja]`: each lesson's name and
// its title in the chosen language (--lang, else the locale).
func listLessons(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	l := langOf(args)
	fs := flag.NewFlagSet("glassbox lessons", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flagLang := fs.String("lang", "", l.T("the language of the titles: en or ja (default: from LC_ALL, LC_MESSAGES or LANG)"))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "glassbox lessons: %s\n", l.T("takes no arguments but --lang"))
		return exitUsage
	}
	l, err := lang.Choose(*flagLang, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "glassbox lessons: --lang: %s\n", langOf(nil).Error(err))
		return exitUsage
	}
	for _, lesson := range lessons.All() {
		fmt.Fprintf(stdout, "%s\t%s\n", lesson.Name, lesson.TitleIn(l.String()))
	}
	return exitOK
}

// sessionDir is the default sessions folder ("" when there is none).
func sessionDir() string {
	dir, _ := agentrun.SessionDir(os.Getenv)
	return dir
}
