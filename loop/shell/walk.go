package shell

// Walking a parsed command line: every simple command, wherever it
// stands, and every pipeline.

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readFile walks one parsed command line. outer is the part of the
// top-level command line a nested one came from ("" at the top); stream
// says the command line's standard input is a stream that may carry code
// (it was piped into the shell that runs it). The walk notes pipelines,
// functions and loops as it meets them, and collects the simple commands
// and code in variables to read once it is done.
func (r *reader) readFile(file *syntax.File, src, outer string, depth int, stream bool) {
	if r.prepass(file); r.tooLarge != "" {
		return
	}
	w := &walk{r: r, src: src, outer: outer, stream: stream, inPipeline: map[*syntax.BinaryCmd]bool{}}
	syntax.Walk(file, w.visit)
	for _, c := range w.code {
		r.denialsIn(c, w.sourceOf(file), depth)
	}
	for _, s := range w.simples {
		if r.tooLarge != "" {
			return
		}
		var words []*syntax.Word
		if s.call != nil {
			words = s.call.Args
		}
		r.simpleCommand(words, s.stmt.Redirs, s.outer, s.source, depth, s.stream)
	}
}

// walk is one walk of a parsed command line (readFile).
type walk struct {
	r          *reader
	src, outer string
	stream     bool                       // the line's standard input may carry code
	inPipeline map[*syntax.BinaryCmd]bool // pipes already read as part of a longer pipeline
	// stack holds the nodes above the one visited, and inStream whether
	// each reads a stream from another command (a later pipeline stage,
	// the commands of >(…)), so a statement's context costs nothing to
	// find.
	stack    []syntax.Node
	inStream []bool
	simples  []simple
	code     []string // values of assignments that hold a command substitution
}

// simple is a simple command met on the walk, read once it is done.
type simple struct {
	stmt   *syntax.Stmt
	call   *syntax.CallExpr // nil for a statement of redirections only
	source string
	stream bool // its standard input may carry code
	// outer are the redirections of the compound commands around it
	// ({ …; } < FILE, a loop's done < FILE): its standard input comes
	// from them unless its own redirections say otherwise.
	outer []*syntax.Redirect
}

// sourceOf is the part of the command line n was read from: the outer
// part for a nested line.
func (w *walk) sourceOf(n syntax.Node) string {
	if w.outer != "" {
		return w.outer
	}
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(w.src) || start > end {
		return w.src
	}
	return w.src[start:end]
}

// visit is syntax.Walk's function: node, or nil when the walk leaves the
// node last visited.
func (w *walk) visit(node syntax.Node) bool {
	if node == nil {
		w.stack, w.inStream = w.stack[:len(w.stack)-1], w.inStream[:len(w.inStream)-1]
		return true
	}
	streamed := w.streamedHere(node)
	if w.r.budget.nodes--; w.r.budget.nodes < 0 {
		w.r.overNodes()
		return false
	}
	if !w.look(node, streamed) {
		return false
	}
	w.stack, w.inStream = append(w.stack, node), append(w.inStream, streamed)
	return true
}

// streamedHere reports whether node reads a stream from another command:
// it is a later stage of a pipe, in the commands of >(…), or inside one
// that is.
func (w *walk) streamedHere(node syntax.Node) bool {
	if len(w.stack) == 0 {
		return false
	}
	streamed := false
	switch parent := w.stack[len(w.stack)-1].(type) {
	case *syntax.BinaryCmd:
		streamed = isPipe(parent) && node == syntax.Node(parent.Y)
	case *syntax.ProcSubst:
		streamed = parent.Op == syntax.CmdOut
	}
	return streamed || w.inStream[len(w.inStream)-1]
}

