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
)

// use is one T or F call found in the program's source.
type use struct {
	key   string // "" when the argument is not a constant
	where string
}

// sourceUses reads every non-test Go file of the module and returns the
// first argument of each call of a method named T or F in the packages that
// import this package: a file that only calls m.cfg.Lang.T needs no import
// of its own, so the whole package (directory) is read once one of its
// files imports it.
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
	files := map[string][]*ast.File{} // by directory
	langDirs := map[string]bool{}
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
		dir := filepath.Dir(path)
		files[dir] = append(files[dir], f)
		if importsLang(f) {
			langDirs[dir] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var uses []use
	for dir := range langDirs {
		for _, f := range files[dir] {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "T" && sel.Sel.Name != "F") {
					return true
				}
				rel, _ := filepath.Rel(root, fset.Position(call.Pos()).String())
				uses = append(uses, use{key: constString(call.Args[0]), where: rel})
				return true
			})
		}
	}
	return uses
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
