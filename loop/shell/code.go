package shell

// Code a command is given to run: a shell's -c line or program, eval,
// source, trap, alias, su -c, env -S, watch, find -exec, xargs. Each is
// followed as a nested command line where it can be read, and noted as
// unknown where it cannot.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// runsCode follows code a command is given to run, by the command's name.
// (A switch rather than a map of functions: the followers read nested
// command lines, which lead back here.)
func (r *reader) runsCode(c call) {
	switch c.base {
	case "eval":
		r.evalCode(c)
	case "source", ".":
		r.sourceCode(c)
	case "trap":
		r.trapCode(c)
	case "alias":
		r.aliasCode(c)
	case "su", "runuser", "script", "flock", "env":
		r.optionCode(c, commandOptions[c.base])
	case "watch":
		if inner := unwrap(c.words); len(inner) > 0 {
			r.follow(c, strings.Join(inner, " "), r.d, "watch", false)
		}
	case "find":
		r.findExec(c)
	case "xargs", "parallel":
		r.xargs(c)
	case "sed":
		r.sed(c)
	default:
		r.programCode(c)
	}
}

// programCode follows the program a shell, awk or another interpreter
// runs.
func (r *reader) programCode(c call) {
	switch {
	case slices.Contains(shellNames, c.base):
		r.shellCode(c)
	case slices.Contains(awks, c.base):
		r.awk(c)
	default:
		if n, ok := interpreterName(c.base); ok {
			r.interpreter(c, interpreters[n])
		}
	}
}

// follow reads src, a command line c is given to run, in dialect d; by
// names how it was given ("sh -c"), stream whether its standard input may
// carry code.
func (r *reader) follow(c call, src string, d Dialect, by string, stream bool) {
	r.nested(src, d, by, c.source, c.depth, stream)
}

// shellCode follows what a shell runs: its -c line (with the words after
// it as that line's $0, $1, …), a script, a here-document, or a stream.
func (r *reader) shellCode(c call) {
	line, dashC, operand, fromStdin, params := shellArgs(c.args())
	switch {
	case dashC && hasMarker(line):
		r.unknown(fmt.Sprintf("%s -c runs a command line built at run time (%s)", c.base, Shown(line)))
		r.fed(fmt.Sprintf("%s -c runs %s", c.base, Shown(line)))
	case dashC:
		// sh -c 'rm -rf "$1"' _ ~: the words after the line are its $0,
		// $1, …, for that line only.
		saved := maps.Clone(r.vars)
		for i, p := range params {
			delete(r.vars, strconv.Itoa(i))
			r.setVar(strconv.Itoa(i), p, !hasMarker(p))
		}
		r.follow(c, line, r.shellDialect(c.base), c.base+" -c", c.stream)
		r.vars = saved
	case operand != "" && (streamPath(operand) || hasMarker(operand)):
		r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", c.base, Shown(operand)))
		r.fed(fmt.Sprintf("%s reads its program from %s", c.base, Shown(operand)))
	case operand != "":
		r.runs(operand)
	case fromStdin && c.stdin.hasDoc:
		r.follow(c, c.stdin.code, r.shellDialect(c.base), c.base+" <<", false)
	case fromStdin && c.stdin.file != "":
		r.runs(c.stdin.file) // sh < script.sh: the file is the program
	case fromStdin && c.stream:
		r.unknown(fmt.Sprintf("%s reads the commands it runs from its input", c.base))
		r.fed(fmt.Sprintf("%s reads its program from its input", c.base))
	}
}

// evalCode follows eval's words, joined into the line it runs.
func (r *reader) evalCode(c call) {
	line := unmarked(strings.Join(c.args(), " "))
	if hasMarker(strings.Join(c.args(), " ")) {
		line = strings.Join(c.args(), " ")
	}
	if hasMarker(line) {
		r.unknown(fmt.Sprintf("eval runs a command line built at run time (%s)", Shown(line)))
		r.fed(fmt.Sprintf("eval runs %s", Shown(line)))
		return
	}
	r.follow(c, line, r.d, "eval", c.stream)
}

// sourceCode notes the file source (or .) runs, and a stream it reads.
func (r *reader) sourceCode(c call) {
	args := c.args()
	if len(args) == 0 {
		return
	}
	r.runs(args[0])
	if streamPath(args[0]) || hasMarker(args[0]) {
		r.unknown(fmt.Sprintf("%s runs the commands in %s, known only when it runs", c.base, Shown(args[0])))
		r.fed(fmt.Sprintf("%s reads commands from %s", c.base, Shown(args[0])))
	}
}

// trapCode follows the command line a trap runs (trap LINE SIGNAL…).
func (r *reader) trapCode(c call) {
	args := c.args()
	switch {
	case len(args) < 2:
	case hasMarker(args[0]):
		r.unknown("trap runs a command line built at run time")
	default:
		r.follow(c, args[0], r.d, "trap", false)
	}
}

