package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/outside"
	"github.com/glassbox-dev/glassbox/loop/tracefile"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/rosetta"
	"github.com/glassbox-dev/glassbox/providers/spans"
)

// use is one T or F call found in the program's source.
type use struct {
	key   string // "" when the argument is not a constant
	where string
}

// sourceUses reads every non-test Go file of the module and returns the
// sentence of each call that takes one (sentenceArg). T and F are read in
// every file of a package that imports this one: a file that only calls
// m.cfg.Lang.T needs no import of its own.
func sourceUses(t *testing.T) []use {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	catalogDirs := map[string]bool{} // packages that import this one, in any file
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		if importsLang(f) {
			catalogDirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var uses []use
	for _, f := range files {
		// A file of a package that speaks through the catalog may call T
		// and F on a language it got from another file (a field, a
		// parameter) without importing this package itself.
		catalog := catalogDirs[filepath.Dir(fset.Position(f.Package).Filename)]
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			i := sentenceArg(f, call, catalog)
			if i < 0 || i >= len(call.Args) {
				return true
			}
			rel, _ := filepath.Rel(root, fset.Position(call.Pos()).String())
			key := constString(call.Args[i])
			if key == "" && !isCatalogCall(call) {
				// A sentence error made from a format that is data (a
				// dialect's Address.What): the package that holds the
				// data keeps a test that each is in the catalog.
				return true
			}
			uses = append(uses, use{key: key, where: rel})
			return true
		})
	}
	return uses
}

// sentenceArg is the index of the argument of call that is a sentence of
// the catalog, or -1: the first argument of T and F in a file that imports
// this package; the format of a sentence error (history/sentence.Errorf,
// providers.Errorf, a provider error's Sayf) and of a say call (loop.Say,
// the human trace) anywhere, since the engine and the providers say their
// sentences in English and a front end translates them (Lang.Error, Lang.F).
func sentenceArg(f *ast.File, call *ast.CallExpr, catalog bool) int {
	switch fun := call.Fun.(type) {
	case *ast.SelectorExpr:
		name := fun.Sel.Name
		pkg, _ := fun.X.(*ast.Ident)
		switch {
		case catalog && (name == "T" || name == "F"):
			return 0
		case name == "Sayf":
			return 0
		case name == "Errorf" && pkg != nil && pkg.Name == "sentence":
			return 0
		case name == "Errorf" && pkg != nil && pkg.Name == "providers":
			return 3
		}
	case *ast.Ident:
		switch {
		case fun.Name == "Errorf" && f.Name.Name == "providers":
			return 3
		case fun.Name == "say":
			return 0 // loop.Say: the human trace's sentences
		}
	}
	return -1
}

// isCatalogCall reports whether call is a T or F call.
func isCatalogCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && (sel.Sel.Name == "T" || sel.Sel.Name == "F")
}

func importsLang(f *ast.File) bool {
	for _, imp := range f.Imports {
		if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/ui/lang") {
			return true
		}
	}
	return false
}

// constString is the value of a string literal or a + of them, or "".
func constString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return ""
		}
		s, err := strconv.Unquote(e.Value)
		if err != nil {
			return ""
		}
		return s
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return ""
		}
		a, b := constString(e.X), constString(e.Y)
		if a == "" || b == "" {
			return ""
		}
		return a + b
	case *ast.ParenExpr:
		return constString(e.X)
	}
	return ""
}

