package shell

// The named checks of a command line (a policy rule's command_checks): each
// looks at every simple command of a reading (command.go) for one class of
// harm, whatever the spelling, and notes what a reading cannot know.

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checks names the checks a rule may use, with what each finds.
var checks = map[string]string{
	"privilege-escalation":     "runs a command as another user (sudo, su, doas, pkexec, run0), in any position",
	"delete-outside-workspace": "deletes or changes files outside the workspace (rm, chmod, chown, mv, shred, truncate, find -delete …): /, ~, $HOME, a path outside, or a relative path after cd outside",
	"download-to-interpreter":  "feeds a download (curl, wget, nc, /dev/tcp …) to a shell or interpreter: a pipe, <(…), >(…), $(…), a variable",
	"fork-bomb":                "defines a function that starts itself without waiting, or loops forever starting background commands",
	"device-write":             "writes to a disk or device (> /dev/sda, dd of=/dev/…, tee /dev/…), or makes a device node",
	"disk-format":              "formats or partitions a disk (mkfs, mkswap, wipefs, fdisk, parted …)",
	"power-off":                "shuts down or restarts the machine",
}

// Checks names the checks a policy rule may use (its command_checks), each
// with what it finds.
func Checks() map[string]string { return maps.Clone(checks) }

// privilegeWords are the names privilegeIn looks for.
var privilegeWords = []string{"sudo", "doas", "pkexec", "run0"}

// privilegeIn finds sudo, doas, pkexec or run0 in s as a word of its own:
// not inside a longer name (pseudo, sudoers, sudo.conf, sudo-rs is
// sudo-rs). It returns the name, or "". A scan, not a regular expression:
// it runs on every word and on whole interpreter programs.
func privilegeIn(s string) string {
	isNamePart := func(c byte) bool {
		return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for _, name := range privilegeWords {
		for from := 0; ; {
			i := strings.Index(s[from:], name)
			if i < 0 {
				break
			}
			i += from
			end := i + len(name)
			if (i == 0 || !isNamePart(s[i-1])) && (end == len(s) || !isNamePart(s[end])) {
				return name
			}
			from = i + 1
		}
	}
	return ""
}

// callContext is where a simple command stands.
type callContext struct {
	source string
	depth  int
	stream bool  // its standard input is a stream that may carry code
	stdin  stdin // what its redirections give it as standard input
}

var (
	privilegeName = []string{"sudo", "doas", "pkexec", "run0", "su", "runuser", "ksu", "sg"}
	fetchers      = []string{"curl", "wget", "wget2", "nc", "ncat", "netcat", "socat", "telnet", "fetch", "aria2c", "axel",
		"http", "https", "xh", "curlie", "lwp-request", "GET", "POST", "HEAD", "lynx", "links", "w3m", "elinks",
		"ftp", "tftp", "sftp", "scp", "ssh", "rsync", "openssl", "gnutls-cli"}
	shellNames = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "posh", "rbash", "ksh93", "oksh", "loksh"}
	diskTools  = []string{"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard",
		"mkdosfs", "mkntfs", "zpool", "pvcreate", "vgcreate", "lvremove", "cryptsetup", "mdadm", "badblocks"}
	powerNames = []string{"shutdown", "reboot", "halt", "poweroff"}
	// changers change or remove the files named in their arguments.
	changers = []string{"rm", "rmdir", "unlink", "shred", "srm", "wipe", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"truncate", "mv", "find", "rsync"}
	safeDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/full", "/dev/random", "/dev/urandom"}
	awks        = []string{"awk", "gawk", "mawk", "nawk"}
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

// check looks at one command (words[0] and its arguments).
func (r *reader) check(words []string, ctx callContext) {
	name := words[0]
	base := path.Base(name)
	args := words[1:]
	whole := Shown(strings.Join(words, " "))
	if name != "[" && name != "[[" && (strings.ContainsAny(name, "*?") || (strings.Contains(name, "[") && strings.Contains(name, "]"))) {
		r.unknown(fmt.Sprintf("the command name %s is a pattern, matched against file names only when the command runs", Shown(name)))
	}
	if hasMarker(name) || (strings.ContainsRune(name, '{') && strings.ContainsRune(name, '}')) {
		r.unknown(fmt.Sprintf("the command name %s is only known when the command runs", Shown(name)))
		if ctx.stream { // curl x | "$SHELL": any interpreter may be reading
			r.fed(fmt.Sprintf("%s, a command known only at run time, reads its input", Shown(name)))
		}
	}
	for _, w := range words {
		if privilegeIn(w) != "" {
			r.find("privilege-escalation", whole, ctx.source)
			break
		}
	}
	switch {
	case slices.Contains(privilegeName, base):
		r.find("privilege-escalation", whole, ctx.source)
	case slices.Contains(powerNames, base) ||
		((base == "systemctl" || base == "loginctl") && slices.ContainsFunc(args, func(a string) bool {
			return slices.Contains([]string{"poweroff", "reboot", "halt", "kexec", "soft-reboot"}, a)
		})) ||
		((base == "init" || base == "telinit") && len(args) > 0 && (args[0] == "0" || args[0] == "6")):
		r.find("power-off", whole, ctx.source)
	case strings.HasPrefix(base, "mkfs") || slices.Contains(diskTools, base):
		r.find("disk-format", whole, ctx.source)
	case base == "mknod":
		if slices.ContainsFunc(args, func(a string) bool { return a == "b" || a == "c" || a == "u" }) {
			r.find("device-write", whole+" (makes a device node)", ctx.source)
		}
	}
	r.deviceArgs(base, words, whole, ctx)
	if base == "tee" {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				r.wrote(a)
			}
		}
	}
	if slices.Contains(fetchers, base) {
		r.fetched(fmt.Sprintf("%s downloads (%s)", base, Shown(ctx.source)))
		r.downloadsTo(base, args)
	}
	if strings.Contains(name, "/") {
		r.runs(name) // ./install.sh
	}
	for _, w := range words {
		if strings.Contains(w, "/dev/tcp/") || strings.Contains(w, "/dev/udp/") {
			r.fetched(fmt.Sprintf("%s opens a network connection", Shown(w)))
		}
	}
	switch {
	case base == "cd" || base == "pushd" || base == "popd":
		r.changeDir(base, args)
	case slices.Contains(changers, base):
		r.changes(base, args, ctx)
	}
	r.runsCode(words, ctx)
}

