package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/backend"
)

// TestDialectNamesLiveInProviders enforces what docs/providers.md says under
// "Dialects as descriptors": outside providers/, no Go code spells a
// dialect's name — "gemini", "llama:native", an alias such as "ollama" —
// in a string or in a comment; it asks providers/backend's registry. A
// string that says "--provider llama" or compares a name is dialect
// knowledge in the wrong place, and a comment that names two dialects
// ("gemini or llama") is out of date the day a third arrives. Tests and
// the docs may name them; a comment may name a provider's product
// ("Gemini", "Ollama", capitalised) where it says what that service does.
func TestDialectNamesLiveInProviders(t *testing.T) {
	var alts []string
	for _, d := range backend.Dialects() {
		for _, n := range append(d.Names(), d.Provider) {
			alts = append(alts, regexp.QuoteMeta(n))
		}
	}
	// A name as a word of its own: "gemini", `--provider llama`,
	// `--compare=gemini,llama:native` — not "llama3.1:8b" or "ollama/api".
	spelled := regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(` + strings.Join(alts, "|") + `)($|[^A-Za-z0-9_./-])`)
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			// ui/lang is the message catalog: it repeats the providers'
			// own sentences (its keys) and says them in Japanese; it
			// holds no dialect knowledge of its own.
			if path == "providers" || path == filepath.Join("ui", "lang") || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if m := spelled.FindStringSubmatch(c.Text); m != nil {
					t.Errorf("%s: a comment spells the dialect name %q: %s", fset.Position(c.Pos()), m[2], c.Text)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if m := spelled.FindStringSubmatch(s); m != nil {
				t.Errorf("%s: the string %s spells the dialect name %q; ask providers/backend instead", path, lit.Value, m[2])
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
