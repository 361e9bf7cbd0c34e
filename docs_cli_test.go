package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/tools"
)

// cli is the command line as the program has it: its subcommands (the
// table main.go dispatches and lists them from) and each one's flags
// (from `glassbox SUB -h`), the TUI's under "".
type cli struct {
	subs   []string                   // listed by help
	hidden []string                   // dispatched, never listed
	flags  map[string]map[string]bool // subcommand → flag → takes a value
}

var helpFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)( \S+)?$`)

// readCLI reads the subcommand table, then asks the program itself for
// the flags, as a person would: `-h` of the TUI and of every subcommand.
func readCLI(t *testing.T) cli {
	t.Helper()
	c := cli{flags: map[string]map[string]bool{}, hidden: []string{tools.SandboxArg}}
	for _, s := range subcommands() {
		if s.hidden {
			c.hidden = append(c.hidden, s.name)
		} else {
			c.subs = append(c.subs, s.name)
		}
	}
	for _, sub := range append([]string{""}, c.subs...) {
		out, errs := runCLI(t, strings.Fields(sub+" -h")...)
		c.flags[sub] = map[string]bool{}
		for _, m := range helpFlag.FindAllStringSubmatch(out+errs, -1) {
			c.flags[sub][m[1]] = m[2] != ""
		}
	}
	if len(c.subs) < 5 || len(c.flags[""]) < 20 || len(c.flags["run"]) < 20 {
		t.Fatalf("%d subcommands, glassbox -h lists %d flags, glassbox run -h %d: the pattern no longer reads PrintDefaults", len(c.subs), len(c.flags[""]), len(c.flags["run"]))
	}
	return c
}

// runCLI runs glassbox with args and returns what it wrote on standard
// output and on standard error.
func runCLI(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errs strings.Builder
	realMain(context.Background(), args, strings.NewReader(""), &out, &errs)
	return out.String(), errs.String()
}

// invocation is one glassbox command line a doc writes.
type invocation struct {
	sub   string // "" for the TUI
	args  []string
	where string
}

// invocations are the glassbox command lines in a piece of code (a code
// span or a line of a fenced block): `go run . ARGS`, `glassbox ARGS`,
// `./glassbox ARGS` and `…/bin/glassbox ARGS`, also inside a quoted
// argument (--mcp other="glassbox mcp-serve"). ok is false when a word
// after glassbox is no subcommand: the doc names one that does not exist.
func invocations(code, where string, subs, hidden []string) (out []invocation, bad []string) {
	for _, cmd := range simpleCommands(code) {
		for _, w := range cmd {
			if strings.Contains(w, "glassbox ") && (strings.HasPrefix(w, "'") || strings.HasPrefix(w, `"`) || strings.Contains(w, `="`)) {
				_, q, _ := strings.Cut(w, `"`)
				if q == "" {
					_, q, _ = strings.Cut(w, "'")
				}
				o, b := invocations(strings.Trim(q, `"'`), where, subs, hidden)
				out, bad = append(out, o...), append(bad, b...)
			}
		}
		args, ok := afterGlassbox(cmd)
		if !ok {
			continue
		}
		inv := invocation{args: args, where: where}
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			switch first := args[0]; {
			case slices.Contains(subs, first) || slices.Contains(hidden, first):
				inv.sub, inv.args = first, args[1:]
			case regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(first) && commandLike(args[1:]):
				bad = append(bad, fmt.Sprintf("%s: glassbox has no subcommand %q (in %q)", where, first, code))
				continue
			default:
				continue // prose or a message ("glassbox run: …"), not a command
			}
		}
		out = append(out, inv)
	}
	return out, bad
}

// commandLike says whether the words after a first word make it a command
// line (nothing, a flag, an argument in capitals or a value) rather than a
// sentence about glassbox ("glassbox kept no copy …").
func commandLike(rest []string) bool {
	return len(rest) == 0 || !regexp.MustCompile(`^[a-z]+$`).MatchString(rest[0])
}

// afterGlassbox is the words after the glassbox of a simple command
// (after its VAR=value assignments), or false if it does not run glassbox.
func afterGlassbox(cmd []string) ([]string, bool) {
	for len(cmd) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(cmd[0]) {
		cmd = cmd[1:]
	}
	switch {
	case len(cmd) >= 3 && cmd[0] == "go" && cmd[1] == "run" && cmd[2] == ".":
		return cmd[3:], true
	case len(cmd) >= 1 && (cmd[0] == "glassbox" || cmd[0] == "./glassbox" || strings.HasSuffix(cmd[0], "/bin/glassbox")):
		return cmd[1:], true
	}
	return nil, false
}

