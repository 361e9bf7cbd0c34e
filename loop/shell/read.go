package shell

import (
	"errors"
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

// Line is one thing a command line will run, written out for a policy's
// patterns: the words of one simple command after quote removal, joined by
// single spaces, with its redirections after them ("sudo id", "rm -rf --
// $HOME/", "> /dev/vda"), or the command names of one pipeline ("curl |
// sh").
type Line struct {
	Text   string // what the patterns are tried on
	Source string // the part of the command line it was read from
}

const (
	// MaxCommandBytes caps the command line the parser reads. A longer
	// command is not read (Command.TooLarge).
	MaxCommandBytes = 64 << 10
	// MaxNesting bounds how deep a reading follows command lines given to
	// another command as a string (sh -c '…', eval, su -c).
	MaxNesting = 8
	// maxBraceWords bounds the words one brace expansion ({a,b}, {1..9})
	// may stand for. The count is worked out from the unexpanded word; a
	// word standing for more is never expanded and the command is too
	// large to read.
	maxBraceWords = 64
	// maxStageNames bounds how many commands a compound pipeline stage
	// ({ a; b; }) is named by, so nested stages cost no more than their
	// length.
	maxStageNames = 16
	// maxNodes bounds the syntax nodes one decision looks at, over both
	// readings and every nested command line.
	maxNodes = 60_000
	// maxDepth bounds how deeply parentheses and braces nest in the
	// command line, counted on its text before it is parsed: the parser's
	// cost grows with the square of the depth of $((((…)))).
	maxDepth = 128
	// maxAmpRedirects bounds the `&>` the POSIX reading splits (each split
	// parses the line again).
	maxAmpRedirects = 8
	// maxPathChecks bounds how many paths one decision resolves on disk.
	maxPathChecks = 256
)

// Dialect is a grammar a command line is read in.
type Dialect struct {
	Name string // as a reason names it
	lang syntax.LangVariant
}

var (
	posixDialect = Dialect{Name: "sh (POSIX, as dash reads it)", lang: syntax.LangPOSIX}
	bashDialect  = Dialect{Name: "bash", lang: syntax.LangBash}
)

// Finding is what a named check (Checks) found in a reading.
type Finding struct {
	Check  string // the check's name
	What   string // what it found, for a reason
	Source string // the part of the command line it was read from
}

// Reading is one dialect's reading of a command line.
type Reading struct {
	Dialect  Dialect
	Err      error // the parser's, when this dialect cannot read the line
	Lines    []Line
	Findings []Finding
	// Unknown says why what the command runs is only known when it runs
	// (a name built from a variable, code inside interpreter text); only a
	// person may approve it. Empty when the reading knows every command.
	Unknown []string
}

// Command is a command line and the shells' readings of it.
type Command struct {
	Text     string
	Readings []*Reading
	TooLarge string // why the command was not (fully) read: over a limit
}

// PathChecker tells whether a path argument stays inside the workspace
// (tools.Workspace implements it).
type PathChecker interface {
	Inside(path string) bool
}

// budget is what one decision may still spend, shared by its readings.
type budget struct {
	nodes, paths int
}

// Read reads src in every dialect a shell running it may use: the POSIX
// one (dash) and bash's. ws resolves paths (nil: any absolute path counts
// as outside the workspace).
func Read(src string, ws PathChecker) *Command {
	c := &Command{Text: src}
	if len(src) > MaxCommandBytes {
		c.TooLarge = fmt.Sprintf("the command is %d bytes long; the security layer reads commands of up to %d bytes", len(src), MaxCommandBytes)
		return c
	}
	if d := nesting(src); d > maxDepth {
		c.TooLarge = fmt.Sprintf("its parentheses and braces nest %d deep; the security layer reads up to %d", d, maxDepth)
		return c
	}
	b := &budget{nodes: maxNodes, paths: maxPathChecks}
	for _, d := range []Dialect{posixDialect, bashDialect} {
		r := &reader{d: d, ws: ws, budget: b, out: &Reading{Dialect: d}, vars: map[string]varValue{}, funcs: map[string]*funcInfo{}, written: map[string]bool{}}
		r.out.Err = r.readTop(src)
		if r.tooLarge != "" {
			c.TooLarge = r.tooLarge
			return c
		}
		c.Readings = append(c.Readings, r.out)
	}
	return c
}

// nesting is how deeply ( and { nest in src, quotes or not.
func nesting(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// Parsed is the readings whose grammar could read the command line.
func (c *Command) Parsed() []*Reading {
	var out []*Reading
	for _, r := range c.Readings {
		if r.Err == nil {
			out = append(out, r)
		}
	}
	return out
}

// Disagreement says how the two readings differ, or "" when they agree.
func (c *Command) Disagreement() string {
	ok := c.Parsed()
	if len(ok) == 0 {
		return ""
	}
	for _, r := range c.Readings {
		if r.Err != nil {
			return fmt.Sprintf("%s cannot read it (%v) while %s can", r.Dialect.Name, r.Err, ok[0].Dialect.Name)
		}
	}
	if len(ok) < 2 {
		return ""
	}
	a, b := ok[0], ok[1]
	for i := range max(len(a.Lines), len(b.Lines)) {
		var la, lb string
		if i < len(a.Lines) {
			la = a.Lines[i].Text
		}
		if i < len(b.Lines) {
			lb = b.Lines[i].Text
		}
		if la != lb {
			return fmt.Sprintf("%s reads %q where %s reads %q", a.Dialect.Name, Shown(orNothing(la)), b.Dialect.Name, Shown(orNothing(lb)))
		}
	}
	return ""
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// varValue is what a command line's own assignments tell about a variable:
// its one literal value, when every assignment gives the same literal.
type varValue struct {
	value  string // the literal, or (not known) the value as rendered, marks and all
	known  bool   // every assignment gives the same literal
	single bool   // every assignment gives the same value, literal or not
}

// funcInfo is what a function definition does: the commands it calls and
// whether its body starts processes it does not wait for (&, a pipeline).
type funcInfo struct {
	calls  []string
	spawns bool
}

// cwdState is where the commands of a command line run so far: the
// workspace (rel is the folder inside it, "" the root), outside it, or
// somewhere only known at run time.
type cwdState struct {
	outside, unknown bool
	rel              string
	why              string // the cd that left the workspace
}

// reader reads one command line (and those nested in it) in one dialect.
type reader struct {
	d        Dialect
	ws       PathChecker
	budget   *budget
	out      *Reading
	vars     map[string]varValue
	funcs    map[string]*funcInfo
	cwd      cwdState
	fetcher  string          // a network download seen, as its source
	feeds    string          // an interpreter reading code from a stream, as its source
	written  map[string]bool // files the command line writes (redirections, curl -o, wget)
	ran      []string        // files it runs as programs (sh x.sh, ./x.sh, source x)
	tooLarge string
}

// readTop reads the whole command line, then the checks that look at it
// as a whole (a download fed to an interpreter, a function that forks
// itself).
func (r *reader) readTop(src string) error {
	file, text, err := r.parse(src)
	if err != nil {
		// The shell runs the lines before the one it cannot read: they are
		// read for what they would do, though the reading as a whole fails.
		if prefix := linesBefore(text, err); prefix != "" {
			if f, p, perr := r.parse(prefix); perr == nil {
				r.readFile(f, p, "", 0, false)
				r.wholeLine(p)
			}
		}
		return err
	}
	r.readFile(file, text, "", 0, false)
	r.wholeLine(text)
	return nil
}

// linesBefore is src up to the start of the line err points at, or "".
func linesBefore(src string, err error) string {
	var line uint
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		line = pe.Pos.Line()
	case errors.As(err, &le):
		line = le.Pos.Line()
	}
	end := 0
	for ; line > 1; line-- {
		i := strings.IndexByte(src[end:], '\n')
		if i < 0 {
			return ""
		}
		end += i + 1
	}
	return src[:end]
}

// wholeLine runs the checks that look at a command line as a whole: a
// download fed to an interpreter, a file written and then run, a function
// that forks itself.
func (r *reader) wholeLine(src string) {
	if r.fetcher != "" && r.feeds != "" {
		r.find("download-to-interpreter", fmt.Sprintf("%s, and %s", r.fetcher, r.feeds), src)
	}
	for _, f := range r.ran {
		if !r.written[f] {
			continue
		}
		if r.fetcher != "" {
			r.find("download-to-interpreter", fmt.Sprintf("%s, and %s is written and then run", r.fetcher, Shown(f)), src)
		} else {
			r.unknown(fmt.Sprintf("%s is written by this command line and then run; what it runs cannot be read", Shown(f)))
		}
		break
	}
	r.findForkBombs()
}

// parse parses src in the reader's dialect. The POSIX parser refuses `&>`
// as a bash feature where dash reads `&` then `>`: the reading does as
// dash does.
//
// bash reads `$((…))` and `((…))` that are not arithmetic as a command
// substitution or command of a subshell, `$( (…))` and `( (…))`; its
// reading does the same when the arithmetic reading fails.
// It returns the text it parsed, which the syntax tree's positions refer
// to.
func (r *reader) parse(src string) (*syntax.File, string, error) {
	file, text, err := r.parseDash(src)
	if err != nil && r.d.lang == syntax.LangBash && strings.Contains(src, "((") {
		split := strings.ReplaceAll(src, "((", "( (")
		if f, err2 := syntax.NewParser(syntax.Variant(r.d.lang)).Parse(strings.NewReader(split), ""); err2 == nil {
			return f, split, nil
		}
	}
	return file, text, err
}

func (r *reader) parseDash(src string) (*syntax.File, string, error) {
	for range maxAmpRedirects + 1 {
		file, err := syntax.NewParser(syntax.Variant(r.d.lang)).Parse(strings.NewReader(src), "")
		var le syntax.LangError
		if err == nil || r.d.lang != syntax.LangPOSIX || !errors.As(err, &le) || !strings.HasPrefix(le.Feature, "`&>") {
			return file, src, err
		}
		at := int(le.Pos.Offset())
		if at+1 >= len(src) || src[at] != '&' {
			return file, src, err
		}
		src = src[:at+1] + " " + src[at+1:]
	}
	return nil, src, fmt.Errorf("more than %d `&>` in one command line", maxAmpRedirects)
}

// readFile walks one parsed command line. outer is the part of the
// top-level command line a nested one came from ("" at the top); stream
// says the command line's standard input is a stream that may carry code
// (it was piped into the shell that runs it).
func (r *reader) readFile(file *syntax.File, src, outer string, depth int, stream bool) {
	if r.prepass(file); r.tooLarge != "" {
		return
	}
	sourceOf := func(n syntax.Node) string {
		if outer != "" {
			return outer
		}
		start, end := int(n.Pos().Offset()), int(n.End().Offset())
		if start < 0 || end > len(src) || start > end {
			return src
		}
		return src[start:end]
	}
	inPipeline := map[*syntax.BinaryCmd]bool{} // pipes already read as part of a longer pipeline
	// stack holds the nodes above the one visited, and inStream whether
	// each reads a stream from another command (a later pipeline stage,
	// the commands of >(…)), so a statement's context costs nothing to find.
	var stack []syntax.Node
	var inStream []bool
	type simple struct {
		stmt   *syntax.Stmt
		call   *syntax.CallExpr
		source string
		stream bool
	}
	var simples []simple
	var code []simple // assignments whose value holds a command substitution
	syntax.Walk(file, func(node syntax.Node) bool {
		if node == nil {
			stack, inStream = stack[:len(stack)-1], inStream[:len(inStream)-1]
			return true
		}
		streamedHere := false
		if len(stack) > 0 {
			switch parent := stack[len(stack)-1].(type) {
			case *syntax.BinaryCmd:
				streamedHere = isPipe(parent) && node == syntax.Node(parent.Y)
			case *syntax.ProcSubst:
				streamedHere = parent.Op == syntax.CmdOut
			}
			streamedHere = streamedHere || inStream[len(inStream)-1]
		}
		if r.budget.nodes--; r.budget.nodes < 0 {
			r.overNodes()
			return false
		}
		switch n := node.(type) {
		case *syntax.Stmt:
			call, isCall := n.Cmd.(*syntax.CallExpr)
			if d, ok := n.Cmd.(*syntax.DeclClause); ok {
				// bash parses export/local/declare apart; dash runs them as
				// commands: both readings see the same words.
				call, isCall = &syntax.CallExpr{Args: declWords(d)}, true
			}
			if isCall || n.Cmd == nil {
				simples = append(simples, simple{n, call, sourceOf(n), stream || streamedHere})
			}
		case *syntax.BinaryCmd:
			if isPipe(n) && !inPipeline[n] {
				var names []string
				for _, stage := range pipelineStages(n, inPipeline) {
					names = append(names, stageNames(stage)...)
				}
				r.out.Lines = append(r.out.Lines, Line{Text: unmarked(strings.Join(names, " | ")), Source: sourceOf(n)})
			}
		case *syntax.Assign:
			// bash evaluates a variable's value as arithmetic, subscripts
			// and their $(…) included: x='a[$(cmd)]'; echo $((x)) runs cmd.
			if lit, ok := r.literal(n.Value); ok && n.Value != nil && (strings.Contains(lit, "$(") || strings.Contains(lit, "`")) {
				code = append(code, simple{source: lit, stream: false})
			}
		case *syntax.FuncDecl:
			r.function(n)
		case *syntax.WhileClause, *syntax.ForClause:
			r.endlessLoop(n.(syntax.Command), sourceOf(n))
		case *syntax.Word:
			if r.d.lang == syntax.LangBash && braceCount(n) > maxBraceWords && !numbersOnly(n) {
				r.tooLarge = fmt.Sprintf("a word stands for more than %d words after brace expansion", maxBraceWords)
				return false
			}
		}
		stack, inStream = append(stack, node), append(inStream, streamedHere)
		return true
	})
	for _, c := range code {
		r.denialsIn(c.source, sourceOf(file), depth)
	}
	for _, s := range simples {
		if r.tooLarge != "" {
			return
		}
		var words []*syntax.Word
		if s.call != nil {
			words = s.call.Args
		}
		r.simpleCommand(words, s.stmt.Redirs, s.source, depth, s.stream)
	}
}

// declWords are the words of export, local, declare, readonly and typeset
// as a simple command has them: export PATH=$PATH:./bin.
func declWords(d *syntax.DeclClause) []*syntax.Word {
	words := []*syntax.Word{{Parts: []syntax.WordPart{d.Variant}}}
	for _, a := range d.Args {
		switch {
		case a.Name == nil && a.Value != nil:
			words = append(words, a.Value)
		case a.Name == nil:
		case a.Naked:
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{a.Name}})
		case a.Value != nil && a.Index == nil:
			op := "="
			if a.Append {
				op = "+="
			}
			parts := []syntax.WordPart{&syntax.Lit{Value: a.Name.Value + op}}
			words = append(words, &syntax.Word{Parts: append(parts, a.Value.Parts...)})
		default: // an array or an index: known only at run time
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: a.Name.Value + "="}, &syntax.ParamExp{Param: a.Name}}})
		}
	}
	return words
}

