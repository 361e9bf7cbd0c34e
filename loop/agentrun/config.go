package agentrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// ErrUsage marks a mistake in how glassbox was started (exit code 2): a bad
// flag, a missing file, a cassette from another provider.
var ErrUsage = errors.New("usage")

// Config is everything one run is built from. It is made by a pipeline —
// Defaults, then ApplyEnv (with a .env file layered under the environment),
// then the command line's flags, then Validate — each step callable alone.
type Config struct {
	Provider string // --provider: a provider backend.For knows
	ToolMode string // --tool-mode: Llama only; "" means json
	Model    string // --model; "" for the provider's default
	Offline  bool   // --offline
	// OfflineWhy is why Offline is set when no --offline flag set it (a
	// room's default), as the welcome says it; zero: the flag.
	OfflineWhy    dialect.Reason
	Live          bool          // --live
	Lesson        string        // --lesson
	SimLatency    time.Duration // --sim-latency
	Workspace     string        // --workspace; "" for a temporary sample copy
	MaxIterations int           // --max-iterations
	Policy        string        // --policy
	Yes           bool          // --yes
	Record        string        // --record
	Replay        string        // --replay
	JSON          bool          // --json (run only)
	Trace         string        // --trace
	// GoLive is how the person at this run reaches a real model, by
	// language code ("en", "ja"), as the front end words it for who they
	// are (ui/role): the offline tutor says it. Nil: glassbox's flags.
	GoLive map[string]string
	// Lang is the language of what a person reads ("en" or "ja"): --lang,
	// else the locale (ui/lang.Choose). The JSONL trace, names and payloads
	// do not change with it.
	Lang string
	// Call is --stall, --call-timeout, --stream=false and --num-predict:
	// what every model call of the run may take, and how it is made.
	Call providers.CallOptions
	// MCP lists the servers to attach (--mcp NAME=COMMAND… or NAME=URL,
	// repeatable; docs/mcp.md).
	MCP []string
	// DotEnv is the .env file glassbox read its settings from ("" for
	// none): commands never read it, even inside the workspace.
	DotEnv string
	// CompareSpec is --compare's value as given ("true" for the bare
	// flag, "" without it); ApplyCompare reads it into Compare, the two
	// runs of compare mode (empty for a single run). Runs splits such a
	// Config into one per run.
	CompareSpec string
	Compare     []RunSpec
	// Name is this run's name in compare mode (its dialect's name).
	Name string
	// CopyWorkspace makes Open work on a temporary copy of Workspace, so
	// two runs never touch each other's files.
	CopyWorkspace bool

	// Sessions (session.go): Session is the file to autosave to (--session,
	// or a new file in the sessions folder; "" for none); Resume names a
	// session to reopen (--resume ID|FILE); From is the step to fork from
	// (--from; -1: the last step); Onto is the dialect to continue a resumed
	// session with when --provider or --tool-mode names one.
	Session string
	Resume  string
	From    int
	Onto    string
	// Request is the first request, for the session's header; Version is
	// glassbox's version, written there too.
	Request string
	Version string
	// KeepWorkspace is the folder Open makes the run's workspace in (a copy
	// of Workspace, or of the sample project) and keeps: a session's own.
	KeepWorkspace string
	// Quota caps the workspace (glassbox serve gives each learner one; no
	// flag sets it): its commands, servers and writes keep within it.
	Quota tools.Quota

	// OTLP is --otlp URL: send the run's spans to an OpenTelemetry
	// collector (OTLP/HTTP); OTLPContent is --otlp-content: with the
	// messages, masked. StartTelemetry reads them, with the OTEL_*
	// variables, into Telemetry: the exporter every run of the process
	// shares (nil when export is off).
	OTLP        string
	OTLPContent bool
	Telemetry   *telemetry.Exporter

	// Env holds keys and addresses from the environment (and .env).
	Env backend.Env
	// Sleep replaces the engine's retry wait; tests set it, no flag does.
	Sleep func(context.Context, time.Duration) error
}

// Defaults are the values before any file, variable or flag. The TUI
// simulates a few hundred milliseconds per call so a learner can see the
// AWAITING states; headless runs do not wait.
func Defaults(headless bool) Config {
	c := Config{
		Provider:      backend.Default().Provider,
		Lesson:        "tour",
		MaxIterations: loop.DefaultMaxIterations,
		SimLatency:    300 * time.Millisecond,
		From:          -1,
		Call: providers.CallOptions{
			Limits:     providers.Limits{Stall: providers.DefaultStall, Call: providers.DefaultCallTimeout},
			NumPredict: providers.DefaultNumPredict,
		},
	}
	if headless {
		c.SimLatency = 0
	}
	return c
}

