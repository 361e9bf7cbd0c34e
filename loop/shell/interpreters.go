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
func (r *reader) interpreter(base string, in interpreter, args []string, ctx callContext) {
	var code []string
	fromFile, dash := false, false
	for i := 0; i < len(args) && !fromFile && !dash; i++ {
		a := args[i]
		switch {
		case slices.Contains(in.inlineLong, a) && i+1 < len(args):
			code = append(code, args[i+1])
			i++
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			if k, v, _ := strings.Cut(a, "="); slices.Contains(in.inlineLong, k) {
				code = append(code, v)
			}
		case a == "-":
			dash = true // the program is read from standard input
		case a == "--":
		case strings.HasPrefix(a, "--"):
			// another long option (--no-save, --version)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--"):
			for k := 1; k < len(a); k++ {
				c := a[k]
				if strings.IndexByte(in.module, c) >= 0 && in.module != "" {
					fromFile = true // runs a module: like a file
					break
				}
				if strings.IndexByte(in.inline, c) >= 0 && in.inline != "" {
					if k+1 < len(a) {
						code = append(code, a[k+1:])
					} else if i+1 < len(args) {
						code = append(code, args[i+1])
						i++
					}
					break
				}
				if strings.IndexByte(in.withValue, c) >= 0 && in.withValue != "" {
					if k+1 == len(a) {
						i++
					}
					break
				}
			}
		default:
			if len(code) == 0 && (streamPath(a) || hasMarker(a)) {
				r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", base, Shown(a)))
				r.fed(fmt.Sprintf("%s reads its program from %s", base, Shown(a)))
			}
			if len(code) == 0 {
				r.runs(a)
			}
			fromFile = true // a script, or the inline code's arguments
		}
	}
	if len(code) > 0 {
		r.inlineCode(base, strings.Join(code, "\n"), ctx)
		return
	}
	if fromFile && !dash {
		return
	}
	switch {
	case ctx.stdin.hasDoc:
		r.inlineCode(base, ctx.stdin.code, callContext{source: ctx.source, depth: ctx.depth})
	case ctx.stream:
		r.unknown(fmt.Sprintf("%s reads the program it runs from its input", base))
		r.fed(fmt.Sprintf("%s reads its program from its input", base))
	}
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
