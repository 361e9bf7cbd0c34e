package shell

// Interpreters (python, perl, node …): how each gets its program, and the
// command lines in the strings of inline code.

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// interpreter is a program that runs code: the options that give it code
// inline, and the options that take a value as the next word.
type interpreter struct {
	inline     string   // short options whose value is code (-c, -e)
	inlineLong []string // long ones (--eval)
	withValue  string   // short options that take a value
	module     string   // the option that runs a module instead of a file (-m)
}

var interpreters = map[string]interpreter{
	"python":    {inline: "c", withValue: "WXQ", module: "m"},
	"pypy":      {inline: "c", withValue: "WXQ", module: "m"},
	"perl":      {inline: "eE", withValue: "IMmx"},
	"ruby":      {inline: "e", withValue: "IrCEFx"},
	"irb":       {},
	"node":      {inline: "ep", inlineLong: []string{"--eval", "--print"}, withValue: "r"},
	"nodejs":    {inline: "ep", inlineLong: []string{"--eval", "--print"}, withValue: "r"},
	"bun":       {inline: "e", inlineLong: []string{"--eval", "--print"}},
	"deno":      {inlineLong: []string{"eval"}},
	"php":       {inline: "rRBE", withValue: "cdz"},
	"lua":       {inline: "e", withValue: "l"},
	"luajit":    {inline: "e", withValue: "l"},
	"rscript":   {inline: "e"},
	"r":         {inline: "e"},
	"tclsh":     {},
	"wish":      {},
	"expect":    {inline: "c"},
	"julia":     {inline: "eE"},
	"pwsh":      {inline: "c", inlineLong: []string{"-command", "-Command", "--command"}},
	"osascript": {inline: "e"},
	"guile":     {inline: "c"},
	"gdb":       {inlineLong: []string{"-ex", "--eval-command"}},
	"vim":       {inline: "c"},
	"nvim":      {inline: "c"},
	"ex":        {inline: "c"},
}

// interpreterName maps a program name to its interpreters entry: python3.12
// → python, perl5.36 → perl, Rscript → rscript.
func interpreterName(name string) (string, bool) {
	n := strings.ToLower(strings.TrimRight(path.Base(name), "0123456789."))
	if _, ok := interpreters[n]; ok {
		return n, true
	}
	return "", false
}

// interpreter reads how an interpreter gets its program: inline code (a
// person decides, and the code's strings are read as command lines), a
// stream (the same; fed a download it is denied), or a file.
func (r *reader) interpreter(c call, in interpreter) {
	p := in.read(c.args())
	if p.script != "" && (streamPath(p.script) || hasMarker(p.script)) {
		r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", c.base, Shown(p.script)))
		r.fed(fmt.Sprintf("%s reads its program from %s", c.base, Shown(p.script)))
	}
	r.runs(p.script)
	if len(p.code) > 0 {
		r.inlineCode(c.base, strings.Join(p.code, "\n"), c.callContext)
		return
	}
	if p.fromFile && !p.dash {
		return
	}
	switch {
	case c.stdin.hasDoc:
		r.inlineCode(c.base, c.stdin.code, callContext{source: c.source, depth: c.depth})
	case c.stdin.file != "":
		r.runs(c.stdin.file) // python3 < script.py: the file is the program
	case c.stream:
		r.unknown(fmt.Sprintf("%s reads the program it runs from its input", c.base))
		r.fed(fmt.Sprintf("%s reads its program from its input", c.base))
	}
}

// program is what an interpreter's arguments say about its program.
type program struct {
	code     []string // inline code (-c CODE, -e CODE, --eval=CODE)
	script   string   // the file it runs, when no code came before it
	fromFile bool     // a file or module runs (or the code's arguments follow)
	dash     bool     // "-": the program is read from standard input
}

// read reads an interpreter's arguments up to its program.
func (in interpreter) read(args []string) program {
	var p program
	for i := 0; i < len(args) && !p.fromFile && !p.dash; i++ {
		a := args[i]
		switch {
		case slices.Contains(in.inlineLong, a) && i+1 < len(args):
			p.code = append(p.code, args[i+1])
			i++
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			if k, v, _ := strings.Cut(a, "="); slices.Contains(in.inlineLong, k) {
				p.code = append(p.code, v)
			}
		case a == "-":
			p.dash = true
		case strings.HasPrefix(a, "--"):
			// "--", or another long option (--no-save, --version)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i += p.shortOptions(in, a, args[i+1:])
		default:
			if len(p.code) == 0 {
				p.script = a
			}
			p.fromFile = true // a script, or the inline code's arguments
		}
	}
	return p
}

// shortOptions reads one cluster of short options (-c, -Wx, -ec CODE) up
// to the first that decides something, and returns how many of the words
// after it (rest) it takes.
func (p *program) shortOptions(in interpreter, a string, rest []string) int {
	for k := 1; k < len(a); k++ {
		c := a[k]
		switch {
		case strings.IndexByte(in.module, c) >= 0:
			p.fromFile = true // runs a module: like a file
			return 0
		case strings.IndexByte(in.inline, c) >= 0 && k+1 < len(a):
			p.code = append(p.code, a[k+1:]) // -cCODE
			return 0
		case strings.IndexByte(in.inline, c) >= 0 && len(rest) > 0:
			p.code = append(p.code, rest[0])
			return 1
		case strings.IndexByte(in.inline, c) >= 0:
			return 0
		case strings.IndexByte(in.withValue, c) >= 0 && k+1 == len(a):
			return 1 // its value is the next word
		case strings.IndexByte(in.withValue, c) >= 0:
			return 0
		}
	}
	return 0
}

// maxCodeStrings bounds how many quoted strings of interpreter code are
// read as command lines.
const maxCodeStrings = 64

// quotedStrings finds the strings quoted in interpreter code ('…', "…",
// `…`): where a command line given to os.system, system() or exec would be.
var quotedStrings = regexp.MustCompile("'([^'\\\\]|\\\\.)*'|\"([^\"\\\\]|\\\\.)*\"|`[^`]*`")

// inlineCode is code given to an interpreter on its command line or in a
// here-document. What commands it starts cannot be read, so a person
// decides; its quoted strings are read as command lines, so a denied
// command inside them is denied.
func (r *reader) inlineCode(base, code string, ctx callContext) {
	r.unknown(fmt.Sprintf("%s runs code given on its command line; the commands that code starts cannot be read", base))
	if hasMarker(code) { // python3 -c "$(curl …)": the code itself is fetched
		r.fed(fmt.Sprintf("%s runs code built at run time", base))
	}
	if ctx.stream {
		r.fed(fmt.Sprintf("%s runs code and reads its input", base))
	}
	r.codeStrings(base, code, ctx)
}

// codeStrings reads the quoted strings of interpreter code as command
// lines, for the denials they hold.
func (r *reader) codeStrings(base, code string, ctx callContext) {
	if name := privilegeIn(code); name != "" {
		r.find("privilege-escalation", fmt.Sprintf("%s code naming %s", base, name), ctx.source)
	}
	if ctx.depth+1 > MaxNesting {
		return
	}
	for _, q := range quotedStrings.FindAllString(code, maxCodeStrings) {
		r.denialsIn(q[1:len(q)-1], ctx.source, ctx.depth)
		if r.tooLarge != "" {
			return
		}
	}
}
