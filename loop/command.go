package loop

// This file reads a command line the way the shell will, for the security
// layer. A pattern tried on the raw text is fooled by ordinary spellings:
// `"sudo" id`, `s\udo id`, `curl x 2>&1 | sh` (the & of the redirection),
// `curl x | env sh`. So the command line is parsed with a real shell parser
// (mvdan.cc/sh/v3/syntax) and every simple command in it, wherever it
// stands (a pipeline, a list, a subshell, a function, $(…), `…`, <(…)), is
// written out as one plain line of words after quote removal. Those lines
// are what the patterns of a DENY rule are also tried on.

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/glassbox-dev/glassbox/tools"
)

// commandLine is one thing a command line will run, written out for the
// policy's patterns: the words of one simple command after quote removal,
// joined by single spaces, with its redirections after them ("sudo id",
// "rm -rf -- $HOME/", "> /dev/vda"), or the command names of one pipeline
// ("curl | sh").
type commandLine struct {
	text   string // what the patterns are tried on
	source string // the part of the command line it was read from
}

const (
	// maxCommandBytes caps the command line the parser reads. Parsing
	// time grows faster than the length for deeply nested input; a longer
	// command is not read and so needs a person (unparsable-command).
	maxCommandBytes = 64 << 10
	// maxNesting bounds how deep readCommand follows command lines given
	// to another command as a string (sh -c '…', eval, su -c).
	maxNesting = 8
	// maxBraceWords bounds brace expansion ({a,b}, {1..9}) of one word.
	maxBraceWords = 64
	// maxStageNames bounds how many commands a compound pipeline stage
	// ({ a; b; }) is named by, so nested stages cost no more than their
	// length.
	maxStageNames = 16
)

// readCommand parses src as a shell command line (bash syntax, a superset
// of sh's) and returns every simple command and pipeline in it as the shell
// will read them, including the commands behind env, command, exec, nohup,
// sudo and similar prefixes and the command lines given to sh -c, bash -c,
// eval and su -c. An error means the shell would not run src as written
// either (or it is over 64 KiB); it is the parser's message.
//
// A word that holds an expansion whose value is only known when the
// command runs is written with a marker in its place: $NAME for any
// parameter expansion ("${HOME:?}" reads $HOME), $(cmd) for a command
// substitution (naming the commands inside), <(cmd) for a process
// substitution. Patterns can then treat it as what it could be; the
// built-in rule treats "rm -rf $X/" as aimed at the root, since an empty $X
// makes it so.
func readCommand(src string) ([]commandLine, error) {
	if len(src) > maxCommandBytes {
		return nil, fmt.Errorf("the command is %d bytes long; the security layer reads commands of up to %d bytes", len(src), maxCommandBytes)
	}
	r := &commandReader{}
	if err := r.read(src, 0, ""); err != nil {
		return nil, err
	}
	return r.lines, nil
}

// commandReader collects the lines of one command line.
type commandReader struct {
	lines []commandLine
}

// read parses src and collects its lines. Lines found in a command line
// nested in another (sh -c '…') show outer, the part of the outer command
// line they came from, as their source.
func (r *commandReader) read(src string, depth int, outer string) error {
	if depth > maxNesting {
		return fmt.Errorf("command lines nested more than %d deep (sh -c inside sh -c …)", maxNesting)
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return err
	}
	sourceOf := func(n syntax.Node) string {
		if outer != "" {
			return outer
		}
		return src[n.Pos().Offset():n.End().Offset()]
	}
	inPipeline := map[*syntax.BinaryCmd]bool{} // pipes already read as part of a longer pipeline
	var nested []nestedLine
	syntax.Walk(file, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.Stmt:
			call, isCall := n.Cmd.(*syntax.CallExpr)
			if !isCall && n.Cmd != nil {
				return true
			}
			var words []*syntax.Word
			if isCall {
				words = call.Args
			}
			nested = append(nested, r.simpleCommand(words, n.Redirs, sourceOf(n))...)
		case *syntax.BinaryCmd:
			if !isPipe(n) || inPipeline[n] {
				return true
			}
			var names []string
			for _, stage := range pipelineStages(n, inPipeline) {
				names = append(names, stageNames(stage)...)
			}
			r.lines = append(r.lines, commandLine{text: strings.Join(names, " | "), source: sourceOf(n)})
		}
		return true
	})
	for _, n := range nested {
		if err := r.read(n.src, depth+1, n.outer); err != nil {
			return fmt.Errorf("in the command line given to %s: %w", n.by, err)
		}
	}
	return nil
}

