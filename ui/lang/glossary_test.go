package lang

import (
	"os"
	"path/filepath"
	"regexp"
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
// Japanese docs (all but the glossary, which names the words to avoid)
// without their code: a fenced block or a code span quotes a screen, a
// command or a name as it is, not the docs' own Japanese.
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
		texts["docs/ja/"+filepath.Base(f)] = withoutCode(string(b))
	}
	return texts
}

// withoutCode is a Markdown page with its fenced blocks and code spans
// blanked out.
func withoutCode(md string) string {
	lines := strings.Split(md, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			lines[i] = ""
		default:
			lines[i] = withoutCodeSpans(line)
		}
	}
	return strings.Join(lines, "\n")
}

// withoutCodeSpans is a line with its code spans (a run of backticks, up to
// the next run of the same length) taken out; a run with no partner stays.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for {
		open := strings.Index(line, "`")
		if open < 0 {
			return b.String() + line
		}
		n := len(line[open:]) - len(strings.TrimLeft(line[open:], "`"))
		run := line[open : open+n]
		end := closingRun(line[open+n:], run)
		if end < 0 {
			b.WriteString(line[:open+n])
			line = line[open+n:]
			continue
		}
		b.WriteString(line[:open])
		line = line[open+n+end+n:]
	}
}

// closingRun is where in s a run of backticks exactly like run starts, or -1.
func closingRun(s, run string) int {
	for at := 0; at < len(s); {
		i := strings.Index(s[at:], run)
		if i < 0 {
			return -1
		}
		i += at
		if i+len(run) == len(s) || s[i+len(run)] != '`' {
			return i
		}
		at = len(s) - len(strings.TrimLeft(s[i:], "`")) // past this longer run
	}
	return -1
}

// withoutGlosses is text with each gloss of tm's Japanese taken out: a
// word the glossary rules out, in parentheses right after the glossary's
// word (生ペイロード（Raw payload）, **履歴**（History）), names the term for a
// reader of the English screen and is no second translation.
func withoutGlosses(text string, tm term) string {
	for _, a := range tm.avoid {
		gloss := regexp.MustCompile(regexp.QuoteMeta(tm.ja) + `(\*\*)? ?[（(]` + regexp.QuoteMeta(a) + `[）)]`)
		text = gloss.ReplaceAllString(text, tm.ja+"$1")
	}
	return text
}

// says is where text first uses the word a, or -1: anywhere for Japanese,
// as a whole word for English (History, not HistoryAt or TestHistory).
func says(text, a string) int {
	for at := 0; ; {
		i := strings.Index(text[at:], a)
		if i < 0 {
			return -1
		}
		i += at
		if !wordChar(a[0]) || ((i == 0 || !wordChar(text[i-1])) && (i+len(a) == len(text) || !wordChar(text[i+len(a)]))) {
			return i
		}
		at = i + 1
	}
}

// wordChar: an ASCII letter, digit or underscore.
func wordChar(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
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
			prose := withoutGlosses(text, tm)
			for _, a := range tm.avoid {
				if at := says(prose, a); at >= 0 {
					t.Errorf("%s line %d says %q for %q; the glossary's word is %q", where, strings.Count(prose[:at], "\n")+1, a, tm.en, tm.ja)
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

// The glossary's check reads a Japanese doc as a person reads its prose:
// a screen in a fenced block, a code span and an English gloss right after
// the Japanese word are not the doc's own words; a pane called by its
// English name in a sentence is.
func TestGlossaryReadsProse(t *testing.T) {
	raw := term{en: "Raw payload", ja: "生ペイロード", avoid: []string{"Raw payload"}}
	quiet := "## 生ペイロード（Raw payload）\n\n" +
		"**生ペイロード** (Raw payload) と生ペイロード(Raw payload)。\n" +
		"```\n╭─ Raw payload ─╮\n```\n" +
		"  ~~~text\n  Raw payload\n  ~~~\n" +
		"`Raw payload` と ``a ` Raw payload`` と `TestRawPayload`、RawPayloadX。\n"
	if at := says(withoutGlosses(withoutCode(quiet), raw), "Raw payload"); at >= 0 {
		t.Errorf("flagged where a person reads no prose, at %d of:\n%s", at, withoutGlosses(withoutCode(quiet), raw))
	}
	for _, loud := range []string{
		"Raw payload ペインに出ます。",
		"生ペイロードペインと Raw payload に出ます。",
		"```\ncode\n```\nその後の Raw payload に。",
		"`code` の Raw payload に、`x`",
		"（Raw payload）だけ",
		"一つの ` だけの行の Raw payload",
	} {
		if says(withoutGlosses(withoutCode(loud), raw), "Raw payload") < 0 {
			t.Errorf("not flagged: %q", loud)
		}
	}
}
