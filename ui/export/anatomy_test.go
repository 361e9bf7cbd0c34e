package export

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A handout shows each model call's request as the Anatomy pane does: a
// step's page the call's kinds, its token figures each with where it comes
// from, what it kept from the call before and every part; the whole
// session's page how the requests grew, a table and (HTML) an inline SVG
// chart under the page's own Content-Security-Policy, with no script.
func TestHandoutShowsTheAnatomy(t *testing.T) {
	path := lessonSession(t, "tour", "")
	md := render(t, path, Options{Step: 13, Format: Markdown})
	for _, want := range []string{
		"#### Anatomy of the request: call 3",
		"`gemini · gemini-2.5-flash · 3,681 bytes in 25 parts`",
		"| `tool` | 5 | 2,266 | 473 | 61 % |",
		"| estimated | 754 | Estimated tokens: about one token per 4 ASCII characters",
		"| reported | 920 | reported by the provider in usageMetadata.promptTokenCount — the offline simulation reports a quarter",
		"| difference | +166 |",
		"| counted | – | no tokenizer",
		"Since the call before: 9 parts kept (3,210 bytes), 2 appended (386 bytes). The cache does not break",
		"| `tool_result` | `message 3 · user` | 133 | 24 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("step 13 lacks %q", want)
		}
	}
	if step1 := render(t, path, Options{Step: 1, Format: Markdown}); strings.Contains(step1, "Anatomy of the request") {
		t.Error("a step with no model call shows an anatomy")
	}
	whole := render(t, path, Options{Format: Markdown})
	for _, want := range []string{
		"### Growth: every call sends the whole conversation again",
		"| 1 | 3 | 2,983 | 621 | 745 | – | – | – | ████████████████ |",
		"| 3 | 13 | 3,681 | 754 | 920 | 3,210 | 386 | – | ████████████████████ |",
		"Sent over the run so far: 9,957 bytes in 3 calls",
	} {
		if !strings.Contains(whole, want) {
			t.Errorf("the whole session lacks %q", want)
		}
	}
	if strings.Count(whole, "#### Anatomy of the request: call") != 3 || strings.Contains(whole, "Part by part") {
		t.Error("the whole session's steps: an anatomy per call, without the parts")
	}
	page := render(t, path, Options{Format: HTML})
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Fatal("the page's Content-Security-Policy changed")
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	rects, svgs := 0, 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "svg":
				svgs++
			case "rect":
				rects++
			case "script", "img", "link", "object", "iframe", "use", "image":
				t.Errorf("a <%s> element on the page", n.Data)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "href" || a.Key == "src" || strings.HasSuffix(a.Key, "href") {
					t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if svgs != 1 || rects != 3 {
		t.Fatalf("the growth chart: %d svg, %d bars", svgs, rects)
	}
	ja := render(t, path, Options{Step: 13, Format: HTML, Lang: lang.JA})
	for _, want := range []string{"リクエストの解剖: 呼び出し 3", "何でできているか (トークンは推定)", "<th>出どころ</th>", "前の呼び出しから: 9 部分はそのまま"} {
		if !strings.Contains(ja, want) {
			t.Errorf("the Japanese page lacks %q", want)
		}
	}
}

// Many calls make a chart no wider than 720 pixels, its bars narrower,
// numbered where the numbers do not crowd, the last call always.
func TestGrowthChartStaysNarrow(t *testing.T) {
	rows := make([]growthRow, 300)
	calls := make([]anatomy.Call, 300)
	for i := range calls {
		calls[i].Bytes = 1000 + 10*i
	}
	g := growthOf(lang.EN, rows, calls)
	if g.Chart.W > 720+56+8 || len(g.Chart.Bars) != 300 || g.Chart.Bars[299].Label != "300" || g.Chart.Bars[1].Label != "" {
		t.Fatalf("chart %d wide, %d bars, last %q, second %q", g.Chart.W, len(g.Chart.Bars), g.Chart.Bars[299].Label, g.Chart.Bars[1].Label)
	}
}