// ApplyEnv reads the keys and addresses through lookup.
func (c *Config) ApplyEnv(lookup func(string) string) { c.Env = backend.EnvFrom(lookup) }

// Layered looks a variable up in each source in turn and returns the first
// value that is set: Layered(os.Getenv, dotenv) lets the environment win.
func Layered(sources ...func(string) string) func(string) string {
	return func(name string) string {
		for _, s := range sources {
			if v := s(name); v != "" {
				return v
			}
		}
		return ""
	}
}

// Dialect is the dialect the provider and tool mode name.
func (c Config) Dialect() (backend.Dialect, error) { return backend.For(c.Provider, c.ToolMode) }

// Validate checks the flags against each other and against the disk before
// anything is created, so a mistake never leaves a half-made output behind.
// The checks run in this order; the first mistake is the one reported.
func (c Config) Validate() error {
	for _, check := range []func(*Config) error{
		(*Config).checkDialect,
		(*Config).checkCompareSpec,
		(*Config).checkBackendFlags,
		(*Config).checkLimits,
		(*Config).checkLesson,
		(*Config).checkMCP,
		(*Config).checkWorkspace,
		(*Config).checkReplays,
		(*Config).checkOutputFiles,
	} {
		if err := check(&c); err != nil {
			return err
		}
	}
	return checkOutputs(c.outputs(), c.inputsOf(c.Session))
}

func (c *Config) checkDialect() error {
	_, err := c.Dialect()
	return err
}

// checkCompareSpec reads --compare into the runs it names.
func (c *Config) checkCompareSpec() error {
	if c.CompareSpec == "" {
		return nil
	}
	return checkCompare(c)
}

// checkBackendFlags refuses backend flags that contradict each other.
func (c *Config) checkBackendFlags() error {
	switch {
	case c.Offline && c.Live:
		return sentence.Errorf("--offline and --live contradict each other")
	case c.Replay != "" && (c.Offline || c.Live):
		return sentence.Errorf("--replay serves a cassette; it cannot be combined with --offline or --live")
	case c.Replay != "" && c.Record != "":
		return sentence.Errorf("--record and --replay cannot be used together")
	}
	return nil
}

// checkLimits refuses a limit no run could keep.
func (c *Config) checkLimits() error {
	switch n := c.Call.NumPredict; {
	case c.MaxIterations < 1:
		return sentence.Errorf("--max-iterations %d: want at least 1", c.MaxIterations)
	case c.SimLatency < 0:
		return sentence.Errorf("--sim-latency %s: want zero or more", c.SimLatency)
	case c.Call.Limits.Stall <= 0:
		return sentence.Errorf("--stall %s: want a duration above zero, e.g. --stall 60s", c.Call.Limits.Stall)
	case c.Call.Limits.Call <= 0:
		return sentence.Errorf("--call-timeout %s: want a duration above zero, e.g. --call-timeout 10m", c.Call.Limits.Call)
	case n < 1 && n != -1:
		return sentence.Errorf("--num-predict %d: want a number of tokens, or -1 to leave the reply unbounded", n)
	}
	return nil
}

func (c *Config) checkLesson() error {
	if _, ok := lessons.ByName(c.Lesson); !ok {
		return sentence.Errorf("no lesson named %q (see 'glassbox lessons')", c.Lesson)
	}
	return nil
}

// checkMCP reads each --mcp and refuses two servers of one name.
func (c *Config) checkMCP() error {
	names := map[string]bool{}
	for _, m := range c.MCP {
		spec, err := mcptool.ParseSpec(m)
		if err != nil {
			return err
		}
		if names[spec.Name] {
			return sentence.Errorf("--mcp: two servers are named %q", spec.Name)
		}
		names[spec.Name] = true
	}
	return nil
}

// checkWorkspace refuses a --workspace that is not a folder glassbox may
// work in.
func (c *Config) checkWorkspace() error {
	if c.Workspace == "" {
		return nil
	}
	if err := checkFolder(c.Workspace); err != nil {
		return err
	}
	return checkWorkspaceFolder("--workspace", c.Workspace, os.Getenv)
}

// checkReplays checks the cassette --replay names: one for each run of a
// comparison, named after it.
func (c *Config) checkReplays() error {
	if c.Replay == "" {
		return nil
	}
	replays := []string{c.Replay}
	if len(c.Compare) > 0 {
		replays = nil // each run replays its own file, named after it
		for _, r := range c.Runs() {
			replays = append(replays, r.Replay)
		}
	}
	for _, path := range replays {
		if err := checkReplay(path); err != nil {
			return err
		}
	}
	return nil
}

