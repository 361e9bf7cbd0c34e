// Package tapbox is `glassbox tap`: a glass box around an agent glassbox
// does not run. It opens a tap (loop/tap) on a local address, says what to
// set for an agent to call through it, and shows every call as steps — in
// the full-screen glass box, where each request and reply is held until a
// person steps it, or headless, printing the trace (--json) while the
// agent runs. A session, a cassette (--record), OpenTelemetry (--otlp)
// and a broadcast to followers (--broadcast) are kept as for glassbox's
// own runs.
package tapbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/headless"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Options are glassbox tap's flags.
type Options struct {
	Listen      string
	Public      bool
	Upstream    string
	JSON        bool
	Record      string
	Session     string
	Resume      string
	Broadcast   string
	OTLP        string
	OTLPContent bool
	// Breaks are the --break breakpoints: which calls c holds.
	Breaks  []breakpoint.Breakpoint
	Lang    lang.Lang
	Version string
}

// DefaultListen is where a tap listens unless --listen says otherwise: a
// port the system picks, on the loopback interface.
const DefaultListen = "127.0.0.1:0"

// Main is `glassbox tap [flags]` for glassbox version: a mistake the
// person can fix wraps agentrun.ErrUsage; flag.ErrHelp means the help was
// asked for and shown.
func Main(version string) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		o, err := parse(args, stderr)
		if err != nil {
			return err
		}
		o.Version = version
		return Run(ctx, o, stdout, stderr)
	}
}

// parse binds the flags and reads args into Options.
func parse(args []string, stderr io.Writer) (Options, error) {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox tap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := Options{}
	fs.StringVar(&o.Listen, "listen", DefaultListen, l.T("listen on ADDR (HOST:PORT; port 0 lets the system choose): the address the agent is pointed at"))
	fs.BoolVar(&o.Public, "listen-public", false, l.T("let --listen use an address that is not a loopback one (whoever reaches it can call the model through the tap)"))
	fs.StringVar(&o.Upstream, "upstream", "", l.T("where the calls go: offline (glassbox's built-in emulator, no key and no network) or a URL every family's calls go to (default: each family's own service; Ollama's from OLLAMA_HOST)"))
	fs.BoolVar(&o.JSON, "json", false, l.T("headless: write each step to standard output as a JSON line (the format of run --json); nothing is held"))
	fs.StringVar(&o.Record, "record", "", l.T("write every exchange to FILE as a cassette, which glassbox --replay FILE steps later with no agent and no network"))
	fs.StringVar(&o.Session, "session", "", l.T("keep the session in FILE (default: a new file in the sessions folder)"))
	fs.StringVar(&o.Resume, "resume", "", l.T("go on with a tap session (an id from 'glassbox sessions', or a file): its steps are shown and new ones follow them"))
	fs.StringVar(&o.Broadcast, "broadcast", "", l.T("broadcast the glass box on ADDR (e.g. 127.0.0.1:2222) to followers: ssh -p PORT follow@HOST or glassbox follow HOST:PORT"))
	fs.StringVar(&o.OTLP, "otlp", "", l.T("send each step as OpenTelemetry GenAI spans to the collector at URL (OTLP/HTTP; OTEL_EXPORTER_OTLP_ENDPOINT when unset)"))
	fs.BoolVar(&o.OTLPContent, "otlp-content", false, l.T("put the messages, tool arguments and results on the spans too (masked)"))
	var breaks breakpoint.Flags
	fs.Var(&breaks, "break", l.F("in the glass box, c lets the agent run until EXPR begins to match one of its calls, and holds that request or reply (docs/breakpoints.md): conditions joined by commas, all of which must hold — %s; repeatable, any one holds", breakpoint.Conditions()))
	langFlag := fs.String("lang", "", l.T("the language of what you read: en or ja (default: from LC_ALL, LC_MESSAGES or LANG)"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox tap [flags]\n\nA glass box around any agent (Gemini CLI, Codex, opencode, crush, …): point the agent\nat the address it prints, and every model call it makes becomes steps you can hold,\nstep and edit. In the glass box each request and reply waits for space; c lets the\nagent run. What the agent does between its calls — its approvals, its tools — a tap\ncannot see.\n\nFlags:"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	var err error
	if o.Lang, err = lang.Choose(*langFlag, os.Getenv); err != nil {
		return o, fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	if o.Breaks, err = breakpoint.ParseAll(breaks); err != nil {
		return o, fmt.Errorf("%w: %s", agentrun.ErrUsage, o.Lang.Error(err))
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: %s", agentrun.ErrUsage, o.Lang.F("unexpected argument %q: glassbox tap takes flags only (the agent runs in its own terminal)", fs.Arg(0)))
	}
	return o, o.check()
}

// check refuses flags that cannot go together, before anything opens.
func (o Options) check() error {
	l := o.Lang
	loopback, err := bus.Loopback(o.Listen)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--listen %q: want HOST:PORT, such as 127.0.0.1:8080", o.Listen))
	case !loopback && !o.Public:
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--listen %s is not a loopback address: whoever reaches it could call the model through the tap, with the agent's key. Listen on 127.0.0.1, or give --listen-public if you mean it.", o.Listen))
	case o.Session != "" && o.Resume != "":
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("--session and --resume name the session twice; give one"))
	case o.JSON && o.Broadcast != "":
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("--broadcast shows the glass box to followers; it does not go with --json"))
	}
	return nil
}

