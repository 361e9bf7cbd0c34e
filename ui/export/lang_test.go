package export

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// blocks are the texts of a page's <pre> elements: the diagram, the
// payloads, History, the facts' blocks — what the session holds.
func blocks(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(*html.Node)
	text := func(n *html.Node) string {
		var b strings.Builder
		var rec func(*html.Node)
		rec = func(n *html.Node) {
			if n.Type == html.TextNode {
				b.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				rec(c)
			}
		}
		rec(n)
		return b.String()
	}
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "pre" {
			out = append(out, text(n))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// A handout in Japanese: its headings and labels are, and it says so to the
// browser; what the session holds is the same as on the English page.
func TestHandoutInJapanese(t *testing.T) {
	path := lessonSession(t, "write-file", "y\n")
	en := render(t, path, Options{Step: 4, Format: HTML}) + render(t, path, Options{Step: 3, Format: HTML})
	ja := render(t, path, Options{Step: 4, Format: HTML, Lang: lang.JA}) + render(t, path, Options{Step: 3, Format: HTML, Lang: lang.JA})
	if !strings.Contains(en, `<html lang="en">`) || !strings.Contains(ja, `<html lang="ja">`) {
		t.Fatalf("the pages do not say their language:\n%s", ja[:200])
	}
	for _, want := range []string{"glassbox 配布資料: ステップ 4 / 10", "<dt>セッション</dt>", "このステップ時点の履歴", "リクエストボディ:", "この反復のツール呼び出し", "REQUIRE_USER_CONFIRMATION — ルール changes-need-approval", "<th>判定</th>"} {
		if !strings.Contains(ja, want) {
			t.Errorf("the Japanese page lacks %q", want)
		}
	}
	for _, english := range []string{"History as of this step", "Request body:", "Tool calls of this iteration", "<dt>Session</dt>"} {
		if strings.Contains(ja, english) {
			t.Errorf("English %q left on the Japanese page", english)
		}
	}
	if !strings.Contains(ja, "<h4>生の HTTP 通信: ") {
		t.Error("step 3's payload is not on the Japanese page")
	}
	be, bj := blocks(t, en), blocks(t, ja)
	if len(be) == 0 || len(be) != len(bj) {
		t.Fatalf("%d blocks in English, %d in Japanese", len(be), len(bj))
	}
	picture := func(b string) string {
		// The state machine's drawing is the same picture; the lines
		// under it (the last transition, what happens now) are the
		// glass box's words, in the page's language.
		if strings.Contains(b, "─max_iterations─▶") {
			b, _, _ = strings.Cut(b, "\n\n")
		}
		return stable(b)
	}
	for i := range be {
		if picture(be[i]) != picture(bj[i]) {
			t.Errorf("block %d differs by language:\nen: %s\nja: %s", i, be[i], bj[i])
		}
	}
	md := render(t, path, Options{Format: Markdown, Lang: lang.JA})
	for _, want := range []string{"# glassbox 配布資料: セッション全体(10 ステップ)", "- セッション: ", "### タイムライン", "| # | 遷移元 | エッジ | 遷移先 | 起きたこと |", "### 履歴"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Japanese Markdown lacks %q:\n%s", want, md)
		}
	}
	golden(t, "write-file-step3.ja.html", stable(render(t, path, Options{Step: 3, Format: HTML, Lang: lang.JA})))
	golden(t, "write-file-whole.ja.md", stable(md))
}
