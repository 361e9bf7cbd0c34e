package shell

// Code a command is given to run: a shell's -c line or program, eval,
// source, trap, alias, find -exec, xargs.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// runsCode follows code a command is given to run: a shell's -c line or
// program on standard input, eval's words, an interpreter's inline code or
// program from a stream, source /dev/stdin, trap and alias bodies, find
// -exec, and what xargs builds from its input.
func (r *reader) runsCode(words []string, ctx callContext) {
	base := path.Base(words[0])
	args := words[1:]
	nestedIn := func(src string, d Dialect, by string, stream bool) {
		r.nested(src, d, by, ctx.source, ctx.depth, stream)
	}
	switch {
	case slices.Contains(shellNames, base):
		line, dashC, operand, fromStdin, params := shellArgs(args)
		switch {
		case dashC && hasMarker(line):
			r.unknown(fmt.Sprintf("%s -c runs a command line built at run time (%s)", base, Shown(line)))
			r.fed(fmt.Sprintf("%s -c runs %s", base, Shown(line)))
		case dashC:
			// sh -c 'rm -rf "$1"' _ ~: the words after the line are its $0,
			// $1, …, for that line only.
			saved := maps.Clone(r.vars)
			for i, p := range params {
				delete(r.vars, strconv.Itoa(i))
				r.setVar(strconv.Itoa(i), p, !hasMarker(p))
			}
			nestedIn(line, r.shellDialect(base), base+" -c", ctx.stream)
			r.vars = saved
		case operand != "" && (streamPath(operand) || hasMarker(operand)):
			r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", base, Shown(operand)))
			r.fed(fmt.Sprintf("%s reads its program from %s", base, Shown(operand)))
		case operand != "":
			r.runs(operand)
		case fromStdin && ctx.stdin.hasDoc:
			nestedIn(ctx.stdin.code, r.shellDialect(base), base+" <<", false)
		case fromStdin && ctx.stream:
			r.unknown(fmt.Sprintf("%s reads the commands it runs from its input", base))
			r.fed(fmt.Sprintf("%s reads its program from its input", base))
		}
	case base == "eval":
		line := unmarked(strings.Join(args, " "))
		if hasMarker(strings.Join(args, " ")) {
			line = strings.Join(args, " ")
		}
		if hasMarker(line) {
			r.unknown(fmt.Sprintf("eval runs a command line built at run time (%s)", Shown(line)))
			r.fed(fmt.Sprintf("eval runs %s", Shown(line)))
		} else {
			nestedIn(line, r.d, "eval", ctx.stream)
		}
	case base == "source" || base == ".":
		if len(args) > 0 {
			r.runs(args[0])
		}
		if len(args) > 0 && (streamPath(args[0]) || hasMarker(args[0])) {
			r.unknown(fmt.Sprintf("%s runs the commands in %s, known only when it runs", base, Shown(args[0])))
			r.fed(fmt.Sprintf("%s reads commands from %s", base, Shown(args[0])))
		}
	case base == "trap" && len(args) > 1:
		if hasMarker(args[0]) {
			r.unknown("trap runs a command line built at run time")
		} else {
			nestedIn(args[0], r.d, "trap", false)
		}
	case base == "alias":
		for _, a := range args {
			if _, value, ok := strings.Cut(a, "="); ok {
				nestedIn(value, r.d, "alias", false)
			}
		}
	case base == "su" || base == "runuser" || base == "script" || base == "flock":
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				nestedIn(args[i+1], r.d, base+" -c", ctx.stream)
			} else if v, ok := strings.CutPrefix(a, "--command="); ok {
				nestedIn(v, r.d, base+" -c", ctx.stream)
			}
		}
	case base == "env":
		for i, a := range args {
			if (a == "-S" || a == "--split-string") && i+1 < len(args) {
				nestedIn(args[i+1], r.d, "env -S", ctx.stream)
			} else if v, ok := strings.CutPrefix(a, "--split-string="); ok {
				nestedIn(v, r.d, "env -S", ctx.stream)
			}
		}
	case base == "watch":
		if inner := unwrap(words); len(inner) > 0 {
			nestedIn(strings.Join(inner, " "), r.d, "watch", false)
		}
	case base == "find":
		r.findExec(args, nestedIn)
	case base == "xargs" || base == "parallel":
		r.xargs(base, words)
	case slices.Contains(awks, base):
		r.awk(base, args, ctx)
	case base == "sed":
		r.sed(args, ctx)
	default:
		if n, ok := interpreterName(base); ok {
			r.interpreter(base, interpreters[n], args, ctx)
		}
	}
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

func (r *reader) findExec(args []string, nestedIn func(src string, d Dialect, by string, stream bool)) {
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
		nestedIn(quoteWords(args[i+1:end]), r.d, "find "+a, false)
	}
}

// xargs builds commands from its input: when the command it runs is a
// shell, an interpreter or a wrapper given no command, the input names what
// runs.
func (r *reader) xargs(base string, words []string) {
	inner := unwrap(words)
	if base == "parallel" {
		inner = words[1:]
	}
	if len(inner) == 0 {
		return
	}
	ib := path.Base(inner[0])
	_, isInterp := interpreterName(ib)
	_, isWrapper := wrappers[ib]
	if slices.Contains(shellNames, ib) || isInterp || ib == "eval" || ib == "source" || ib == "." ||
		strings.Contains(inner[0], "{}") || (isWrapper && len(unwrap(inner)) == 0) {
		r.unknown(fmt.Sprintf("%s builds the command it runs from its input (%s)", base, Shown(strings.Join(inner, " "))))
		r.fed(fmt.Sprintf("%s runs what its input says", base))
		return
	}
	for next := unwrap(inner); len(next) > 0; next = unwrap(inner) {
		inner = next // xargs nice rm: what nice runs
	}
	if cb := path.Base(inner[0]); slices.Contains(changers, cb) {
		// find . | xargs rm: the files it removes are its input's names.
		r.unknown(fmt.Sprintf("%s %s changes the files its input names", base, cb))
	}
}
