package shell

// Words as the shell passes them to a command: quote removal, the
// variables the command line sets itself, and marks for what is only known
// at run time.

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// varValue is what a command line's own assignments tell about a variable:
// its one literal value, when every assignment gives the same literal.
type varValue struct {
	value  string // the literal, or (not known) the value as rendered, marks and all
	known  bool   // every assignment gives the same literal
	single bool   // every assignment gives the same value, literal or not
}

// prepass notes the variables the command line gives literal values to
// (X=sudo, for X in …, export X=…), so a command named $X is known when
// every assignment agrees.
func (r *reader) prepass(file *syntax.File) {
	nodes := 0
	syntax.Walk(file, func(node syntax.Node) bool {
		if nodes++; nodes > r.budget.nodes {
			r.overNodes()
			return false
		}
		switch n := node.(type) {
		case *syntax.Assign:
			r.assigned(n)
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				if len(wi.Items) == 0 {
					r.vars[wi.Name.Value] = varValue{}
				}
				for _, it := range wi.Items {
					r.setWord(wi.Name.Value, it)
				}
			}
		case *syntax.CallExpr:
			r.setBy(n)
		}
		return true
	})
}

// assigned notes NAME=VALUE; an array, an index or += is known only at
// run time.
func (r *reader) assigned(n *syntax.Assign) {
	switch {
	case n.Name == nil:
	case n.Value == nil || n.Index != nil || n.Array != nil || n.Append:
		r.vars[n.Name.Value] = varValue{}
	default:
		r.setWord(n.Name.Value, n.Value)
	}
}

// setWord notes that name is given the word w.
func (r *reader) setWord(name string, w *syntax.Word) {
	var b strings.Builder
	literal := w == nil || r.writeParts(&b, w.Parts, false, false)
	r.setVar(name, b.String(), literal)
}

var (
	// declarers set the variables their NAME=VALUE words name.
	declarers = []string{"export", "readonly", "local", "declare", "typeset"}
	// runtimeSetters set the variables they name to values known only at
	// run time (read X, printf -v X, mapfile X).
	runtimeSetters = []string{"read", "getopts", "printf", "mapfile", "readarray", "select"}
)

// setBy notes the variables a command sets: export X=1 in dash is a
// command whose word is an assignment, as bash's export is; read X and
// its kin give X a value only known at run time.
func (r *reader) setBy(n *syntax.CallExpr) {
	if len(n.Args) < 2 {
		return
	}
	name, ok := r.literal(n.Args[0])
	switch {
	case !ok:
	case slices.Contains(declarers, name):
		for _, a := range n.Args[1:] {
			var b strings.Builder
			literal := r.writeParts(&b, a.Parts, false, false)
			if k, v, ok := strings.Cut(b.String(), "="); ok && isName(k) {
				r.setVar(k, v, literal)
			}
		}
	case slices.Contains(runtimeSetters, name):
		for _, a := range n.Args[1:] {
			if v, ok := r.literal(a); ok && isName(v) {
				r.vars[v] = varValue{}
			}
		}
	}
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
		known = r.writePart(b, part, quoted, shallow) && known
	}
	return known
}

// writePart writes one part of a word after quote removal, an expansion
// only known at run time as a mark and its name, and reports whether the
// part is known before the command runs.
func (r *reader) writePart(b *strings.Builder, part syntax.WordPart, quoted, shallow bool) bool {
	switch p := part.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, quoted))
	case *syntax.SglQuoted:
		b.WriteString(singleQuoted(p))
	case *syntax.DblQuoted:
		return r.writeParts(b, p.Parts, true, shallow)
	case *syntax.ParamExp:
		return r.writeParam(b, p)
	case *syntax.CmdSubst:
		b.WriteString(mark + "$(" + substNames(p.Stmts, shallow) + ")")
		return false
	case *syntax.ProcSubst:
		b.WriteString(mark + p.Op.String() + substNames(p.Stmts, shallow) + ")")
		return false
	case *syntax.ArithmExp:
		b.WriteString(mark + "$((…))")
		return false
	case *syntax.ExtGlob:
		b.WriteString(p.Op.String() + p.Pattern.Value + ")")
	case *syntax.BraceExp:
		b.WriteString("{…}")
	default:
		return false
	}
	return true
}

// singleQuoted is the text of '…', or of $'…' with its escapes read:
// $'\x73udo' is sudo.
func singleQuoted(p *syntax.SglQuoted) string {
	if p.Dollar {
		if s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}}); err == nil {
			return s
		}
	}
	return p.Value
}

// writeParam writes $NAME: the value the command line gives it, when it
// gives one value and nothing is done to it, else a mark and the name.
func (r *reader) writeParam(b *strings.Builder, p *syntax.ParamExp) bool {
	name := "?"
	if p.Param != nil {
		name = p.Param.Value
	}
	if v, ok := r.vars[name]; ok && v.single && plainParam(p) {
		b.WriteString(v.value)
		return v.known
	}
	b.WriteString(mark + "$" + name)
	return false
}

// plainParam reports whether p is $NAME or ${NAME}, its value as it is:
// no default, replacement, index, slice, length or indirection.
func plainParam(p *syntax.ParamExp) bool {
	return p.Exp == nil && p.Repl == nil && p.Index == nil && p.Slice == nil &&
		!p.Length && !p.Excl && !p.Width && p.Names == 0
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