// simpleCommands splits a line of shell into its simple commands, each a
// list of words: quotes keep a word whole; |, ;, &&, ||, ( and ) separate
// (a | between two letters, as in `md|html`, is usage syntax and stays);
// a # at the start of a word ends the line; the [ ] of usage syntax go.
func simpleCommands(line string) [][]string {
	var cmds [][]string
	var cur []string
	var word strings.Builder
	quote := byte(0)
	flush := func() {
		if word.Len() > 0 {
			cur = append(cur, strings.Trim(word.String(), "[]"))
			word.Reset()
		}
	}
	end := func() {
		flush()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			word.WriteByte(c)
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
			word.WriteByte(c)
		case c == '#' && word.Len() == 0:
			end()
			return cmds
		case c == ' ' || c == '\t':
			flush()
		case c == ';' || c == '(' || c == ')' || c == '&' || c == '`':
			end()
		case c == '|' && (word.Len() == 0 || i+1 < len(line) && line[i+1] == ' '):
			end()
		default:
			word.WriteByte(c)
		}
	}
	end()
	return cmds
}

// flagsOf checks an invocation's flags against the subcommand's: it
// returns the flags it names and what is wrong.
func (c cli) flagsOf(inv invocation) (named []string, bad []string) {
	known := c.flags[inv.sub]
	if slices.Contains(c.hidden, inv.sub) {
		return nil, nil
	}
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || strings.Trim(a, "-") == "" {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name = strings.TrimRight(name, ".,:;)`")
		takesValue, ok := known[name]
		if name == "h" || name == "help" {
			continue // every flag set's
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %s has no flag --%s", inv.where, strings.TrimSpace("glassbox "+inv.sub), name))
			continue
		}
		named = append(named, name)
		if takesValue && !hasValue {
			i++
		}
	}
	return named, bad
}

// docMentions is what the docs of one language say of the command line.
type docMentions struct {
	subs  map[string]bool
	flags map[string]map[string]bool // subcommand → flag; "*" for a flag named on its own
}

// mentions reads every code span and fenced line of pages for glassbox
// command lines and for flags named on their own (`--lang ja`), and
// reports every subcommand or flag they name that the program lacks.
func (c cli) mentions(t *testing.T, pages []*page) docMentions {
	t.Helper()
	m := docMentions{subs: map[string]bool{}, flags: map[string]map[string]bool{"*": {}}}
	all := map[string]bool{}
	for _, f := range c.flags {
		for name := range f {
			all[name] = true
		}
	}
	for _, p := range pages {
		for _, code := range p.code() {
			invs, bad := invocations(code.text, p.where(code.line), c.subs, c.hidden)
			for _, b := range bad {
				t.Error(b)
			}
			for _, inv := range invs {
				m.subs[inv.sub] = true
				named, bad := c.flagsOf(inv)
				for _, b := range bad {
					t.Errorf("%s (in %q)", b, code.text)
				}
				if m.flags[inv.sub] == nil {
					m.flags[inv.sub] = map[string]bool{}
				}
				for _, n := range named {
					m.flags[inv.sub][n] = true
				}
			}
			if name, ok := lonelyFlag(code.text); ok && !code.fenced {
				if !all[name] {
					t.Errorf("%s: `%s`: glassbox has no flag --%s", p.where(code.line), code.text, name)
				}
				m.flags["*"][name] = true
			}
		}
	}
	if len(m.subs) < 5 || len(m.flags["*"]) < 10 {
		t.Fatalf("the docs show %d subcommands and %d flags on their own: the patterns no longer read them", len(m.subs), len(m.flags["*"]))
	}
	return m
}

