package shell

// awk and sed, which run commands only through a few of their features.

import (
	"fmt"
	"strings"
)

// awk runs commands only through system(), a pipe to or from a command
// ("cmd" | getline, print | "cmd") and extensions (@load, -l): a program
// without them runs none.
func (r *reader) awk(base string, args []string, ctx callContext) {
	var program string
	have := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file" || a == "-i" || a == "--include":
			if i+1 < len(args) {
				if streamPath(args[i+1]) || hasMarker(args[i+1]) {
					r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", base, Shown(args[i+1])))
					r.fed(fmt.Sprintf("%s reads its program from %s", base, Shown(args[i+1])))
				}
				i++
			}
			have = true
		case a == "-e" || a == "--source":
			if i+1 < len(args) {
				program += "\n" + args[i+1]
				i++
			}
			have = true
		case a == "-l" || a == "--load" || strings.HasPrefix(a, "-l"):
			r.unknown(fmt.Sprintf("%s loads an extension (%s)", base, Shown(a)))
			have = true
		case a == "-F" || a == "-v" || a == "--assign" || a == "--field-separator":
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			if !have {
				program += "\n" + a
				have = true
			}
		}
	}
	if hasMarker(program) {
		r.unknown(fmt.Sprintf("%s's program is built at run time", base))
	}
	if strings.Contains(program, "system") || strings.Contains(program, "|") || strings.Contains(program, "@") {
		r.unknown(fmt.Sprintf("%s's program starts commands (system, a pipe or an extension), which cannot be read", base))
		if ctx.stream {
			r.fed(fmt.Sprintf("%s runs commands and reads its input", base))
		}
	}
	if program != "" {
		r.codeStrings(base, program, ctx)
	}
}

// sed runs commands through GNU sed's e command and the e flag of s///.
func (r *reader) sed(args []string, ctx callContext) {
	var scripts []string
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			script = true
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			script = true
		case a == "-f" || a == "--file":
			i++
			script = true
		case strings.HasPrefix(a, "-"):
		default:
			if !script {
				scripts = append(scripts, a)
				script = true
			}
		}
	}
	for _, s := range scripts {
		if sedRunsCommands(s) {
			r.unknown("sed's script runs commands (the e command or the e flag of s)")
			r.codeStrings("sed", "'"+s+"'", ctx)
			return
		}
	}
}

// sedRunsCommands reads a sed script just enough to find its e commands
// and s///e: the pattern and replacement of s and y are skipped, text
// arguments (a, i, c, r, w, labels) too, and each command letter is looked
// at.
func sedRunsCommands(s string) bool {
	skipDelimited := func(i int) int { // s[i] is the delimiter; skip two more
		delim, seen, j := s[i], 0, i+1
		for ; j < len(s) && seen < 2; j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == delim {
				seen++
			}
		}
		return j
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 's' && i+1 < len(s):
			j := skipDelimited(i + 1)
			for ; j < len(s) && strings.IndexByte("gpiImMe0123456789", s[j]) >= 0; j++ {
				if s[j] == 'e' {
					return true
				}
			}
			i = j - 1
		case c == 'y' && i+1 < len(s):
			i = skipDelimited(i+1) - 1
		case c == '/':
			j := i + 1
			for ; j < len(s) && s[j] != '/'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			i = j
		case strings.IndexByte("aicrwRW#:", c) >= 0: // text or a file name up to the end of the line
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.IndexByte("btT", c) >= 0: // a label up to ; or the end of the line
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case c == 'e':
			return true
		}
	}
	return false
}