// prepass notes the variables the command line gives literal values to
// (X=sudo, for X in …, export X=…), so a command named $X is known when
// every assignment agrees.
func (r *reader) prepass(file *syntax.File) {
	set := func(name string, w *syntax.Word) {
		var b strings.Builder
		literal := w == nil || r.writeParts(&b, w.Parts, false, false)
		r.setVar(name, b.String(), literal)
	}
	nodes := 0
	syntax.Walk(file, func(node syntax.Node) bool {
		if nodes++; nodes > r.budget.nodes {
			r.overNodes()
			return false
		}
		switch n := node.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				if n.Value == nil || n.Index != nil || n.Array != nil || n.Append {
					r.vars[n.Name.Value] = varValue{}
				} else {
					set(n.Name.Value, n.Value)
				}
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				if len(wi.Items) == 0 {
					r.vars[wi.Name.Value] = varValue{}
				}
				for _, it := range wi.Items {
					set(wi.Name.Value, it)
				}
			}
		case *syntax.CallExpr:
			// export X=1 in dash is a command whose word is an assignment,
			// as bash's export is.
			if len(n.Args) > 1 {
				if name, ok := r.literal(n.Args[0]); ok && slices.Contains([]string{"export", "readonly", "local", "declare", "typeset"}, name) {
					for _, a := range n.Args[1:] {
						var b strings.Builder
						literal := r.writeParts(&b, a.Parts, false, false)
						if k, v, ok := strings.Cut(b.String(), "="); ok && isName(k) {
							r.setVar(k, v, literal)
						}
					}
				}
			}
			// read, getopts, printf -v, mapfile: values only known at run time.
			if len(n.Args) > 1 {
				if name, ok := r.literal(n.Args[0]); ok && slices.Contains([]string{"read", "getopts", "printf", "mapfile", "readarray", "select"}, name) {
					for _, a := range n.Args[1:] {
						if v, ok := r.literal(a); ok && isName(v) {
							r.vars[v] = varValue{}
						}
					}
				}
			}
		}
		return true
	})
}

