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
			writeGrowthMarkdown(b, L, r.Growth)
		}
		for _, s := range r.Steps {
			writeStepMarkdown(b, L, s, !p.Whole)
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

func writeStepMarkdown(b *bytes.Buffer, L labels, s stepPage, parts bool) {
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
	if s.Anatomy != nil {
		writeAnatomyMarkdown(b, L, s.Anatomy, parts)
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

// writeAnatomyMarkdown is a model call's request: its kinds, its token
// figures with where each comes from, what it did with the call before,
// and (one step's page) every part.
func writeAnatomyMarkdown(b *bytes.Buffer, L labels, a *anatomyPage, parts bool) {
	fmt.Fprintf(b, "#### %s\n\n", plainLine(a.Head))
	if a.Unread != "" {
		fmt.Fprintf(b, "%s\n\n", span(a.Unread))
		return
	}
	fmt.Fprintf(b, "%s\n\n%s:\n\n| %s |\n|---|---:|---:|---:|---|\n", span(a.About), L.KindsHead, strings.Join(L.KindColumns[:], " | "))
	for _, k := range a.Kinds {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d %% |\n", span(k.Kind), k.Parts, k.Bytes, k.Tokens, k.Share)
	}
	fmt.Fprintf(b, "\n%s:\n\n| %s |\n|---|---:|---|\n", L.TokensHead, strings.Join(L.TokenColumns[:], " | "))
	for _, t := range a.Tokens {
		fmt.Fprintf(b, "| %s | %s | %s |\n", t.Label, t.N, cellText(plainLine(t.Source)))
	}
	fmt.Fprintf(b, "\n%s\n\n", plainLine(a.Since))
	if !parts {
		return
	}
	fmt.Fprintf(b, "%s:\n\n| %s |\n|---|---|---:|---:|\n", L.PartsHead, strings.Join(L.PartColumns[:], " | "))
	for _, p := range a.Parts {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", span(p.Kind), cellText(span(p.Label)), p.Bytes, p.Tokens)
	}
	b.WriteString("\n")
}

// writeGrowthMarkdown is how a run's requests grew: a table with a bar of
// each call's bytes.
func writeGrowthMarkdown(b *bytes.Buffer, L labels, g *growthPage) {
	if g == nil {
		return
	}
	fmt.Fprintf(b, "### %s\n\n| %s | |\n|---:|---:|---:|---:|---:|---:|---:|---|---|\n", L.GrowthHead, strings.Join(L.GrowthColumns[:], " | "))
	for _, r := range g.Rows {
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Call, r.Step, r.Bytes, r.Estimated, r.Reported, r.Kept, r.Appended, cellText(codeOr(r.Breaks)), r.BarChars)
	}
	fmt.Fprintf(b, "\n%s\n\n", plainLine(g.Sum))
}

// codeOr is s as a code span, or a dash as it is.
func codeOr(s string) string {
	if s == "–" {
		return s
	}
	return span(s)
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
