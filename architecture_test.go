package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
)

const module = "github.com/glassbox-dev/glassbox"

// TestDependencyRule enforces docs/architecture.md,
// "Layers and the dependency rule": main → ui/… → loop → {providers, tools,
// history}; providers and tools may import history; nothing imports
// ui/glassbox but the front ends that run it, and nothing imports ui
// itself; the engine side never imports the Bubble Tea stack.
func TestDependencyRule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	out, err := exec.Command("go", "list", "-deps", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath string
		Deps       []string
		Imports    []string
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 5 {
		t.Fatalf("only %d packages of the module listed", len(pkgs))
	}
	top := func(path string) string {
		rest := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if rest == "" {
			return "main"
		}
		first, _, _ := strings.Cut(rest, "/")
		return first
	}
	// allowed[a] lists the module's top-level folders a may import.
	allowed := map[string][]string{
		"main":      {"ui", "loop", "providers", "tools", "history"},
		"ui":        {"ui", "loop", "providers", "tools", "history"},
		"loop":      {"providers", "tools", "history"},
		"providers": {"providers", "history"},
		"tools":     {"tools", "history"},
		"history":   {},
	}
	// The glass box's front ends: the command, the server that runs a
	// glass box per SSH connection, glassbox tap, which runs one around
	// another agent, and glassbox open, which runs one on a trace file
	// (docs/architecture.md, "Layers and the dependency rule"): they are
	// the glass box's siblings under ui/.
	frontEnds := []string{module, module + "/ui/serve", module + "/ui/tapbox", module + "/ui/open"}
	// narrow[p] lists all the module's packages p may import, where the
	// folder rule allows more: the shell analysis reads a string and knows
	// nothing of the engine, calls or providers (docs/architecture.md,
	// "Layers and the dependency rule").
	narrow := map[string][]string{
		module + "/loop/shell": {module + "/tools"},
	}
	uiStack := []string{"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles"}
	for _, p := range pkgs {
		from := top(p.ImportPath)
		ok, known := allowed[from]
		if !known {
			t.Errorf("%s lives in %s/, which is not a folder docs/architecture.md names", p.ImportPath, from)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if imp == module+"/ui" {
				t.Errorf("%s imports %s: ui/ is a folder of sibling packages, and the glass box is ui/glassbox", p.ImportPath, imp)
			}
			if imp == module+"/ui/glassbox" && !slices.Contains(frontEnds, p.ImportPath) {
				t.Errorf("%s imports %s: only the front ends (%s) run the glass box", p.ImportPath, imp, strings.Join(frontEnds, ", "))
			}
			if only, ok := narrow[p.ImportPath]; ok && !slices.Contains(only, imp) {
				t.Errorf("%s imports %s: it may import only %s", p.ImportPath, imp, strings.Join(only, ", "))
			}
			to := top(imp)
			if to != from && !slices.Contains(ok, to) {
				t.Errorf("%s imports %s: %s/ may not depend on %s/", p.ImportPath, imp, from, to)
			}
		}
		if from == "main" || from == "ui" && p.ImportPath != module+"/ui/headless" {
			continue
		}
		for _, d := range p.Deps {
			for _, s := range uiStack {
				if strings.HasPrefix(d, s) {
					t.Errorf("%s depends on %s: the engine side and the headless front end must not import the UI stack", p.ImportPath, d)
				}
			}
		}
	}
}

// The security pages quote the built-in policy in full; they must quote the
// policy the program actually enforces.
func TestDocsQuoteTheBuiltInPolicy(t *testing.T) {
	for _, page := range []string{"docs/security.md", "docs/ja/security.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), strings.TrimSpace(loop.DefaultPolicyTOML)) {
			t.Errorf("%s does not quote loop.DefaultPolicyTOML as it is now", page)
		}
	}
}

// docs/architecture.md, "Layers and the dependency rule": the root package holds main.go only (and its tests); the wiring,
// backend choice and front ends live in packages.
func TestRootHoldsMainOnly(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".go") && name != "main.go" && !strings.HasSuffix(name, "_test.go") {
			t.Errorf("%s sits beside main.go; move it into a package (docs/architecture.md, \"Layers and the dependency rule\")", name)
		}
	}
}

// TestModelStaysARouter keeps glassbox.Model what docs/architecture.md says it
// is — it routes, lays out and composes; the features live in controllers
// and panes — by its size: at most 40 methods (issue 27 found 120).
func TestModelStaysARouter(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("ui/glassbox/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "Model" {
				methods = append(methods, fn.Name.Name)
			}
		}
	}
	if len(methods) < 10 {
		t.Fatalf("found %d methods of glassbox.Model: is it still in ui/glassbox/*.go?", len(methods))
	}
	if len(methods) > 40 {
		t.Errorf("glassbox.Model has %d methods (at most 40): give the new ones to a controller or a pane (docs/architecture.md, \"Adding a pane\"): %v", len(methods), methods)
	}
}
