package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The code cites docs/architecture.md by section name; every section it
// cites must be a heading of that page, so a newcomer following a comment
// lands somewhere.
func TestCodeCitesArchitectureSections(t *testing.T) {
	page, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(line, "##") { // a section or a subsection
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok {
				headings[h] = true
			}
		}
	}
	cite := regexp.MustCompile(`docs/architecture\.md, \\?"([^"\\]+)\\?"`)
	cited := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "DESIGN "+"§") { // spelt in two so this file does not match itself
			t.Errorf("%s cites the design spec by section number, a document that is not in the repository; cite docs/architecture.md's sections", path)
		}
		for _, m := range cite.FindAllStringSubmatch(string(src), -1) {
			cited++
			if !headings[m[1]] {
				t.Errorf("%s cites docs/architecture.md, %q: no such section", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Fatal("no citation of docs/architecture.md found: the pattern no longer matches the comments")
	}
}
