package shell

// awk and sed, which run commands only through a few of their features.

import (
	"fmt"
	"strings"
)

// awkOption is what an awk option says about the program.
type awkOption int

const (
	awkFile      awkOption = iota + 1 // the program is in the next word's file
	awkText                           // the next word is (more) program text
	awkExtension                      // loads an extension, which runs what it likes
	awkValue                          // takes the next word as its value
)

// awkOptions are awk's options that matter to where its program is
// (gawk's long ones included); -l and -lNAME load an extension.
var awkOptions = map[string]awkOption{
	"-f": awkFile, "--file": awkFile, "-i": awkFile, "--include": awkFile,
	"-e": awkText, "--source": awkText,
	"--load": awkExtension,
	"-F":     awkValue, "-v": awkValue, "--assign": awkValue, "--field-separator": awkValue,
}

// awk runs commands only through system(), a pipe to or from a command
// ("cmd" | getline, print | "cmd") and extensions (@load, -l): a program
// without them runs none.
func (r *reader) awk(c call) {
	program := r.awkProgram(c)
	if hasMarker(program) {
		r.unknown(fmt.Sprintf("%s's program is built at run time", c.base))
	}
	if strings.Contains(program, "system") || strings.Contains(program, "|") || strings.Contains(program, "@") {
		r.unknown(fmt.Sprintf("%s's program starts commands (system, a pipe or an extension), which cannot be read", c.base))
		if c.stream {
			r.fed(fmt.Sprintf("%s runs commands and reads its input", c.base))
		}
	}
	if program != "" {
		r.codeStrings(c.base, program, c.callContext)
	}
}

// awkProgram reads awk's arguments for its program text (the first
// operand, or every -e), noting as it goes a program file read from a
// stream and an extension loaded.
func (r *reader) awkProgram(c call) string {
	args := c.args()
	var program string
	have := false // a program was given, as text or as a file
	for i := 0; i < len(args); i++ {
		a := args[i]
		opt := awkOptions[a]
		if strings.HasPrefix(a, "-l") {
			opt = awkExtension
		}
		switch {
		case opt == awkFile:
			if i+1 < len(args) {
				r.programIn(c.base, args[i+1])
				r.runs(args[i+1])
				i++
			}
			have = true
		case opt == awkText:
			if i+1 < len(args) {
				program += "\n" + args[i+1]
				i++
			}
			have = true
		case opt == awkExtension:
			r.unknown(fmt.Sprintf("%s loads an extension (%s)", c.base, Shown(a)))
			have = true
		case opt == awkValue:
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
		case !have:
			program += "\n" + a
			have = true
		}
	}
	return program
}

// programIn notes the file a program (base's) is read from, when it is a
// stream or a name only known at run time: what runs cannot be read, and
// may be a download.
func (r *reader) programIn(base, file string) {
	if streamPath(file) || hasMarker(file) {
		r.unknown(fmt.Sprintf("%s runs the program in %s, known only when it runs", base, Shown(file)))
		r.fed(fmt.Sprintf("%s reads its program from %s", base, Shown(file)))
	}
}

// sed runs commands through GNU sed's e command and the e flag of s///;
// a script file (-f) is a program it runs.
func (r *reader) sed(c call) {
	s := sedArgs(c.args())
	for _, f := range s.files {
		r.programIn("sed", f)
		r.runs(f)
	}
	for _, script := range s.scripts {
		if sedRunsCommands(script) {
			r.unknown("sed's script runs commands (the e command or the e flag of s)")
			r.codeStrings("sed", "'"+script+"'", c.callContext)
			return
		}
	}
}

// sedParts are sed's arguments as it reads them.
type sedParts struct {
	scripts []string // every -e, or else the first operand
	files   []string // its script files (-f)
	inputs  []string // the files it reads, after the script
	inPlace bool     // -i, --in-place: it rewrites its inputs
}