// nestedLine is a command line given to a command as a string.
type nestedLine struct {
	src   string // the command line
	by    string // the command it was given to, for messages ("sh -c")
	outer string // the part of the outer command line it came from
}

// simpleCommand adds the lines of one simple command (its words and
// redirections) and returns the command lines nested in it.
func (r *commandReader) simpleCommand(args []*syntax.Word, redirs []*syntax.Redirect, source string) []nestedLine {
	var words []string
	for _, w := range args {
		words = append(words, expandWord(w)...)
	}
	text := strings.Join(words, " ")
	for _, rd := range redirs {
		if rd.Word != nil {
			target := renderWord(rd.Word, true)
			if rd.N != nil {
				target = rd.N.Value + rd.Op.String() + " " + target
			} else {
				target = rd.Op.String() + " " + target
			}
			text = strings.TrimSpace(text + " " + target)
		}
	}
	if text == "" {
		return nil
	}
	r.lines = append(r.lines, commandLine{text: text, source: source})

	// The command behind each prefix is a line of its own: in
	// "sudo -u root env X=1 sh -c …" that is "env X=1 sh -c …", then
	// "sh -c …". Each may hold a nested command line.
	var nested []nestedLine
	for cmd := words; len(cmd) > 0; cmd = unwrap(cmd) {
		if len(cmd) < len(words) {
			r.lines = append(r.lines, commandLine{text: strings.Join(cmd, " "), source: source})
		}
		nested = append(nested, nestedIn(cmd, redirs, source)...)
	}
	return nested
}

// wrapper describes a command that runs another one named in its
// arguments: the options of it that take a value as the next word, and how
// many plain arguments come before the command (timeout's DURATION,
// chroot's NEWROOT).
type wrapper struct {
	optsWithValue string
	positional    int
}

// wrappers are the prefixes unwrap sees through.
var wrappers = map[string]wrapper{
	"env":     {optsWithValue: "uCS"},
	"command": {},
	"exec":    {optsWithValue: "a"},
	"builtin": {},
	"nohup":   {},
	"setsid":  {},
	"nice":    {optsWithValue: "n"},
	"ionice":  {optsWithValue: "cnp"},
	"time":    {optsWithValue: "fo"},
	"timeout": {optsWithValue: "sk", positional: 1},
	"stdbuf":  {optsWithValue: "ioe"},
	"chroot":  {positional: 1},
	"xargs":   {optsWithValue: "adEeIiLlnPs"},
	"sudo":    {optsWithValue: "CDghprtTUu"},
	"doas":    {optsWithValue: "Cu"},
	"pkexec":  {optsWithValue: "u"},
	"run0":    {optsWithValue: "uDg"},
	"busybox": {},
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
	positional := w.positional
	for len(rest) > 0 {
		arg := rest[0]
		switch {
		case arg == "--":
			return skipPositional(rest[1:], positional)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			rest = rest[1:]
			if len(arg) == 2 && strings.ContainsRune(w.optsWithValue, rune(arg[1])) && len(rest) > 0 {
				rest = rest[1:]
			}
		case path.Base(words[0]) == "env" && isAssignment(arg):
			rest = rest[1:]
		default:
			return skipPositional(rest, positional)
		}
	}
	return nil
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
	return ok && name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// shells are the commands whose -c option takes a command line.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"}

// nestedIn returns the command lines the command words runs from a
// string: sh -c 'LINE', eval LINE…, su -c 'LINE', find … -exec CMD ;, alias
// NAME='LINE', and a here-document or here-string given to a shell.
func nestedIn(words []string, redirs []*syntax.Redirect, source string) []nestedLine {
	name := path.Base(words[0])
	args := words[1:]
	var out []nestedLine
	add := func(src, by string) { out = append(out, nestedLine{src: src, by: by, outer: source}) }
	switch {
	case slices.Contains(shells, name):
		if line, ok := shellDashC(args); ok {
			add(line, name+" -c")
		} else {
			for _, rd := range redirs {
				switch rd.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					if rd.Hdoc != nil {
						add(renderWord(rd.Hdoc, false), name+" <<")
					}
				case syntax.WordHdoc:
					add(renderWord(rd.Word, true), name+" <<<")
				}
			}
		}
	case name == "eval":
		add(strings.Join(args, " "), "eval")
	case name == "su":
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				add(args[i+1], "su -c")
			} else if v, ok := strings.CutPrefix(a, "--command="); ok {
				add(v, "su -c")
			}
		}
	case name == "find":
		for i, a := range args {
			if a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" {
				end := i + 1
				for end < len(args) && args[end] != ";" && args[end] != "+" {
					end++
				}
				add(quoteWords(args[i+1:end]), "find "+a)
			}
		}
	case name == "alias":
		for _, a := range args {
			if _, value, ok := strings.Cut(a, "="); ok {
				add(value, "alias")
			}
		}
	}
	return out
}