// downloadsTo notes the files a download writes: curl -o FILE, wget -O
// FILE, and the name a URL ends in (curl -O, wget's default).
func (r *reader) downloadsTo(base string, args []string) {
	for i, a := range args {
		switch {
		case (a == "-o" || a == "-O" || a == "--output" || a == "--output-document") && i+1 < len(args) &&
			(a != "-O" || base == "wget" || base == "wget2"):
			r.wrote(args[i+1])
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-document="):
			_, v, _ := strings.Cut(a, "=")
			r.wrote(v)
		case strings.Contains(a, "://"):
			u := a
			if j := strings.IndexAny(u, "?#"); j >= 0 {
				u = u[:j]
			}
			r.wrote(path.Base(u))
		}
	}
}

// wrote notes a file the command line writes; runs one it runs.
func (r *reader) wrote(f string) {
	if f != "" && !hasMarker(f) {
		r.written[path.Clean(f)] = true
	}
}

func (r *reader) runs(f string) {
	if f != "" && !hasMarker(f) {
		r.ran = append(r.ran, path.Clean(f))
	}
}

func (r *reader) fetched(what string) {
	if r.fetcher == "" {
		r.fetcher = what
	}
}

func (r *reader) fed(what string) {
	if r.feeds == "" {
		r.feeds = what
	}
}

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

// denialsIn reads text that may run as a command line (a string in
// interpreter code, a variable's value bash may evaluate) for what it
// would deny. Text that is no command line is passed over, and nothing in
// it counts as unknown: it may never run.
func (r *reader) denialsIn(text, source string, depth int) {
	if strings.TrimSpace(text) == "" || depth+1 > MaxNesting {
		return
	}
	file, text, err := r.parse(text)
	if err != nil {
		return
	}
	unknown := r.out.Unknown
	r.readFile(file, text, source, depth+1, false)
	r.out.Unknown = unknown
}

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

// redirect looks at one redirection: a write to a device, a network path.
func (r *reader) redirect(rd *syntax.Redirect, target, source string) {
	if strings.Contains(target, "/dev/tcp/") || strings.Contains(target, "/dev/udp/") {
		r.fetched(fmt.Sprintf("%s opens a network connection", Shown(target)))
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.DplOut:
		if rd.Op != syntax.DplOut {
			r.wrote(target)
		}
		if isDevice(target) {
			r.find("device-write", Shown(rd.Op.String()+" "+target), source)
		}
	}
}

