package shell

// Commands that run another command named in their arguments (sudo,
// env, nice …), and a shell's own arguments.

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrapper describes a command that runs another one named in its
// arguments: the options of it that take a value as the next word (short
// ones by letter, long ones by name), and how many plain arguments come
// before the command (timeout's DURATION, chroot's NEWROOT).
type wrapper struct {
	optsWithValue string
	longWithValue []string
	positional    int
}

// wrappers are the prefixes unwrap sees through.
var wrappers = map[string]wrapper{
	"env":       {optsWithValue: "uCS", longWithValue: []string{"--unset", "--chdir", "--split-string"}},
	"command":   {},
	"exec":      {optsWithValue: "a"},
	"builtin":   {},
	"nohup":     {},
	"setsid":    {},
	"nice":      {optsWithValue: "n", longWithValue: []string{"--adjustment"}},
	"ionice":    {optsWithValue: "cnpPu", longWithValue: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"chrt":      {positional: 1},
	"taskset":   {positional: 1},
	"time":      {optsWithValue: "fo", longWithValue: []string{"--format", "--output"}},
	"timeout":   {optsWithValue: "sk", longWithValue: []string{"--signal", "--kill-after"}, positional: 1},
	"stdbuf":    {optsWithValue: "ioe", longWithValue: []string{"--input", "--output", "--error"}},
	"unbuffer":  {},
	"chroot":    {positional: 1},
	"xargs":     {optsWithValue: "adEILnPs", longWithValue: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"flock":     {optsWithValue: "wE", longWithValue: []string{"--wait", "--timeout", "--conflict-exit-code"}, positional: 1},
	"unshare":   {},
	"nsenter":   {optsWithValue: "tS", longWithValue: []string{"--target", "--setuid", "--setgid"}},
	"strace":    {optsWithValue: "eoOpsuU", longWithValue: []string{"--output", "--user"}},
	"ltrace":    {optsWithValue: "eoOpsu", longWithValue: []string{"--output", "--user"}},
	"catchsegv": {},
	"fakeroot":  {},
	"firejail":  {},
	"sudo":      {optsWithValue: "CDghprtTUu", longWithValue: []string{"--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--close-from", "--other-user", "--chroot", "--command-timeout"}},
	"doas":      {optsWithValue: "Cu"},
	"pkexec":    {optsWithValue: "u", longWithValue: []string{"--user"}},
	"run0":      {optsWithValue: "uDg", longWithValue: []string{"--user", "--group", "--chdir", "--description", "--property", "--setenv", "--nice", "--slice", "--unit"}},
	"busybox":   {},
	"toybox":    {},
	"watch":     {optsWithValue: "dn", longWithValue: []string{"--interval"}},
}

// unwrap returns the command a wrapper in words runs ("sudo -u root id" →
// "id"), or nil when words[0] is not a wrapper or names no command.
// Options are skipped with a light hand: guessing wrong only adds a line
// to check, and the whole command stays checked as written.
func unwrap(words []string) []string {
	w, ok := wrappers[path.Base(words[0])]
	if !ok {
		return nil
	}
	rest := words[1:]
	for len(rest) > 0 {
		arg := rest[0]
		switch {
		case arg == "--":
			return skipPositional(rest[1:], w.positional)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			rest = rest[1+w.valueWords(arg, len(rest) > 1):]
		case path.Base(words[0]) == "env" && isAssignment(arg):
			rest = rest[1:]
		default:
			return skipPositional(rest, w.positional)
		}
	}
	return nil
}

// valueWords is how many words after the option arg are its value: one
// for a long option that takes one (--user NAME), or a cluster of short
// ones whose first that takes a value ends it (-u NAME, -iu NAME; -uNAME
// holds its value); none when there is no next word.
func (w wrapper) valueWords(arg string, hasNext bool) int {
	if !hasNext {
		return 0
	}
	if strings.HasPrefix(arg, "--") {
		if slices.Contains(w.longWithValue, arg) {
			return 1
		}
		return 0
	}
	if _, _, next := clusterValue(arg, w.optsWithValue); next {
		return 1
	}
	return 0
}

// clusterValue reads a cluster of short options (-xvf FILE) as getopt
// does: the first letter that takes a value (one of withValue) takes the
// rest of the cluster, or the next word when it ends the cluster. It
// returns that letter (0 for none) and its value in the cluster; next
// says the value is the next word.
func clusterValue(arg, withValue string) (letter byte, value string, next bool) {
	for k := 1; k < len(arg); k++ {
		if strings.IndexByte(withValue, arg[k]) < 0 {
			continue
		}
		if k+1 < len(arg) {
			return arg[k], arg[k+1:], false
		}
		return arg[k], "", true
	}
	return 0, "", false
}

func skipPositional(rest []string, n int) []string {
	if len(rest) <= n {
		return nil
	}
	return rest[n:]
}

// isAssignment reports whether word is NAME=VALUE.
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	return ok && isName(name)
}

// shellArgs reads a shell's arguments: the command line of -c (the first
// plain argument after an option cluster holding c: -c, -ec, -xc) and the
// words after it ($0, $1, … of that line), or the script file it runs, or
// whether it reads its program from standard input (-s, or no operand).
func shellArgs(args []string) (line string, dashC bool, operand string, fromStdin bool, params []string) {
	dashS := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			if i+1 < len(args) && !dashC && !dashS {
				return "", false, args[i+1], false, nil
			}
		case slices.Contains(shellOptionsWithName, a):
			i++ // takes an option name
		case shortCluster(a):
			dashC = dashC || strings.ContainsRune(a[1:], 'c')
			dashS = dashS || strings.ContainsRune(a[1:], 's')
		case strings.HasPrefix(a, "--"):
			// a long option (--norc, --login)
		case dashC:
			return a, true, "", false, args[i+1:]
		case dashS:
			return "", false, "", true, nil
		default:
			return "", false, a, false, nil
		}
	}
	return "", false, "", !dashC, nil
}

// shellOptionsWithName are a shell's options that take the next word as
// their value: -o NAME, +O NAME, --rcfile FILE.
var shellOptionsWithName = []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}

// shortCluster reports whether a is a cluster of short options: -ec, +x.
func shortCluster(a string) bool {
	return (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1 && !strings.HasPrefix(a, "--")
}

// quoteWords joins words back into a command line that parses into the
// same words.
func quoteWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			q = w
		}
		quoted[i] = q
	}
	return strings.Join(quoted, " ")
}