// sedArgs reads sed's arguments.
func sedArgs(args []string) sedParts {
	var s sedParts
	given := false // a script was given by an option, so no operand is one
	for i := 0; i < len(args); i++ {
		a := args[i]
		kind, value, next := sedOption(a)
		if next && i+1 == len(args) {
			given = given || kind != 0
			continue
		}
		if next {
			i++
			value = args[i]
		}
		switch {
		case kind == 'e':
			s.scripts, given = append(s.scripts, value), true
		case kind == 'f':
			s.files, given = append(s.files, value), true
		case kind == 'i':
			s.inPlace = true
		case strings.HasPrefix(a, "-") && a != "-":
		case !given:
			s.scripts, given = append(s.scripts, a), true
		default:
			s.inputs = append(s.inputs, a)
		}
	}
	return s
}

// sedOption reads one argument of sed as getopt does: 'e' for a script,
// 'f' for a script file, 'i' for in place (its suffix as the value), 0 for
// anything else; the value it holds, or next when its value is the next
// word. In a cluster, -l takes a value and -i a suffix (-ie is -i with the
// suffix e).
func sedOption(a string) (kind byte, value string, next bool) {
	switch {
	case a == "--expression":
		return 'e', "", true
	case a == "--file":
		return 'f', "", true
	case a == "--line-length":
		return 0, "", true
	case strings.HasPrefix(a, "--expression="):
		return 'e', strings.TrimPrefix(a, "--expression="), false
	case strings.HasPrefix(a, "--file="):
		return 'f', strings.TrimPrefix(a, "--file="), false
	case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
		return 'i', "", false
	case strings.HasPrefix(a, "--") || !strings.HasPrefix(a, "-"):
		return 0, "", false
	}
	letter, value, next := clusterValue(a, "efli")
	switch letter {
	case 'e', 'f':
		return letter, value, next
	case 'l':
		return 0, "", next
	case 'i': // the suffix is never the next word
		return 'i', value, false
	}
	return 0, "", false
}

// sedRunsCommands reads a sed script just enough to find its e commands
// and s///e: the pattern and replacement of s and y are skipped, text
// arguments (a, i, c, r, w, labels) too, and each command letter is looked
// at.
func sedRunsCommands(s string) bool {
	for i := 0; i < len(s); i++ {
		end, runs := sedCommand(s, i)
		if runs {
			return true
		}
		i = end
	}
	return false
}

// sedCommand reads the script at s[i]: it returns the last byte of what
// it read there (a command letter with its arguments, or one byte of an
// address) and whether that runs a command.
func sedCommand(s string, i int) (end int, runs bool) {
	switch c := s[i]; {
	case c == 's' && i+1 < len(s):
		return sedFlags(s, skipDelimited(s, i+1))
	case c == 'y' && i+1 < len(s):
		return skipDelimited(s, i+1) - 1, false
	case c == '/':
		return skipRegexp(s, i+1), false
	case strings.IndexByte("aicrwRW#", c) >= 0: // text or a file name up to the end of the line
		return skipUntil(s, i, "\n"), false
	case strings.IndexByte("btT:", c) >= 0: // a label up to ; or the end of the line (GNU sed: :a;N;ba)
		return skipUntil(s, i, "\n;"), false
	}
	return i, s[i] == 'e'
}

// skipDelimited skips what follows s[i], the delimiter of s or y, up to
// and past the two delimiters after it, and returns where that ends.
func skipDelimited(s string, i int) int {
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

// sedFlags reads the flags of s after its replacement, from s[j]: it
// returns the last flag and whether one is e.
func sedFlags(s string, j int) (int, bool) {
	for ; j < len(s) && strings.IndexByte("gpiImMe0123456789", s[j]) >= 0; j++ {
		if s[j] == 'e' {
			return j, true
		}
	}
	return j - 1, false
}

// skipRegexp skips a /regexp/ address from s[j], just after its first
// slash, and returns where its closing slash is (or the end).
func skipRegexp(s string, j int) int {
	for ; j < len(s) && s[j] != '/'; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	return j
}

// skipUntil returns where the first of stops is in s from i (or the end).
func skipUntil(s string, i int, stops string) int {
	for i < len(s) && strings.IndexByte(stops, s[i]) < 0 {
		i++
	}
	return i
}