// checkOutputFiles checks the files glassbox will write: --record (one
// per run of a comparison), --trace and the session, and that --record
// and --trace are two files.
func (c *Config) checkOutputFiles() error {
	records := []string{c.Record}
	if len(c.Compare) > 0 {
		records = nil
		for _, r := range c.Runs() {
			records = append(records, r.Record)
		}
	}
	for _, path := range records {
		if err := checkOutput("--record", path); err != nil {
			return err
		}
	}
	if err := checkOutput("--trace", c.Trace); err != nil {
		return err
	}
	if err := checkSession(*c); err != nil {
		return err
	}
	if c.Record != "" && c.Record == c.Trace {
		return sentence.Errorf("--record and --trace name the same file %s", c.Record)
	}
	return nil
}

// checkFolder says what to do when --workspace is not a folder.
func checkFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sentence.Errorf("--workspace %s: there is no such folder; create it first (mkdir -p %s), or leave --workspace out to work on a fresh copy of the sample project", dir, dir)
	case err != nil:
		return fmt.Errorf("--workspace %s: %w", dir, err)
	case !st.IsDir():
		return sentence.Errorf("--workspace %s: this is a file, not a folder", dir)
	}
	return nil
}

// MaxCassetteBytes caps a cassette given to --replay: a recording of a
// long session is a few MiB; /dev/zero or a huge file would exhaust memory.
const MaxCassetteBytes = 256 << 20

// checkReplay refuses a --replay path that is not a regular file of at most
// MaxCassetteBytes, without opening it: a named pipe would wait forever for
// a writer, a device would never end.
func checkReplay(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("--replay %s: %w", path, err)
	case !st.Mode().IsRegular():
		return sentence.Errorf("--replay %s: not a regular file (it is %s); give the path of a cassette recorded with --record", path, tools.DescribeFileType(st.Mode()))
	case st.Size() > MaxCassetteBytes:
		return sentence.Errorf("--replay %s: %d bytes, over the %d MiB a cassette may hold", path, st.Size(), MaxCassetteBytes>>20)
	}
	return nil
}

// checkOutput refuses an output path glassbox could not write, before
// anything is created.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		return sentence.Errorf("%s %s: this is a folder; name a file", flag, path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return sentence.Errorf("%s %s: the folder %s does not exist", flag, path, dir)
	}
	return nil
}

// dotEnvLimit caps a .env file: it holds a few variables, never megabytes.
const dotEnvLimit = 64 << 10

// ReadDotEnv reads a .env file in the seed project's format (KEY=VALUE
// lines, # comments, an optional "export ", optional quotes) and keeps only
// the variables glassbox itself reads (backend.Vars). The others are
// listed in ignored: a .env in a folder someone else prepared must not
// change what every command runs (PYTHONPATH) or where a key goes unseen.
// A missing file is no error.
func ReadDotEnv(path string) (vals map[string]string, ignored []string, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, nil, sentence.Errorf("%s is not a regular file", path)
	}
	all, err := parseDotEnv(io.LimitReader(f, dotEnvLimit+1))
	if err != nil {
		return nil, nil, err
	}
	vals = map[string]string{}
	for k, v := range all {
		if slices.Contains(backend.Vars(), k) {
			vals[k] = v
		} else {
			ignored = append(ignored, k)
		}
	}
	slices.Sort(ignored)
	return vals, ignored, nil
}

// DotEnvAddresses are the warnings for addresses a .env file sets (and the
// environment does not): a .env in a folder someone else prepared could
// send the key, or the whole conversation, to another server, so the
// person is told before anything is sent, not only in the banner.
//
// Each warning is a sentence (history/sentence); its middle part is the
// dialect's Address.What.
func DotEnvAddresses(dot map[string]string, getenv func(string) string) []error {
	var out []error
	for _, a := range backend.Addresses() {
		if val := strings.TrimSpace(dot[a.Var]); val != "" && strings.TrimSpace(getenv(a.Var)) == "" {
			out = append(out, sentence.Errorf("%s=%s is set here: %w; remove it from .env unless you meant that", a.Var, val, sentence.Errorf(a.What, val)))
		}
	}
	return out
}

func parseDotEnv(r io.Reader) (map[string]string, error) {
	vals := map[string]string{}
	sc := bufio.NewScanner(r)
	total := 0
	for n := 1; sc.Scan(); n++ {
		total += len(sc.Bytes()) + 1
		if total > dotEnvLimit {
			return nil, sentence.Errorf("larger than %d KiB; a .env holds a few variables", dotEnvLimit>>10)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, sentence.Errorf("line %d is not KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vals[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, sentence.Errorf("unreadable: %v", err)
	}
	return vals, nil
}
