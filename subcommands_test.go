package main

import (
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// TestSubcommandTable checks the table every list of commands is read
// from: one row per name, a name that cannot be taken for a flag, and a
// summary with Japanese (it is said through Lang.Dyn, which the catalog
// test cannot read).
func TestSubcommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range subcommands() {
		if c.name == "" || strings.HasPrefix(c.name, "-") || strings.ContainsAny(c.name, " \t") {
			t.Errorf("subcommand %q: a name is one word that does not start with -", c.name)
		}
		if seen[c.name] {
			t.Errorf("subcommand %q is in the table twice", c.name)
		}
		seen[c.name] = true
		if c.run == nil {
			t.Errorf("subcommand %q runs nothing", c.name)
		}
		if !lang.Has(c.summary) {
			t.Errorf("subcommand %q: no Japanese for its summary %q (ui/lang/ja_cli.go)", c.name, c.summary)
		}
		if strings.Contains(c.summary, "\n") {
			t.Errorf("subcommand %q: its summary is one line", c.name)
		}
	}
}

// TestHelpListsTheSubcommands: `glassbox help` and `glassbox --help` (the
// glass box's own flags) both list every subcommand the table does not
// hide, with its summary in the language asked for, and neither lists a
// hidden one. Before the table, --help listed no subcommand at all.
func TestHelpListsTheSubcommands(t *testing.T) {
	isolate(t)
	for _, l := range lang.All {
		for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
			args := append(args, "--lang", l.String())
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, stderr := runIn(t, "", args...)
				if code != exitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				text := out + stderr
				if !strings.Contains(text, l.T("full-screen TUI (offline simulation unless a provider is configured)")) {
					t.Errorf("the glass box itself is not listed:\n%s", text)
				}
				for _, c := range subcommands() {
					listed := strings.Contains(text, "  glassbox "+c.name+" ") || strings.Contains(text, "  glassbox "+c.name+"\n")
					switch {
					case c.hidden && listed:
						t.Errorf("hidden subcommand %q is listed:\n%s", c.name, text)
					case !c.hidden && !listed:
						t.Errorf("subcommand %q is not listed:\n%s", c.name, text)
					case !c.hidden && !strings.Contains(text, l.Dyn(c.summary)):
						t.Errorf("subcommand %q: its summary %q is not listed:\n%s", c.name, l.Dyn(c.summary), text)
					}
				}
			})
		}
	}
	// The glass box's --help goes on to its flags; help points to run's.
	if _, _, stderr := runIn(t, "", "--help"); !strings.Contains(stderr, "Flags of the full-screen glass box") || !strings.Contains(stderr, "-predict") {
		t.Errorf("--help shows no flags of the glass box:\n%s", stderr)
	}
	if _, out, _ := runIn(t, "", "help"); !strings.Contains(out, "Run 'glassbox run -h' for the flags.") {
		t.Errorf("help does not say where the flags are:\n%s", out)
	}
}

// TestSubcommandsDispatch: each subcommand with flags is reached by its
// name, and its -h names it.
func TestSubcommandsDispatch(t *testing.T) {
	isolate(t)
	for _, c := range subcommands() {
		switch c.name {
		case "version", "help":
			continue // no flags; their output is tested above and in TestVersionAndUsage
		}
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runIn(t, "", c.name, "-h")
			text := out + stderr
			if c.hidden {
				// mcp-demo takes no arguments at all.
				if code != exitUsage || !strings.Contains(text, "takes no arguments") {
					t.Fatalf("exit %d: %s", code, text)
				}
				return
			}
			if code != exitOK || !strings.Contains(text, "glassbox "+c.name) {
				t.Fatalf("%s -h: exit %d, output does not name the subcommand:\n%s", c.name, code, text)
			}
		})
	}
}