// setVar notes one assignment of value to name: the variable stays known
// while every assignment gives it the same literal.
//
// A variable given one value that holds an expansion (D=$HOME,
// D=$(pwd)/..) reads as that value, marks and all: rm -rf "$D" is aimed at
// $HOME.
func (r *reader) setVar(name, value string, literal bool) {
	v, seen := r.vars[name]
	switch {
	case strings.Contains(value, mark+"$"+name): // PATH=$PATH:./bin: known only at run time
		r.vars[name] = varValue{}
	case !seen:
		r.vars[name] = varValue{value: value, known: literal, single: true}
	case v.value != value || v.known != literal:
		r.vars[name] = varValue{}
	}
}

// literal is a word's value when it holds no expansion known only at run
// time (a variable the command line sets to one literal counts as known).
func (r *reader) literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	if !r.writeParts(&b, w.Parts, false, false) {
		return "", false
	}
	return b.String(), true
}

func isName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// nested reads a command line given to a command as a string (sh -c '…',
// eval …) in dialect d. A nested line that cannot be read makes what the
// command runs unknown.
func (r *reader) nested(src string, d Dialect, by, outer string, depth int, stream bool) {
	if depth+1 > MaxNesting {
		r.unknown(fmt.Sprintf("command lines are nested more than %d deep (sh -c inside sh -c …)", MaxNesting))
		return
	}
	saved := r.d
	r.d = d
	defer func() { r.d = saved }()
	file, src, err := r.parse(src)
	if err != nil {
		r.unknown(fmt.Sprintf("the command line given to %s cannot be read (%v)", by, err))
		return
	}
	r.readFile(file, src, outer, depth+1, stream)
}