// Run opens the tap and shows it until ctx ends (or q in the glass box).
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	tui := !o.JSON && glassbox.IsTerminal(stdout)
	if !tui && len(o.Breaks) > 0 {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, o.Lang.F("--break %s holds calls until a person steps them in the glass box; without it (--json, or standard output not a terminal) nothing is held, so a breakpoint would be silently ignored: leave out --break, or run glassbox tap in a terminal without --json", o.Breaks[0]))
	}
	k, err := open(o, tui)
	if err != nil {
		return err
	}
	defer k.close(stderr)
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, o.Lang.F("--listen %s: %v", o.Listen, err))
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- k.tap.Serve(sctx, ln) }()
	defer func() {
		stop()
		if err := <-served; err != nil && !errors.Is(err, net.ErrClosed) {
			fmt.Fprintf(stderr, "glassbox tap: %s\n", o.Lang.Error(err))
		}
	}()
	intro := k.intro(ln.Addr().String())
	fmt.Fprintln(stderr, strings.Join(intro, "\n"))
	headless.TelemetryStarted(o.Lang, stderr, "glassbox tap", k.spans)
	if !tui {
		return headless.Tap(sctx, k.tap, headless.Options{JSON: o.JSON, Lang: o.Lang, Version: o.Version}, stdout, stderr)
	}
	return k.glassBox(ctx, intro, stdout)
}

// intro is what the tap says first, on the terminal and in History: where
// it listens, what to set, where the calls go, and what it cannot see.
func (k *tapped) intro(addr string) []string {
	l := k.o.Lang
	out := []string{l.F("glassbox tap on %s: point your agent here (set one of these in its shell):", addr)}
	for _, v := range k.tap.Variables(addr) {
		out = append(out, "  "+v)
	}
	out = append(out, l.F("the calls go to %s", k.upstreamLabel()),
		l.T("a tap sees the model calls only: the agent's own approvals and the tools it runs happen out of sight (those steps are marked inferred)"))
	if k.o.Upstream != tap.Offline {
		out = append(out, l.T("the agent's key goes on to the service as it came, and is masked in everything glassbox shows and keeps"))
	}
	return out
}

// upstreamLabel names where the calls go, for a person.
func (k *tapped) upstreamLabel() string {
	switch k.o.Upstream {
	case tap.Offline:
		return k.o.Lang.T("glassbox's built-in emulator (--upstream offline: no key, no network)")
	case "":
		return k.o.Lang.T("each family's own service (Gemini, OpenAI, Ollama from OLLAMA_HOST)")
	}
	return k.o.Upstream
}
