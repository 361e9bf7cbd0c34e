package shell

import (
	"fmt"
	"slices"

	"mvdan.cc/sh/v3/syntax"
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