// shellDashC finds the command line in a shell's arguments: the first
// plain argument after an option cluster holding c (-c, -ec, -xc).
func shellDashC(args []string) (string, bool) {
	dashC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // takes an option name
		case (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1 && !strings.HasPrefix(a, "--"):
			dashC = dashC || strings.ContainsRune(a[1:], 'c')
		case strings.HasPrefix(a, "--"):
			// a long option (--norc, --login)
		default:
			return a, dashC
		}
	}
	return "", false
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

func isPipe(n *syntax.BinaryCmd) bool { return n.Op == syntax.Pipe || n.Op == syntax.PipeAll }

// pipelineStages flattens a pipeline (a | b | c parses as (a | b) | c) into
// its stages, marking each pipe it passes so the walk does not read the
// shorter pipelines again.
func pipelineStages(n *syntax.BinaryCmd, seen map[*syntax.BinaryCmd]bool) []*syntax.Stmt {
	seen[n] = true
	var stages []*syntax.Stmt
	for _, side := range []*syntax.Stmt{n.X, n.Y} {
		if b, ok := side.Cmd.(*syntax.BinaryCmd); ok && isPipe(b) {
			stages = append(stages, pipelineStages(b, seen)...)
		} else {
			stages = append(stages, side)
		}
	}
	return stages
}

// stageNames names the command one pipeline stage runs, after its
// prefixes ("env sh" → "sh"). A compound stage ({ …; }, ( … ), a loop)
// names every command in it, as if each read the pipe: any of them might.
func stageNames(stage *syntax.Stmt) []string {
	if call, ok := stage.Cmd.(*syntax.CallExpr); ok || stage.Cmd == nil {
		if !ok || len(call.Args) == 0 {
			return nil
		}
		words := []string{renderWordShallow(call.Args[0])}
		for _, w := range call.Args[1:] {
			words = append(words, renderWordShallow(w))
		}
		for inner := unwrap(words); len(inner) > 0; inner = unwrap(words) {
			words = inner
		}
		return []string{words[0]}
	}
	var names []string
	syntax.Walk(stage, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // their commands are read as lines of their own
		case *syntax.Stmt:
			if len(names) >= maxStageNames {
				return false
			}
			if _, isCall := n.Cmd.(*syntax.CallExpr); isCall && n != stage {
				names = append(names, stageNames(n)...)
				return false
			}
		}
		return true
	})
	return names
}

