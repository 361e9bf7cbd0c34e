package shell

// Fork bombs: functions that start themselves without waiting, and
// endless loops of background commands.

import (
	"fmt"
	"maps"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// funcInfo is what a function definition does: the commands it calls and
// whether its body starts processes it does not wait for (&, a pipeline).
type funcInfo struct {
	calls  []string
	spawns bool
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
	body := r.endlessBody(loop)
	if body != nil && r.spawnsWithoutStop(body) {
		r.find("fork-bomb", "a loop that never ends starts commands in the background", source)
	}
}

// endlessBody is the body of a loop that never ends by its condition
// (while true, while :, until false, for ((;;))), or nil.
func (r *reader) endlessBody(loop syntax.Command) []*syntax.Stmt {
	switch w := loop.(type) {
	case *syntax.WhileClause:
		if len(w.Cond) != 1 {
			return nil
		}
		call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return nil
		}
		cond, _ := r.literal(call.Args[0])
		if (!w.Until && (cond == "true" || cond == ":")) || (w.Until && cond == "false") {
			return w.Do
		}
	case *syntax.ForClause:
		if c, ok := w.Loop.(*syntax.CStyleLoop); ok && c.Cond == nil {
			return w.Do
		}
	}
	return nil
}

// spawnsWithoutStop reports whether body starts a command in the
// background and has no break, exit or return.
func (r *reader) spawnsWithoutStop(body []*syntax.Stmt) bool {
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
	return background && !stops
}