// overNodes notes that the command has more parts than a decision reads.
// The walk goes on visiting (refusing) the rest, so this stays cheap.
func (r *reader) overNodes() {
	if r.tooLarge == "" {
		r.tooLarge = fmt.Sprintf("it has more than %d parts", maxNodes)
	}
}

func (r *reader) unknown(why string) {
	if !slices.Contains(r.out.Unknown, why) {
		r.out.Unknown = append(r.out.Unknown, why)
	}
}

func (r *reader) find(check, what, source string) {
	for _, f := range r.out.Findings {
		if f.Check == check && f.What == what {
			return
		}
	}
	r.out.Findings = append(r.out.Findings, Finding{Check: check, What: what, Source: source})
}

// simpleCommand reads one simple command: its words and redirections.
func (r *reader) simpleCommand(args []*syntax.Word, redirs []*syntax.Redirect, source string, depth int, stream bool) {
	var words []string
	known := true // the name is known before the command runs
	for i, w := range args {
		expanded, ok := r.expandWord(w)
		if i == 0 && !ok {
			known = false
		}
		words = append(words, expanded...)
	}
	text := strings.Join(words, " ")
	for _, rd := range redirs {
		if rd.Word == nil {
			continue
		}
		target := r.render(rd.Word, true)
		if rd.N != nil {
			text = strings.TrimSpace(text + " " + rd.N.Value + rd.Op.String() + " " + target)
		} else {
			text = strings.TrimSpace(text + " " + rd.Op.String() + " " + target)
		}
		r.redirect(rd, target, source)
	}
	if text == "" {
		return
	}
	r.out.Lines = append(r.out.Lines, Line{Text: unmarked(text), Source: source})
	if len(words) == 0 {
		return
	}
	if !known {
		r.unknown(fmt.Sprintf("the command name %s is only known when the command runs", Shown(words[0])))
	}
	in := stdinOf(redirs)
	ctx := callContext{source: source, depth: depth, stream: stream || in.stream, stdin: in}
	// The command behind each prefix is looked at too: in
	// "sudo -u root env X=1 sh -c …" that is "env X=1 sh -c …", then
	// "sh -c …".
	for cmd := words; len(cmd) > 0; cmd = unwrap(cmd) {
		if len(cmd) < len(words) {
			r.out.Lines = append(r.out.Lines, Line{Text: unmarked(strings.Join(cmd, " ")), Source: source})
		}
		r.check(cmd, ctx)
		if r.tooLarge != "" {
			return
		}
	}
}