// isDevice reports whether p names a device or kernel file through which a
// write changes the machine: /dev (but /dev/null and the like), /sys,
// /proc/sysrq-trigger, /proc/sys.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	switch {
	case slices.Contains(safeDevices, p), strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/dev/shm/"),
		strings.HasPrefix(p, "/dev/tcp/"), strings.HasPrefix(p, "/dev/udp/"), strings.HasPrefix(p, "/dev/pts/"):
		return false
	}
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/sys/") || p == "/proc/sysrq-trigger" || strings.HasPrefix(p, "/proc/sys/")
}

// deviceWriters write to the files named in their arguments.
var deviceWriters = []string{"tee", "cp", "mv", "install", "shred", "truncate", "pv", "ddrescue", "sponge", "rsync"}

// deviceArgs finds device paths a command writes to through its
// arguments: dd of=…, tee, cp, mv, install, shred and the like.
func (r *reader) deviceArgs(base string, words []string, whole string, ctx callContext) {
	if base != "dd" && !slices.Contains(deviceWriters, base) {
		return
	}
	for _, a := range words[1:] {
		target := a
		if base == "dd" {
			v, ok := strings.CutPrefix(a, "of=")
			if !ok {
				continue
			}
			target = v
		}
		if isDevice(cleanWord(target, true)) {
			r.find("device-write", whole, ctx.source)
			return
		}
	}
}

// changeDir follows cd, pushd and popd: where later relative paths point.
func (r *reader) changeDir(base string, args []string) {
	var dir string
	for _, a := range args {
		if a == "--" || (strings.HasPrefix(a, "-") && a != "-") {
			continue
		}
		dir = a
		break
	}
	unknown := func() {
		if !r.cwd.outside {
			r.cwd = cwdState{unknown: true, why: Shown(strings.TrimSpace(base + " " + dir))}
		}
	}
	switch {
	case dir == "" && base != "cd", base == "popd", dir == "-":
		unknown()
	case dir == "" || isHome(dir):
		r.cwd = cwdState{outside: true, why: Shown(strings.TrimSpace(base + " " + dir))}
	case hasMarker(dir) && !strings.HasPrefix(dir, "/"):
		unknown()
	default:
		rel, outside, unknownDir := r.resolve(dir)
		switch {
		case unknownDir:
			unknown()
		case outside:
			r.cwd = cwdState{outside: true, why: base + " " + Shown(dir)}
		case !r.cwd.outside && !r.cwd.unknown:
			r.cwd.rel = rel
		}
	}
}

// isHome reports whether a rendered path starts at a home folder: ~,
// ~user, $HOME.
func isHome(p string) bool {
	return strings.HasPrefix(p, "~") || p == mark+"$HOME" || strings.HasPrefix(p, mark+"$HOME/")
}

// resolve places a path argument: its form relative to the workspace when
// it stays inside, or outside, or unknown (a relative path after a cd to a
// folder only known at run time).
func (r *reader) resolve(p string) (rel string, outside, unknown bool) {
	p = cleanWord(p, true)
	if !strings.HasPrefix(p, "/") {
		if r.cwd.outside {
			return "", true, false
		}
		if r.cwd.unknown {
			return "", false, true
		}
		p = path.Join(r.cwd.rel, p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", true, false
		}
	}
	// A pattern is checked as the folder it lists: /* is /, x/* is x.
	check := p
	if i := strings.IndexAny(check, "*?["); i >= 0 {
		check = path.Dir(check[:i] + "x")
	}
	if r.ws == nil {
		return p, strings.HasPrefix(check, "/"), false
	}
	if r.budget.paths--; r.budget.paths < 0 {
		r.tooLarge = fmt.Sprintf("it names more than %d paths to check", maxPathChecks)
		return "", false, true
	}
	if !r.ws.Inside(check) {
		return "", true, false
	}
	return p, false, false
}