// lonelyFlag is the flag a code span names on its own: `--lang ja`,
// `--stream=false`, `--provider gemini\|llama`.
func lonelyFlag(span string) (string, bool) {
	m := regexp.MustCompile(`^--([a-z][a-z-]*)\b`).FindStringSubmatch(span)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// code is every code span of the page's prose and every line of its
// fenced blocks.
func (p *page) code() []codeSpan {
	var out []codeSpan
	start := -1
	flushProse := func(end int) {
		if start >= 0 {
			for _, s := range codeSpans(p.lines, start, end) {
				out = append(out, s)
			}
		}
		start = -1
	}
	for i, l := range p.lines {
		switch {
		case p.fence[i]:
			flushProse(i)
			out = append(out, codeSpan{text: l, line: i, fenced: true})
		case strings.TrimSpace(l) == "":
			flushProse(i)
		case start < 0:
			start = i
		}
	}
	flushProse(len(p.lines))
	return out
}

// TestDocFlags: every subcommand `glassbox help` lists and every flag its
// -h lists is written in the English docs (README and docs/) and in the
// Japanese ones (docs/ja/); every glassbox command line in the docs names
// subcommands and flags that exist; the README's flag table has a row for
// every flag of the TUI and of run.
func TestDocFlags(t *testing.T) {
	isolate(t)
	c := readCLI(t)
	pages := docPages(t)
	var en, ja []*page
	for _, p := range pages {
		if p.ja {
			ja = append(ja, p)
		} else {
			en = append(en, p)
		}
	}
	for name, docs := range map[string][]*page{"English (README.md, docs/)": en, "Japanese (docs/ja/)": ja} {
		m := c.mentions(t, docs)
		for _, sub := range c.subs {
			if !m.subs[sub] {
				t.Errorf("the %s docs never show `glassbox %s` (a subcommand `glassbox help` lists)", name, sub)
			}
		}
		for _, sub := range append([]string{""}, c.subs...) {
			for flag := range c.flags[sub] {
				if !m.flags[sub][flag] && !m.flags["*"][flag] {
					t.Errorf("the %s docs never show --%s of `glassbox %s` (its -h lists it)", name, flag, strings.TrimSpace(sub+" [flags]"))
				}
			}
		}
	}
	table := readmeFlagTable(t)
	for _, sub := range []string{"", "run"} {
		for flag := range c.flags[sub] {
			if !table[flag] {
				t.Errorf("README.md, \"Flags\": no row for --%s (`glassbox %s` lists it)", flag, strings.TrimSpace(sub+" -h"))
			}
		}
	}
}

// readmeFlagTable is every flag named in the first column of the README's
// "## Flags" table.
func readmeFlagTable(t *testing.T) map[string]bool {
	t.Helper()
	var readme *page
	for _, p := range docPages(t) {
		if p.path == "README.md" {
			readme = p
		}
	}
	in := false
	rows := map[string]bool{}
	for _, l := range readme.lines {
		if strings.HasPrefix(l, "## ") {
			in = l == "## Flags"
			continue
		}
		if !in || !strings.HasPrefix(l, "| `-") {
			continue
		}
		first := strings.SplitN(strings.ReplaceAll(l, `\|`, "/"), "|", 3)[1]
		for _, m := range regexp.MustCompile(`--([a-z][a-z-]*)`).FindAllStringSubmatch(first, -1) {
			rows[m[1]] = true
		}
	}
	if len(rows) < 20 {
		t.Fatalf("README.md: %d flags in the \"## Flags\" table: the pattern no longer reads it", len(rows))
	}
	return rows
}

// TestWorkspaceHelpSaysWhereTheCopyIs: --workspace's help says of the
// default workspace what the run itself says of it (the welcome and the
// trace's workspace line): a copy kept with the session, not a temporary
// one.
func TestWorkspaceHelpSaysWhereTheCopyIs(t *testing.T) {
	isolate(t)
	_, errs := runCLI(t, "run", "-h")
	help := regexp.MustCompile(`(?m)^  -workspace string\n\s+(.*)$`).FindStringSubmatch(errs)
	if help == nil {
		t.Fatalf("no --workspace in glassbox run -h:\n%s", errs)
	}
	out, _ := runCLI(t, "run", "--offline", "list the files")
	line := regexp.MustCompile(`(?m)^workspace: (.*)$`).FindStringSubmatch(out)
	if line == nil {
		t.Fatalf("the run says no workspace:\n%s", out)
	}
	_, kept, ok := strings.Cut(line[1], " (")
	kept = strings.TrimSuffix(kept, ")")
	if !ok || !strings.Contains(help[1], kept) {
		t.Errorf("glassbox run -h says of --workspace %q, the run says its workspace is %q", help[1], line[1])
	}
}