// stdin is where a command's standard input comes from, as its
// redirections say.
type stdin struct {
	stream bool   // a stream that may carry code: /dev/stdin, a descriptor, <(…), a variable
	code   string // a here-document's or here-string's text
	hasDoc bool
}

func stdinOf(redirs []*syntax.Redirect) stdin {
	var in stdin
	for _, rd := range redirs {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if rd.Hdoc != nil {
				in.code, in.hasDoc = wordText(rd.Hdoc, false), true
			}
		case syntax.WordHdoc:
			in.code, in.hasDoc = wordText(rd.Word, false), true
		case syntax.RdrIn, syntax.DplIn, syntax.RdrInOut:
			t := wordText(rd.Word, false)
			if streamPath(t) || hasMarker(t) || isFD(t) {
				in.stream = true
			}
		}
	}
	return in
}

func isFD(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// streamPath reports whether a path names a stream rather than a file:
// /dev/stdin, /dev/fd/N, /proc/self/fd/N, bash's network paths, "-".
func streamPath(p string) bool {
	if p == "-" {
		return true
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	return p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/tcp/") ||
		strings.HasPrefix(p, "/dev/udp/") || (strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}

// expandWord is a word after brace expansion (bash only) and quote
// removal, as the shell passes it to the command: usually one word, several
// for a brace expansion such as {/,x}, which becomes "/" and "x". ok is
// false when the word holds an expansion only known at run time.
func (r *reader) expandWord(w *syntax.Word) ([]string, bool) {
	_, known := r.literal(w)
	if n := braceCount(w); r.d.lang != syntax.LangBash || n <= 1 || n > maxBraceWords {
		// Not expanded: no expansion, or one of numbers only ({1..1000}),
		// which builds no name or path (a name holding one is unknown).
		return []string{r.render(w, true)}, known
	}
	// SplitBraces rewrites the word it is given, and the syntax tree is
	// still being walked: work on a copy. braceCount has bounded the
	// words it stands for.
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(braced)
	var words []string
	for ew, err := range expand.BracesSeq(nil, braced) {
		if err != nil || len(words) == maxBraceWords {
			return []string{r.render(w, true)}, false
		}
		words = append(words, r.render(ew, true))
	}
	return words, known
}

// braceCount is how many words w stands for after brace expansion, worked
// out from the unexpanded word (at most maxBraceWords+1, meaning "more").
func braceCount(w *syntax.Word) int {
	if !wordHasBrace(w) {
		return 1
	}
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(braced) {
		return 1
	}
	return countBraces(braced)
}

// numbersOnly reports whether every brace expansion in w is a sequence of
// numbers ({1..1000}).
func numbersOnly(w *syntax.Word) bool {
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(braced)
	for _, p := range braced.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		if !b.Sequence || len(b.Elems) < 2 {
			return false
		}
		for _, e := range b.Elems {
			if _, err := strconv.ParseInt(e.Lit(), 10, 64); err != nil {
				return false
			}
		}
	}
	return true
}

func wordHasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			return true
		}
	}
	return false
}