// TestEverySentenceHasJapanese fails when a sentence the program shows has
// no Japanese, or when T or F is given something that is not a constant (use
// Dyn for those, with a test of its own).
func TestEverySentenceHasJapanese(t *testing.T) {
	uses := sourceUses(t)
	var missing []string
	for _, u := range uses {
		if u.key == "" {
			t.Errorf("%s: T/F needs a constant sentence; use Dyn (and a test that its keys are in the catalog) for a computed one", u.where)
			continue
		}
		if !Has(u.key) {
			missing = append(missing, u.where+": "+strconv.Quote(u.key))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no Japanese for %s", m)
	}
}

// TestNoSentenceIsRegisteredTwice fails when two ja_*.go files hold the same
// English key (only the first would ever be shown).
func TestNoSentenceIsRegisteredTwice(t *testing.T) {
	seen := map[string]int{}
	for i, p := range parts {
		for k := range p {
			if j, dup := seen[k]; dup {
				t.Errorf("%q is registered by part %d and part %d", k, j, i)
			}
			seen[k] = i
		}
	}
}

var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*(\d+|\*)?(\.(\d+|\*))?([a-zA-Z%])`)

// verbs lists the values a format uses, as "argument index:verb" strings.
func verbs(format string) []string {
	var out []string
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[5] == "%" {
			continue
		}
		i := next
		if m[1] != "" {
			i, _ = strconv.Atoi(strings.Trim(m[1], "[]"))
		}
		out = append(out, strconv.Itoa(i)+":"+m[5])
		next = i + 1
	}
	sort.Strings(out)
	return out
}

// TestJapaneseFormatsTakeTheSameValues fails when a Japanese sentence uses
// other values, or other verbs, than its English format: F would print
// %!d(string=…) on screen.
func TestJapaneseFormatsTakeTheSameValues(t *testing.T) {
	for en, ja := range japanese() {
		if a, b := strings.Join(verbs(en), " "), strings.Join(verbs(ja), " "); a != b {
			t.Errorf("%q takes [%s] but its Japanese %q takes [%s]", en, a, ja, b)
		}
	}
}

func TestVerbs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"%d of %s", "1:d 2:s"},
		{"%[2]s の %[1]d", "1:d 2:s"},
		{"100%% done in %.1fs", "1:f"},
		{"%-10s|%5d", "1:s 2:d"},
	} {
		if got := strings.Join(verbs(c.in), " "); got != c.want {
			t.Errorf("verbs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestChoose(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		flag string
		env  map[string]string
		want Lang
	}{
		{"", nil, EN},
		{"", map[string]string{"LANG": "ja_JP.UTF-8"}, JA},
		{"", map[string]string{"LANG": "ja_JP.UTF-8", "LC_ALL": "C"}, EN},
		{"", map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "ja_JP.eucJP"}, JA},
		{"", map[string]string{"LC_ALL": "ja"}, JA},
		{"", map[string]string{"LANG": "jam_JM"}, EN},
		{"en", map[string]string{"LANG": "ja_JP.UTF-8"}, EN},
		{"JA", nil, JA},
	} {
		got, err := Choose(c.flag, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("Choose(%q, %v) = %v, %v; want %v", c.flag, c.env, got, err, c.want)
		}
	}
	if _, err := Choose("fr", env(nil)); err == nil || !strings.Contains(err.Error(), "en or ja") {
		t.Errorf("Choose(fr) error = %v, want one naming en and ja", err)
	}
}

func TestTAndF(t *testing.T) {
	register(map[string]string{"test: %[1]d of %[2]s": "テスト: %[2]s の %[1]d"})
	merged, mergeMu = nil, sync.Once{}
	if got := JA.F("test: %[1]d of %[2]s", 3, "five"); got != "テスト: five の 3" {
		t.Errorf("JA.F = %q", got)
	}
	if got := EN.F("test: %[1]d of %[2]s", 3, "five"); got != "test: 3 of five" {
		t.Errorf("EN.F = %q", got)
	}
	if got := JA.T("a sentence nobody registered"); got != "a sentence nobody registered" {
		t.Errorf("JA.T of an unknown sentence = %q, want it unchanged", got)
	}
}

// The reasons a foreign agent's inferred steps carry (Transition.Inferred)
// are shown through T: each has its Japanese.
func TestInferredReasonsHaveJapanese(t *testing.T) {
	for _, r := range outside.Reasons() {
		if JA.T(r) == r {
			t.Errorf("no Japanese for %q", r)
		}
	}
}

// What a trace file lacks (spans.Missings, tracefile's sentences) is shown
// through Dyn: each has its Japanese.
func TestMissingSentencesHaveJapanese(t *testing.T) {
	for _, s := range append(spans.Missings(), tracefile.NoResponseBodies, tracefile.NoModelCall) {
		if JA.T(s) == s {
			t.Errorf("no Japanese for %q", s)
		}
	}
}

// The sentences of the anatomy and Rosetta data (token rules, captions,
// what a dialect cannot carry) are shown through T: each has its Japanese.
func TestAnatomySentencesHaveJapanese(t *testing.T) {
	all := append([]string{anatomy.EstimateRule, anatomy.SimulatedRule, rosetta.LostSignature, rosetta.LostReasoning}, rosetta.Captions()...)
	for _, s := range all {
		if JA.T(s) == s {
			t.Errorf("no Japanese for %q", s)
		}
	}
}
