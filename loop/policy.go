package loop

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"github.com/glassbox-dev/glassbox/history"
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
}

// Rule is one line of the policy. A rule matches a call when every condition
// it sets holds; the first matching rule decides.
type Rule struct {
	Name    string
	Verdict Verdict
	Reason  string
	// Tools limits the rule to these tool names; empty means any tool.
	Tools []string
	// PathOutsideWorkspace matches when any path argument resolves (after
	// symlinks) outside the workspace.
	PathOutsideWorkspace bool
	// CommandMatches matches when the "command" argument matches any of
	// these regular expressions. Every rule tries them on the command line
	// as written; a DENY rule also tries them on each line of the shell's
	// reading of it (readCommand), so no spelling gets past a denial.
	CommandMatches []*regexp.Regexp
}

// PathChecker tells whether a path argument stays inside the workspace.
// tools.Workspace implements it.
type PathChecker interface {
	Inside(path string) bool
}

// Policy is the ordered rule list plus the person's session grants.
type Policy struct {
	Rules []Rule
	// Default decides calls no rule matches.
	Default Decision
	// Network lets execute_command's commands connect out (the policy
	// file's top-level network = true). The kernel's sandbox otherwise
	// refuses their outbound TCP connections.
	Network bool
	grants  map[string]bool
	granted []history.ToolCall // the grants in order, for the session file
}

// sessionGrantRule names the decision for a call the person allowed for the
// rest of the session.
const sessionGrantRule = "session-grant"

// unparsableRule names the decision for a command line the shell parser
// could not read: what it would run cannot be known, so no rule may allow
// it, and a person decides.
const unparsableRule = "unparsable-command"

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

[[rule]]
name = "dangerous-shell"
verdict = "DENY"
reason = "the command matches a dangerous shell pattern"
tools = ["execute_command"]
command_matches = [
  # privilege escalation, however it is spelled: sudo, /usr/bin/sudo, "sudo", s\udo, ` + "`" + `sudo` + "`" + `, $(doas …), env sudo, su -c
  '(^|[\s;&|(` + "`" + `/$])(sudo|doas|pkexec|run0)\b',
  '^(\S*/)?su( |$)',
  # rm aimed at the root or a home folder, with any flags: -rf, --, /, ///*, ~, ~root, "$HOME"/, ${HOME:?}/,
  # or at a variable followed by a slash ("$DIR"/ is the root when DIR is empty)
  '^(\S*/)?rm( \S+)* (/|~[\w.-]*/?|\$HOME/?|\$\w+/)(\*|\.\*|\.\.(/\.\.)*/?)?( |$)',
  # a download piped into a shell, through any number of pipes: curl … | tee … | env sh
  '\b(curl|wget)\b[^;&]*\|\s*(sudo\s+)?((\S*/)?(ba|z|da|k)?sh|\$\w+)\b',
  # a download run by a shell through substitution: sh -c "$(curl …)", bash <(curl …), eval ` + "`" + `wget …` + "`" + `
  '(\$\(|<\(|` + "`" + `)\s*(curl|wget)\b',
  '\bmkfs(\.\w+)?\b',
  ':\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:',
  '\bdd\b.*\bof=/dev/',
  # writing onto a disk: > /dev/sda, > /dev/vda, >| /dev/nvme0n1
  '>\|?\s*/dev/(sd|vd|xvd|hd|nvme|mmcblk)',
  # chmod 777 on an absolute path, with any flags: -R, -Rv
  '\bchmod\s+(-\S+\s+)*0?777\s+/',
  '\b(shutdown|reboot|halt|poweroff)\b',
]

[[rule]]
name = "read-only-tools"
verdict = "ALLOW"
reason = "reading and listing files and asking the person change nothing"
tools = ["read_file", "list_files", "ask_user"]

[[rule]]
name = "changes-need-approval"
verdict = "REQUIRE_USER_CONFIRMATION"
reason = "writing files and running commands change the workspace"
tools = ["write_file", "execute_command"]

