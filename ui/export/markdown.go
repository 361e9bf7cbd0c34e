package export

import (
	"bytes"
	"fmt"
	"strings"
)

// writeMarkdown draws p as Markdown that reads well in a plain viewer.
// Text from the session never reaches the page as Markdown or HTML: a line
// goes into a code span, a block into a code fence, each longer than any
// run of backticks inside it, so nothing in a tool result can close it.
func writeMarkdown(b *bytes.Buffer, p *page) {
	L := p.L
	fmt.Fprintf(b, "# %s\n\n", plainLine(p.Title))
	fmt.Fprintf(b, "- %s: %s\n- %s: %s\n", L.Session, span(p.Session), L.Started, p.Started)
	if p.Request != "" {
		fmt.Fprintf(b, "- %s: %s\n", L.FirstRequest, span(p.Request))
	}
	fmt.Fprintf(b, "- %s: %s\n", L.Health, p.Health)
	for _, r := range p.Runs {
		b.WriteString("\n")
		if r.Name != "" {
			fmt.Fprintf(b, "## %s %s\n\n", L.Run, span(r.Name))
		} else {
			fmt.Fprintf(b, "## %s\n\n", L.Run)
		}
		fmt.Fprintf(b, "%s · %s\n\n", span(r.About), r.Count)
		if p.Whole {
			writeTimeline(b, L, r.Timeline)
		}
		for _, s := range r.Steps {
			writeStepMarkdown(b, L, s)
		}
		if !p.Whole && len(r.Steps) == 0 {
			b.WriteString(L.Ended + "\n\n")
		}
		if p.Whole {
			fmt.Fprintf(b, "### %s\n\n", L.History)
		} else {
			fmt.Fprintf(b, "### %s\n\n", L.HistoryAsOf)
		}
		if len(r.History) == 0 {
			b.WriteString(L.Empty + "\n\n")
		}
		for _, m := range r.History {
			fmt.Fprintf(b, "%s\n\n", span(m.Role))
			fence(b, "", m.Text)
		}
	}
}

func writeTimeline(b *bytes.Buffer, L labels, rows []row) {
	fmt.Fprintf(b, "### %s\n\n| %s |\n|---:|---|---|---|---|\n", L.Timeline, strings.Join(L.TimelineHead[:], " | "))
	for _, r := range rows {
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s |\n", r.Seq, span(r.From), span(r.Edge), span(r.To), cellText(span(r.Notes)))
	}
	b.WriteString("\n")
}

func writeStepMarkdown(b *bytes.Buffer, L labels, s stepPage) {
	fmt.Fprintf(b, "### %s %d: %s\n\n", L.Step, s.Seq, span(s.Arc))
	fmt.Fprintf(b, "%s %d · %s\n\n", L.Iteration, s.Iteration, s.Time)
	fence(b, "text", s.Diagram)
	inList := false
	for _, f := range s.Facts {
		if f.Block {
			if inList {
				b.WriteString("\n") // the list ends before the block
			}
			inList = false
			fmt.Fprintf(b, "%s:\n\n", f.Label)
			fence(b, "", f.Text)
			continue
		}
		fmt.Fprintf(b, "- %s: %s\n", f.Label, span(f.Text))
		inList = true
	}
	if inList {
		b.WriteString("\n")
	}
	if len(s.Calls) > 0 {
		fmt.Fprintf(b, "#### %s\n\n| %s |\n|---|---|---|---|---|---|---|\n", L.CallsHead, strings.Join(L.CallsColumns[:], " | "))
		for _, c := range s.Calls {
			verdict := c.Verdict
			if c.Approval != "" {
				verdict += " → " + c.Approval
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", cellText(span(c.Name)), cellText(span(c.Args)), cellText(span(verdict)),
				cellText(span(c.Rule)), cellText(span(c.Reason)), cellText(span(c.Status)), cellText(span(c.Result)))
		}
		b.WriteString("\n")
	}
	for i, x := range s.Payloads {
		fmt.Fprintf(b, "#### %s %d: %s\n\n%s", L.Exchange, i+1, span(x.Title), x.Timing)
		if x.Redacted != "" {
			fmt.Fprintf(b, " · %s: %s", L.Masked, span(x.Redacted))
		}
		fmt.Fprintf(b, "\n\n%s:\n\n", L.RequestHeaders)
		fence(b, "http", x.RequestHeaders)
		fmt.Fprintf(b, "%s:\n\n", L.RequestBody)
		fence(b, "json", x.RequestBody)
		if x.ResponseHeaders != "" {
			fmt.Fprintf(b, "%s:\n\n", L.ResponseHeaders)
			fence(b, "http", x.ResponseHeaders)
		}
		fmt.Fprintf(b, "%s:\n\n", L.ResponseBody)
		fence(b, "json", x.ResponseBody)
	}
}

// fence writes text as a fenced code block whose fence is longer than any
// run of backticks in it.
func fence(b *bytes.Buffer, lang, text string) {
	f := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", f, lang, text, f)
}

// span is text as an inline code span: on one line, delimited by more
// backticks than it holds, padded when it starts or ends with one.
func span(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return ""
	}
	d := strings.Repeat("`", longestRun(text, '`')+1)
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " "
	}
	return d + text + d
}

// cellText makes a code span fit a table cell: a pipe would end the cell
// even inside a code span (GFM), so it is escaped.
func cellText(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// plainLine is glassbox's own text (never the session's) on one line.
func plainLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
