package shell

// Pipelines: their stages and the commands that read each pipe.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