// aliasCode follows the command line of each alias defined.
func (r *reader) aliasCode(c call) {
	for _, a := range c.args() {
		if _, value, ok := strings.Cut(a, "="); ok {
			r.follow(c, value, r.d, "alias", false)
		}
	}
}

// commandOption is an option whose value is a command line (su -c
// LINE): its letter and long name, and the command's short options that
// take a value, so that a cluster of them is read as getopt reads it.
type commandOption struct {
	letter    byte
	long      string
	withValue string
}

// commandOptions are the commands that take a command line as an
// option's value.
var commandOptions = map[string]commandOption{
	"su":      {'c', "--command", "cCgGsw"},
	"runuser": {'c', "--command", "cCgGsuw"},
	"script":  {'c', "--command", "cEBIOTm"},
	"flock":   {'c', "--command", "cwE"},
	"env":     {'S', "--split-string", "uCS"},
}

// optionCode follows the command lines given as an option's value: su -c
// LINE, su -lc LINE, su -cLINE, su --command LINE, su --command=LINE.
func (r *reader) optionCode(c call, o commandOption) {
	args := c.args()
	by := c.base + " -" + string(o.letter)
	for i, a := range args {
		if line, ok := optionValue(a, args[i+1:], o); ok {
			r.follow(c, line, r.d, by, c.stream)
		}
	}
}

// optionValue is the value argument a gives option o: attached (-cLINE,
// --command=LINE) or the next word (rest[0]).
func optionValue(a string, rest []string, o commandOption) (string, bool) {
	switch {
	case a == o.long && len(rest) > 0:
		return rest[0], true
	case strings.HasPrefix(a, o.long+"="):
		return a[len(o.long)+1:], true
	case strings.HasPrefix(a, "--") || !strings.HasPrefix(a, "-"):
		return "", false
	}
	letter, value, next := clusterValue(a, o.withValue)
	switch {
	case letter != o.letter:
		return "", false
	case !next:
		return value, true
	case len(rest) > 0:
		return rest[0], true
	}
	return "", false
}

// shellDialect is the grammar the shell named base reads: bash and its
// kin read bash's, dash and ash POSIX, and sh whichever this reading takes
// it to be.
func (r *reader) shellDialect(base string) Dialect {
	switch base {
	case "bash", "zsh", "ksh", "mksh", "ksh93", "rbash", "oksh", "loksh":
		return bashDialect
	case "dash", "posh", "ash":
		return posixDialect
	}
	return r.d
}

// findExec follows the commands find runs for each file: -exec, -execdir,
// -ok and -okdir, up to their ; or +.
func (r *reader) findExec(c call) {
	args := c.args()
	for i, a := range args {
		if a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir" {
			continue
		}
		end := i + 1
		for end < len(args) && args[end] != ";" && args[end] != "+" {
			end++
		}
		if i+1 < end && strings.Contains(args[i+1], "{}") {
			r.unknown(fmt.Sprintf("find %s runs the files it finds as commands", a))
		}
		r.follow(c, quoteWords(args[i+1:end]), r.d, "find "+a, false)
	}
}

// xargs builds commands from its input: when the command it runs is a
// shell, an interpreter or a wrapper given no command, the input names what
// runs.
func (r *reader) xargs(c call) {
	inner := unwrap(c.words)
	if c.base == "parallel" {
		inner = c.args()
	}
	if len(inner) == 0 {
		return
	}
	if buildsCommand(inner) {
		r.unknown(fmt.Sprintf("%s builds the command it runs from its input (%s)", c.base, Shown(strings.Join(inner, " "))))
		r.fed(fmt.Sprintf("%s runs what its input says", c.base))
		return
	}
	for next := unwrap(inner); len(next) > 0; next = unwrap(inner) {
		inner = next // xargs nice rm: what nice runs
	}
	if cb := path.Base(inner[0]); slices.Contains(changers, cb) {
		// find . | xargs rm: the files it removes are its input's names.
		r.unknown(fmt.Sprintf("%s %s changes the files its input names", c.base, cb))
	}
}

// buildsCommand reports whether the command xargs runs (inner) takes the
// command line from xargs's input: a shell, an interpreter, eval or
// source, a name holding {}, or a wrapper given no command.
func buildsCommand(inner []string) bool {
	ib := path.Base(inner[0])
	_, isInterp := interpreterName(ib)
	_, isWrapper := wrappers[ib]
	return slices.Contains(shellNames, ib) || isInterp || ib == "eval" || ib == "source" || ib == "." ||
		strings.Contains(inner[0], "{}") || (isWrapper && len(unwrap(inner)) == 0)
}