// changes looks at a command that changes or removes the files it names: a
// target outside the workspace is denied, and a relative one after a cd to
// a folder only known at run time needs a person.
func (r *reader) changes(base string, args []string, ctx callContext) {
	skip := 0
	switch base {
	case "chmod", "chown", "chgrp", "setfacl", "chattr":
		skip = 1 // the mode, owner or group
	case "find":
		if !slices.ContainsFunc(args, func(a string) bool {
			return a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok")
		}) {
			return
		}
	case "rsync":
		if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--delete") || a == "--remove-source-files" }) {
			return
		}
	}
	var targets []string
	options := true
	for _, a := range args {
		if base == "find" && (strings.HasPrefix(a, "-") || a == "(" || a == "!") {
			break // the expression starts
		}
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "-") && len(a) > 1:
			if base == "chmod" && skip > 0 && strings.Trim(a[1:], "rwxXstugo") == "" {
				skip-- // chmod -w FILE: the mode
			}
		case skip > 0:
			skip--
		default:
			targets = append(targets, a)
		}
	}
	for _, t := range targets {
		var why string
		switch {
		case isHome(t):
			why = "a home folder"
		case strings.HasPrefix(t, mark):
			i := strings.Index(t, "/")
			if i < 0 && strings.Contains(t, mark+"$(") {
				// rm -rf $(cat list): which files go is another
				// command's output, known only when the command runs.
				r.unknown(fmt.Sprintf("%s changes %s, a name known only when the command runs", base, Shown(t)))
				continue
			}
			if i < 0 {
				// rm -f "$f": commands start with an allow-listed
				// environment, so a variable the line does not set
				// names nothing outside (and $HOME was caught above).
				continue
			}
			why = fmt.Sprintf("the root folder when %s is empty", unmarked(t[:i]))
		default:
			_, outside, unknown := r.resolve(t)
			switch {
			case r.tooLarge != "":
				return
			case unknown:
				r.unknown(fmt.Sprintf("%s changes %s after %s, in a folder known only when the command runs", base, Shown(t), r.cwd.why))
				continue
			case outside && r.cwd.outside && !strings.HasPrefix(cleanWord(t, true), "/"):
				why = "outside the workspace, after " + r.cwd.why
			case outside:
				why = "outside the workspace"
			default:
				continue
			}
		}
		r.find("delete-outside-workspace", fmt.Sprintf("%s: %s is %s", base, Shown(t), why), ctx.source)
	}
}

// function notes what a function definition calls and whether it starts
// processes it does not wait for.
func (r *reader) function(fn *syntax.FuncDecl) {
	if fn.Name == nil {
		return
	}
	info := &funcInfo{}
	syntax.Walk(fn.Body, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.Stmt:
			if n.Background || n.Coprocess {
				info.spawns = true
			}
		case *syntax.BinaryCmd:
			if isPipe(n) {
				info.spawns = true
			}
		case *syntax.ProcSubst:
			info.spawns = true
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if name, ok := r.literal(n.Args[0]); ok {
					info.calls = append(info.calls, name)
				}
			}
		}
		return true
	})
	r.funcs[fn.Name.Value] = info
}

// findForkBombs finds functions that call themselves (directly or through
// others) and start processes they do not wait for: :(){ :|:& };: in any
// spelling.
func (r *reader) findForkBombs() {
	for _, name := range slices.Sorted(maps.Keys(r.funcs)) {
		info := r.funcs[name]
		if !info.spawns {
			continue
		}
		seen := map[string]bool{}
		queue := slices.Clone(info.calls)
		for len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			if c == name {
				r.find("fork-bomb", fmt.Sprintf("the function %s starts itself without waiting", Shown(name)), name+"()")
				break
			}
			if f, ok := r.funcs[c]; ok && !seen[c] {
				seen[c] = true
				queue = append(queue, f.calls...)
			}
		}
	}
}

// endlessLoop finds a loop that never ends and starts commands in the
// background: while true; do x & done, for ((;;)); do x & done.
func (r *reader) endlessLoop(loop syntax.Command, source string) {
	var body []*syntax.Stmt
	switch w := loop.(type) {
	case *syntax.WhileClause:
		if len(w.Cond) != 1 {
			return
		}
		call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return
		}
		cond, _ := r.literal(call.Args[0])
		if !(!w.Until && (cond == "true" || cond == ":")) && !(w.Until && cond == "false") {
			return
		}
		body = w.Do
	case *syntax.ForClause:
		c, ok := w.Loop.(*syntax.CStyleLoop)
		if !ok || c.Cond != nil {
			return
		}
		body = w.Do
	default:
		return
	}
	background, stops := false, false
	for _, st := range body {
		syntax.Walk(st, func(node syntax.Node) bool {
			switch n := node.(type) {
			case *syntax.Stmt:
				background = background || n.Background
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					if name, ok := r.literal(n.Args[0]); ok && (name == "break" || name == "exit" || name == "return") {
						stops = true
					}
				}
			}
			return true
		})
	}
	if background && !stops {
		r.find("fork-bomb", "a loop that never ends starts commands in the background", source)
	}
}