func countBraces(w *syntax.Word) int {
	const more = maxBraceWords + 1
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				k += countBraces(e)
				if k >= more {
					return more
				}
			}
		}
		n *= max(k, 1)
		if n >= more {
			return more
		}
	}
	return n
}

// sequenceLen is how many words {from..to[..step]} stands for.
func sequenceLen(b *syntax.BraceExp) int {
	const more = maxBraceWords + 1
	if len(b.Elems) < 2 {
		return 1
	}
	ends := make([]string, len(b.Elems))
	for i, e := range b.Elems {
		ends[i] = e.Lit()
	}
	step := int64(1)
	if len(ends) > 2 {
		s, err := strconv.ParseInt(ends[2], 10, 64)
		if err != nil {
			return more
		}
		step = max(s, -s, 1)
	}
	from, err1 := strconv.ParseInt(ends[0], 10, 64)
	to, err2 := strconv.ParseInt(ends[1], 10, 64)
	if err1 != nil || err2 != nil {
		if len(ends[0]) != 1 || len(ends[1]) != 1 {
			return 1 // not a sequence: the shell keeps it as written
		}
		from, to = int64(ends[0][0]), int64(ends[1][0]) // {a..z}
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if span < 0 || span/step+1 >= more {
		return more
	}
	return int(span/step + 1)
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
	"env":       {optsWithValue: "uCS"},
	"command":   {},
	"exec":      {optsWithValue: "a"},
	"builtin":   {},
	"nohup":     {},
	"setsid":    {},
	"nice":      {optsWithValue: "n"},
	"ionice":    {optsWithValue: "cnp"},
	"chrt":      {positional: 1},
	"taskset":   {positional: 1},
	"time":      {optsWithValue: "fo"},
	"timeout":   {optsWithValue: "sk", positional: 1},
	"stdbuf":    {optsWithValue: "ioe"},
	"unbuffer":  {},
	"chroot":    {positional: 1},
	"xargs":     {optsWithValue: "adEeIiLlnPs"},
	"flock":     {optsWithValue: "wE", positional: 1},
	"unshare":   {},
	"nsenter":   {optsWithValue: "tS"},
	"strace":    {optsWithValue: "eoOpsuU"},
	"ltrace":    {optsWithValue: "eoOpsu"},
	"catchsegv": {},
	"fakeroot":  {},
	"firejail":  {},
	"sudo":      {optsWithValue: "CDghprtTUu"},
	"doas":      {optsWithValue: "Cu"},
	"pkexec":    {optsWithValue: "u"},
	"run0":      {optsWithValue: "uDg"},
	"busybox":   {},
	"toybox":    {},
	"watch":     {optsWithValue: "dn"},
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
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++ // takes an option name
		case (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1 && !strings.HasPrefix(a, "--"):
			dashC = dashC || strings.ContainsRune(a[1:], 'c')
			dashS = dashS || strings.ContainsRune(a[1:], 's')
		case strings.HasPrefix(a, "--"):
			// a long option (--norc, --login)
		default:
			if dashC {
				return a, true, "", false, args[i+1:]
			}
			if dashS {
				return "", false, "", true, nil
			}
			return "", false, a, false, nil
		}
	}
	return "", false, "", !dashC, nil
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

// render is a word after quote removal, with a marker for each expansion
// whose value is only known when the command runs ($NAME, $(cmd), <(cmd));
// a variable the command line sets to one literal reads as that literal.
// An absolute path is cleaned as the kernel reads it ("///*" is "/*",
// "/tmp/.." is "/"), keeping a final slash.
func (r *reader) render(w *syntax.Word, cleanPath bool) string {
	var b strings.Builder
	r.writeParts(&b, w.Parts, false, false)
	return cleanWord(b.String(), cleanPath)
}

func cleanWord(text string, cleanPath bool) string {
	if cleanPath && strings.HasPrefix(text, "/") {
		cleaned := path.Clean(text)
		if strings.HasSuffix(text, "/") && cleaned != "/" {
			cleaned += "/"
		}
		return cleaned
	}
	if cleanPath && (strings.HasPrefix(text, "~") || strings.HasPrefix(text, mark)) {
		return collapseSlashes.ReplaceAllString(text, "/")
	}
	return text
}

// renderWordShallow is a word for naming a command inside a marker: a
// substitution in it is written $(…) without looking inside, so a deeply
// nested command line costs no more than its length.
func renderWordShallow(w *syntax.Word) string { return wordText(w, true) }

var collapseSlashes = regexp.MustCompile(`/{2,}`)

// mark comes before each expansion in a rendered word whose value is only
// known at run time ($HOME, $(cmd), <(cmd)), so the checks can tell it
// from the same characters quoted ('$HOME' is a name, not a folder). It is
// a private-use character, dropped wherever text is shown or matched
// (unmarked).
const mark = "\uE000"

// unmarked is rendered text without its marks.
func unmarked(s string) string { return strings.ReplaceAll(s, mark, "") }

// hasMarker reports whether a rendered word holds an expansion known only
// at run time.
func hasMarker(s string) bool { return strings.Contains(s, mark) }

// wordText writes the parts of w after quote removal, every variable as a
// marker.
func wordText(w *syntax.Word, shallow bool) string {
	var b strings.Builder
	(&reader{}).writeParts(&b, w.Parts, false, shallow)
	return b.String()
}

// writeParts writes parts after quote removal and reports whether all of
// them are known before the command runs.
func (r *reader) writeParts(b *strings.Builder, parts []syntax.WordPart, quoted, shallow bool) bool {
	known := true
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar { // $'…' holds escapes: $'\x73udo' is sudo
				if s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}}); err == nil {
					b.WriteString(s)
					continue
				}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			known = r.writeParts(b, p.Parts, true, shallow) && known
		case *syntax.ParamExp:
			name := "?"
			if p.Param != nil {
				name = p.Param.Value
			}
			if v, ok := r.vars[name]; ok && v.single && p.Exp == nil && p.Repl == nil && p.Index == nil &&
				p.Slice == nil && !p.Length && !p.Excl && !p.Width && p.Names == 0 {
				b.WriteString(v.value)
				known = known && v.known
				continue
			}
			b.WriteString(mark + "$" + name)
			known = false
		case *syntax.CmdSubst:
			b.WriteString(mark + "$(" + substNames(p.Stmts, shallow) + ")")
			known = false
		case *syntax.ProcSubst:
			b.WriteString(mark + p.Op.String() + substNames(p.Stmts, shallow) + ")")
			known = false
		case *syntax.ArithmExp:
			b.WriteString(mark + "$((…))")
			known = false
		case *syntax.ExtGlob:
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		case *syntax.BraceExp:
			b.WriteString("{…}")
		default:
			known = false
		}
	}
	return known
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

// Shown is a part of a command line as a decision's reason shows it:
// on one line, at most 120 bytes, with control and bidirectional characters
// written as escapes.
func Shown(s string) string {
	s = strings.TrimSpace(unmarked(s))
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