// look looks at one node; false stops the walk from going into it.
func (w *walk) look(node syntax.Node, streamed bool) bool {
	switch n := node.(type) {
	case *syntax.Stmt:
		w.statement(n, streamed)
	case *syntax.BinaryCmd:
		w.pipeline(n)
	case *syntax.Assign:
		// bash evaluates a variable's value as arithmetic, subscripts and
		// their $(…) included: x='a[$(cmd)]'; echo $((x)) runs cmd.
		if lit, ok := w.r.literal(n.Value); ok && n.Value != nil && (strings.Contains(lit, "$(") || strings.Contains(lit, "`")) {
			w.code = append(w.code, lit)
		}
	case *syntax.FuncDecl:
		w.r.function(n)
	case *syntax.WhileClause, *syntax.ForClause:
		w.r.endlessLoop(n.(syntax.Command), w.sourceOf(n))
	case *syntax.Word:
		if w.r.d.lang == syntax.LangBash && braceCount(n) > maxBraceWords && !numbersOnly(n) {
			w.r.tooLarge = fmt.Sprintf("a word stands for more than %d words after brace expansion", maxBraceWords)
			return false
		}
	}
	return true
}

// statement collects a simple command (export and its kin included) to
// read once the walk is done.
func (w *walk) statement(n *syntax.Stmt, streamed bool) {
	call, isCall := n.Cmd.(*syntax.CallExpr)
	if d, ok := n.Cmd.(*syntax.DeclClause); ok {
		// bash parses export/local/declare apart; dash runs them as
		// commands: both readings see the same words.
		call, isCall = &syntax.CallExpr{Args: declWords(d)}, true
	}
	switch {
	case isCall || n.Cmd == nil:
		w.simples = append(w.simples, simple{n, call, w.sourceOf(n), w.stream || streamed, w.outerRedirs()})
	case len(n.Redirs) > 0:
		// A compound command's redirections ({ …; } > FILE, ( … ) >>
		// FILE, a loop's done > FILE) write as a simple command's do:
		// read as a statement of redirections only.
		w.simples = append(w.simples, simple{n, nil, w.sourceOf(n), w.stream || streamed, w.outerRedirs()})
	}
}

// outerRedirs are the redirections of the compound commands (not simple
// ones, whose command substitutions do not read them) around the
// statement visited, outermost first.
func (w *walk) outerRedirs() []*syntax.Redirect {
	var out []*syntax.Redirect
	for _, n := range w.stack {
		s, ok := n.(*syntax.Stmt)
		if !ok || len(s.Redirs) == 0 {
			continue
		}
		switch s.Cmd.(type) {
		case *syntax.CallExpr, *syntax.DeclClause, nil:
		default:
			out = append(out, s.Redirs...)
		}
	}
	return out
}

// pipeline writes out a whole pipeline (not one already read as part of a
// longer one) as the names of the commands that read each pipe.
func (w *walk) pipeline(n *syntax.BinaryCmd) {
	if !isPipe(n) || w.inPipeline[n] {
		return
	}
	var names []string
	for _, stage := range pipelineStages(n, w.inPipeline) {
		names = append(names, stageNames(stage)...)
	}
	w.r.out.Lines = append(w.r.out.Lines, Line{Text: unmarked(strings.Join(names, " | ")), Source: w.sourceOf(n)})
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

// simpleCommand reads one simple command: its words and redirections.
func (r *reader) simpleCommand(args []*syntax.Word, redirs, outer []*syntax.Redirect, source string, depth int, stream bool) {
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
	in := stdinOf(append(slices.Clip(outer), redirs...))
	r.checkWrapped(words, callContext{source: source, depth: depth, stream: stream || in.stream, stdin: in})
}

// checkWrapped checks a command and the command behind each of its
// prefixes: in "sudo -u root env X=1 sh -c …" that is "env X=1 sh -c …",
// then "sh -c …". env -C DIR runs what is behind it in DIR, as cd would.
func (r *reader) checkWrapped(words []string, ctx callContext) {
	for cmd := words; len(cmd) > 0; cmd = unwrap(cmd) {
		if len(cmd) < len(words) {
			r.out.Lines = append(r.out.Lines, Line{Text: unmarked(strings.Join(cmd, " ")), Source: ctx.source})
		}
		r.check(cmd, ctx)
		if r.tooLarge != "" {
			return
		}
		if dir, ok := envChdir(cmd); ok {
			r.changeDir("env -C", []string{dir})
		}
	}
}
