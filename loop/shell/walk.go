package shell

// Walking a parsed command line: every simple command, wherever it
// stands, and every pipeline.

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
