package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// term is one row of docs/ja/glossary.md: an English term, its one
// Japanese translation, and the translations never to use.
type term struct {
	en, ja string
	avoid  []string
}

// glossary reads docs/ja/glossary.md's table.
func glossary(t *testing.T) []term {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ja", "glossary.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []term
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 3 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		en, ja := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
		if en == "English" || strings.HasPrefix(en, "---") {
			continue
		}
		tm := term{en: en, ja: ja}
		for _, a := range strings.Split(cells[2], "、") {
			if a = strings.TrimSpace(a); a != "" {
				tm.avoid = append(tm.avoid, a)
			}
		}
		out = append(out, tm)
	}
	if len(out) < 20 {
		t.Fatalf("the glossary has %d terms: its table no longer reads as English | 日本語 | 使わない訳", len(out))
	}
	return out
}

// japaneseTexts are the Japanese a person reads, by where it comes from:
// every catalog translation, the lessons' titles and requests, the
// offline tutor's own Japanese (its source, read as text), and the
// Japanese docs (all but the glossary, which names the words to avoid).
func japaneseTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for en, ja := range japanese() {
		texts["ui/lang "+en] = ja
	}
	for _, l := range lessons.All() {
		texts["lesson "+l.Name] = l.TitleJA + "\n" + l.RequestJA
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "providers", "offline", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the offline tutor's source: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts["providers/offline/"+filepath.Base(f)] = string(b)
	}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "ja", "*.md"))
	if err != nil || len(docs) < 10 {
		t.Fatalf("the Japanese docs: %d pages, %v", len(docs), err)
	}
	for _, f := range docs {
		if filepath.Base(f) == "glossary.md" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts["docs/ja/"+filepath.Base(f)] = string(b)
	}
	return texts
}

// One English term has one Japanese translation everywhere a person reads
// Japanese (docs/ja/glossary.md): no catalog entry, lesson, tutor reply or
// Japanese doc uses a translation the glossary rules out; a catalog entry whose English
// is the term itself says the glossary's word; and each glossary word is
// used, so the table cannot drift from the catalog.
func TestOneTermOneTranslation(t *testing.T) {
	texts := japaneseTexts(t)
	all := japanese()
	for _, tm := range glossary(t) {
		used := false
		for where, text := range texts {
			for _, a := range tm.avoid {
				if strings.Contains(text, a) {
					t.Errorf("%s says %q for %q; the glossary's word is %q", where, a, tm.en, tm.ja)
				}
			}
			used = used || strings.Contains(text, tm.ja)
		}
		if !used {
			t.Errorf("the glossary's %q for %q appears nowhere in the catalog, the lessons, the tutor or the docs", tm.ja, tm.en)
		}
		if ja, ok := all[tm.en]; ok && !strings.Contains(ja, tm.ja) {
			t.Errorf("the catalog says %q for %q; the glossary's word is %q", ja, tm.en, tm.ja)
		}
	}
}