[default]
verdict = "REQUIRE_USER_CONFIRMATION"
reason = "no rule names this tool, so a person decides"
`

type policyFile struct {
	Network bool `toml:"network"`
	Rule    []struct {
		Name                 string   `toml:"name"`
		Verdict              string   `toml:"verdict"`
		Reason               string   `toml:"reason"`
		Tools                []string `toml:"tools"`
		PathOutsideWorkspace bool     `toml:"path_outside_workspace"`
		CommandMatches       []string `toml:"command_matches"`
	} `toml:"rule"`
	Default *struct {
		Verdict string `toml:"verdict"`
		Reason  string `toml:"reason"`
	} `toml:"default"`
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
		return nil, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// readPolicyFile reads path within the limits LoadPolicy states.
func readPolicyFile(path string) ([]byte, error) {
	// Look before opening: opening some devices has effects of its own.
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("policy file: %w", err)
	}
	if err := policyFileFits(path, info); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path have become a named pipe since the Stat,
	// opening it returns at once instead of waiting for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("policy file: %w", err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("policy file: %w", err)
	}
	if err := policyFileFits(path, info); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPolicyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("policy file: %w", err)
	}
	if len(b) > maxPolicyBytes { // it grew while being read
		return nil, fmt.Errorf("policy file %s is larger than the limit of 1 MiB (%d bytes)", path, maxPolicyBytes)
	}
	return b, nil
}

// policyFileFits refuses what is not a regular file of at most 1 MiB.
func policyFileFits(path string, info os.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("policy file %s is not a regular file (it is %s); give the path of a TOML file",
			path, tools.DescribeFileType(info.Mode()))
	}
	if info.Size() > maxPolicyBytes {
		return fmt.Errorf("policy file %s is %d bytes; the limit is 1 MiB (%d bytes)", path, info.Size(), maxPolicyBytes)
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
		return nil, fmt.Errorf("unknown keys: %s", strings.Join(keys, ", "))
	}
	p := &Policy{Network: f.Network, Default: Decision{Verdict: RequireConfirm, Rule: "default", Reason: "no rule matched"}}
	seen := map[string]bool{}
	for i, r := range f.Rule {
		where := fmt.Sprintf("rule %d", i+1)
		if r.Name == "" {
			return nil, fmt.Errorf("%s: name is required", where)
		}
		where = fmt.Sprintf("rule %d (%q)", i+1, r.Name)
		if seen[r.Name] {
			return nil, fmt.Errorf("%s: the name is used twice", where)
		}
		seen[r.Name] = true
		v, err := parseVerdict(r.Verdict)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		rule := Rule{Name: r.Name, Verdict: v, Reason: r.Reason, Tools: r.Tools, PathOutsideWorkspace: r.PathOutsideWorkspace}
		for _, pat := range r.CommandMatches {
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("%s: command_matches %q: %w", where, pat, err)
			}
			rule.CommandMatches = append(rule.CommandMatches, re)
		}
		if rule.Reason == "" {
			rule.Reason = "matched rule " + r.Name
		}
		p.Rules = append(p.Rules, rule)
	}
	if f.Default != nil {
		v, err := parseVerdict(f.Default.Verdict)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		p.Default = Decision{Verdict: v, Rule: "default", Reason: f.Default.Reason}
		if p.Default.Reason == "" {
			p.Default.Reason = "no rule matched"
		}
	}
	return p, nil
}

// CheckTools reports rules that name a tool not in known: a misspelled name
// would make the rule match nothing, silently.
func (p *Policy) CheckTools(known []string) error {
	var bad []string
	for _, r := range p.Rules {
		for _, name := range r.Tools {
			if !slices.Contains(known, name) {
				bad = append(bad, fmt.Sprintf("rule %q names the tool %q", r.Name, name))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s; the tools are: %s", strings.Join(bad, "; "), strings.Join(known, ", "))
	}
	return nil
}

func parseVerdict(s string) (Verdict, error) {
	switch v := Verdict(strings.ToUpper(strings.TrimSpace(s))); v {
	case Allow, DenyVerdict, RequireConfirm:
		return v, nil
	}
	return "", fmt.Errorf("verdict %q: want ALLOW, DENY or REQUIRE_USER_CONFIRMATION", s)
}

// Check decides one call. spec is the tool's definition (nil for an unknown
// tool); ws resolves path arguments.
//
// A "command" argument is read as the shell will read it (readCommand).
// When a rule matches it, the reason ends with the part of the command the
// rule matched. A command line the parser cannot read is never allowed: a
// rule that would allow it or ask about it gives way to the rule
// unparsable-command, which asks a person and quotes the parser's message;
// only a denial stands.
func (p *Policy) Check(call history.ToolCall, spec *history.ToolSpec, ws PathChecker) Decision {
	// Arguments that are not a JSON object match no argument condition; the
	// tool itself rejects them with the exact error the model needs.
	args := map[string]any{}
	_ = json.Unmarshal(call.Args, &args)
	cmd := readCommandArg(args)
	d := p.Default
	for _, r := range p.Rules {
		if matched, ok := r.matches(call.Name, args, cmd, spec, ws); ok {
			d = Decision{Verdict: r.Verdict, Rule: r.Name, Reason: r.Reason + matched}
			break
		}
	}
	if cmd != nil && cmd.err != nil && d.Verdict != DenyVerdict {
		d = Decision{Verdict: RequireConfirm, Rule: unparsableRule, Reason: fmt.Sprintf(
			"the command cannot be read as a shell command line (%v), so what it would run is unknown; a person decides",
			cmd.err)}
	}
	return p.applyGrant(call, d)
}

// command is a call's "command" argument and the shell's reading of it.
type command struct {
	text  string
	lines []commandLine
	err   error // the parser's, when it could not read text
}

// readCommandArg reads the "command" argument, or returns nil when the call
// has none.
func readCommandArg(args map[string]any) *command {
	text, ok := args["command"].(string)
	if !ok {
		return nil
	}
	lines, err := readCommand(text)
	return &command{text: text, lines: lines, err: err}
}

func (p *Policy) applyGrant(call history.ToolCall, d Decision) Decision {
	if d.Verdict == RequireConfirm && p.grants[grantKey(call)] {
		return Decision{Verdict: Allow, Rule: sessionGrantRule, Reason: "the person allowed this exact call for the session (rule " + d.Rule + " asked)"}
	}
	return d
}

// Grant allows this exact call (tool + canonical arguments) for the rest of
// the session. Only a person's answer calls it.
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
func (r Rule) matches(tool string, args map[string]any, cmd *command, spec *history.ToolSpec, ws PathChecker) (string, bool) {
	if len(r.Tools) > 0 && !slices.Contains(r.Tools, tool) {
		return "", false
	}
	if r.PathOutsideWorkspace && !pathOutside(args, spec, ws) {
		return "", false
	}
	if len(r.CommandMatches) > 0 {
		return r.matchCommand(cmd)
	}
	return "", true
}

// matchCommand tries the rule's patterns on the command as written, then,
// for a DENY rule, on each line of the shell's reading. Only a denial looks
// at the reading: a pattern seeing more can only make its rule match more,
// which makes a DENY rule stricter but could let an ALLOW or confirmation
// rule take a call that a later DENY rule should have had.
func (r Rule) matchCommand(cmd *command) (string, bool) {
	if cmd == nil {
		cmd = &command{}
	}
	for _, re := range r.CommandMatches {
		if loc := re.FindStringIndex(cmd.text); loc != nil {
			return fmt.Sprintf(": %q", strings.TrimSpace(cmd.text[loc[0]:loc[1]])), true
		}
	}
	if r.Verdict != DenyVerdict {
		return "", false
	}
	for _, line := range cmd.lines {
		for _, re := range r.CommandMatches {
			if loc := re.FindStringIndex(line.text); loc != nil {
				m := strings.TrimSpace(line.text[loc[0]:loc[1]])
				return fmt.Sprintf(": %q (the shell's reading of: %s)", m, shownSource(line.source)), true
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
		if spec == nil {
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