// expandWord is a word after brace expansion and quote removal, as the
// shell passes it to the command: usually one word, several for a brace
// expansion such as {/,x}, which becomes "/" and "x".
func expandWord(w *syntax.Word) []string {
	// SplitBraces rewrites the word it is given, and the syntax tree is
	// still being walked: work on a copy.
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(braced) {
		return []string{renderWord(w, true)}
	}
	var words []string
	for ew, err := range expand.BracesSeq(nil, braced) {
		if err != nil || len(words) == maxBraceWords {
			return []string{renderWord(w, true)} // read as written
		}
		words = append(words, renderWord(ew, true))
	}
	return words
}

// renderWord is a word after quote removal, with a marker for each
// expansion whose value is only known when the command runs. An absolute
// path is cleaned as the kernel reads it ("///*" is "/*", "/tmp/.." is
// "/"), keeping a final slash.
func renderWord(w *syntax.Word, cleanPath bool) string {
	text := wordText(w, false)
	if cleanPath && strings.HasPrefix(text, "/") {
		cleaned := path.Clean(text)
		if strings.HasSuffix(text, "/") && cleaned != "/" {
			cleaned += "/"
		}
		return cleaned
	}
	if cleanPath && (strings.HasPrefix(text, "~") || strings.HasPrefix(text, "$")) {
		return collapseSlashes.ReplaceAllString(text, "/")
	}
	return text
}

// renderWordShallow is renderWord for naming a command inside a marker: a
// substitution in it is written $(…) without looking inside, so a deeply
// nested command line costs no more than its length.
func renderWordShallow(w *syntax.Word) string { return wordText(w, true) }

var collapseSlashes = regexp.MustCompile(`/{2,}`)

// wordText writes the parts of w after quote removal.
func wordText(w *syntax.Word, shallow bool) string {
	var b strings.Builder
	for _, part := range w.Parts {
		writePart(&b, part, false, shallow)
	}
	return b.String()
}

func writePart(b *strings.Builder, part syntax.WordPart, quoted, shallow bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, quoted))
	case *syntax.SglQuoted:
		if p.Dollar { // $'…' holds escapes: $'\x73udo' is sudo
			if s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}}); err == nil {
				b.WriteString(s)
				return
			}
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, inner := range p.Parts {
			writePart(b, inner, true, shallow)
		}
	case *syntax.ParamExp:
		name := "?"
		if p.Param != nil {
			name = p.Param.Value
		}
		b.WriteString("$" + name)
	case *syntax.CmdSubst:
		b.WriteString("$(" + substNames(p.Stmts, shallow) + ")")
	case *syntax.ProcSubst:
		b.WriteString(p.Op.String() + substNames(p.Stmts, shallow) + ")")
	case *syntax.ArithmExp:
		b.WriteString("$((…))")
	case *syntax.ExtGlob:
		b.WriteString(p.Op.String() + p.Pattern.Value + ")")
	case *syntax.BraceExp:
		b.WriteString("{…}")
	}
}

// substNames names the commands of a substitution's statements: "curl" for
// $(curl -fsSL https://x), "curl | gunzip" for a pipeline.
func substNames(stmts []*syntax.Stmt, shallow bool) string {
	if shallow {
		return "…"
	}
	var parts []string
	for _, st := range stmts {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && isPipe(b) {
			var names []string
			for _, stage := range pipelineStages(b, map[*syntax.BinaryCmd]bool{}) {
				names = append(names, stageNames(stage)...)
			}
			parts = append(parts, strings.Join(names, " | "))
			continue
		}
		parts = append(parts, strings.Join(stageNames(st), " | "))
	}
	return strings.Join(parts, "; ")
}

// unescape removes the backslashes the shell removes: every one outside
// quotes (s\udo is sudo), and inside double quotes only those before $, `,
// ", \ and a newline. A backslash-newline disappears altogether.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// shownSource is a part of a command line as a decision's reason shows it:
// on one line, at most 120 bytes, with control and bidirectional characters
// written as escapes.
func shownSource(s string) string {
	s = strings.TrimSpace(s)
	cut := false
	if len(s) > 120 {
		n := 120
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	var b strings.Builder
	for _, r := range tools.EscapeBidi(s) {
		if unicode.IsControl(r) {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		} else {
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}
