package main

// The docs cannot drift: these tests read README.md, docs/*.md and
// docs/ja/*.md and hold them to the program. Every relative link and anchor
// resolves (TestDocLinks); every flag and subcommand the binary's help lists
// is documented in English and in Japanese, and every one the docs use
// exists (TestDocFlags); every quote a marker names is checked against the
// screen, the output or the trace it claims to come from (TestDocQuotes, in
// docs_quotes_test.go). docs/README.md, "Docs that cannot drift", says how
// to mark a quote.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the repository, where the tests start (isolate moves them).
var repoRoot, _ = os.Getwd()

// page is one Markdown file of the docs, read once.
type page struct {
	path  string // relative to the repository: "docs/ja/ui-tour.md"
	lines []string
	fence []bool // line i is inside a fenced block, or is one of its fences
	ja    bool
}

// docPages reads README.md, docs/*.md and docs/ja/*.md.
func docPages(t *testing.T) []*page {
	t.Helper()
	paths := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "docs/ja/*.md"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(repoRoot, f)
			paths = append(paths, rel)
		}
	}
	var pages []*page
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		pg := &page{path: filepath.ToSlash(p), lines: strings.Split(string(b), "\n"), ja: strings.HasPrefix(p, "docs/ja/")}
		pg.fence = fences(pg.lines)
		pages = append(pages, pg)
	}
	if len(pages) < 30 {
		t.Fatalf("only %d pages found: run the tests from the repository's root", len(pages))
	}
	return pages
}

// fences marks the lines of fenced code blocks (``` or ~~~, indented or not).
func fences(lines []string) []bool {
	in := make([]bool, len(lines))
	open := ""
	for i, l := range lines {
		s := strings.TrimLeft(l, " ")
		switch {
		case open == "" && (strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~")):
			open = s[:3]
			in[i] = true
		case open != "":
			in[i] = true
			if strings.HasPrefix(s, open) && strings.Trim(s, open[:1]) == "" {
				open = ""
			}
		}
	}
	return in
}

// where is a place in a page, as an editor takes it.
func (p *page) where(line int) string { return fmt.Sprintf("%s:%d", p.path, line+1) }

// codeSpan is the text of an inline code span and the line it starts on.
type codeSpan struct {
	text   string
	line   int
	fenced bool // a line of a fenced block
}

// codeSpans are the inline code spans of lines[from:to] (a span may go on
// across a line break, as Markdown allows), their white space collapsed.
func codeSpans(lines []string, from, to int) []codeSpan {
	text := strings.Join(lines[from:to], "\n")
	var spans []codeSpan
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		tick := strings.Repeat("`", n)
		end := closingTicks(text[i+n:], tick)
		if end < 0 {
			i += n
			continue
		}
		body := strings.Join(strings.Fields(text[i+n:i+n+end]), " ")
		spans = append(spans, codeSpan{text: body, line: from + strings.Count(text[:i], "\n")})
		i += n + end + n
	}
	return spans
}

// closingTicks finds the run of exactly len(tick) backticks that closes a span.
func closingTicks(s, tick string) int {
	for off := 0; ; {
		j := strings.Index(s[off:], tick)
		if j < 0 {
			return -1
		}
		j += off
		if (j+len(tick) >= len(s) || s[j+len(tick)] != '`') && (j == 0 || s[j-1] != '`') {
			return j
		}
		for j < len(s) && s[j] == '`' {
			j++
		}
		off = j
	}
}

// prose is the line with its code spans blanked out: links and flags are
// read from what is left.
func prose(line string) string {
	out := []byte(line)
	for i := 0; i < len(out); {
		if out[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(out) && out[i+n] == '`' {
			n++
		}
		end := closingTicks(line[i+n:], strings.Repeat("`", n))
		if end < 0 {
			return string(out)
		}
		for k := i; k < i+n+end+n; k++ {
			out[k] = ' '
		}
		i += n + end + n
	}
	return string(out)
}

var (
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mdLink      = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	refLink     = regexp.MustCompile(`^\s*\[[^\]]+\]:\s+(\S+)`)
	inlineLink  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// anchors are the fragments GitHub gives the page's headings (and its
// explicit <a id> anchors).
func (p *page) anchors() map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for i, l := range p.lines {
		if p.fence[i] {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := headingLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		slug := githubSlug(m[2])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// githubSlug is the anchor GitHub makes of a heading (github-slugger): the
// rendered text lower-cased, every character that is not a letter, a mark,
// a number, '-', '_' or a space dropped, each space made a '-'.
func githubSlug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "__", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocLinks: every relative link of README and docs/ (en and ja) names a
// file or folder that exists, and every #anchor one of the target page's
// headings, by GitHub's rules.
func TestDocLinks(t *testing.T) {
	pages := docPages(t)
	anchors := map[string]map[string]bool{}
	for _, p := range pages {
		anchors[p.path] = p.anchors()
	}
	checked := 0
	for _, p := range pages {
		for i, l := range p.lines {
			if p.fence[i] {
				continue
			}
			for _, target := range links(prose(l)) {
				checked++
				if msg := checkLink(p.path, target, anchors); msg != "" {
					t.Errorf("%s: link %s: %s", p.where(i), target, msg)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d links found: the link pattern no longer matches the docs", checked)
	}
}

// links are the link targets on a line: [text](target) and [ref]: target.
func links(line string) []string {
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1])
	}
	if m := refLink.FindStringSubmatch(line); m != nil {
		out = append(out, m[1])
	}
	return out
}

// checkLink says what is wrong with a link from page from, or "".
func checkLink(from, target string, anchors map[string]map[string]bool) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, frag, _ := strings.Cut(target, "#")
	path := from
	if file != "" {
		path = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), file)))
		if _, err := os.Stat(filepath.Join(repoRoot, path)); err != nil {
			return fmt.Sprintf("no file %s", path)
		}
	}
	if frag == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	a, ok := anchors[path]
	if !ok {
		return fmt.Sprintf("%s is not one of the docs' pages, its anchors are not known", path)
	}
	if !a[frag] {
		return fmt.Sprintf("no heading of %s has the anchor #%s (the nearest: %s)", path, frag, nearest(frag, a))
	}
	return ""
}

// nearest is the anchor of a that shares the longest prefix with frag.
func nearest(frag string, a map[string]bool) string {
	best, n := "", -1
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i := 0
		for i < len(k) && i < len(frag) && k[i] == frag[i] {
			i++
		}
		if i > n {
			best, n = k, i
		}
	}
	return "#" + best
}
