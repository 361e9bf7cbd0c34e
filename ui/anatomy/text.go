package anatomy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// text lays the report out for a terminal: each call by kind (or part by
// part for one step), what it kept from the call before, the growth.
func (r *Report) text(l lang.Lang) string {
	var b strings.Builder
	if r.Run != "" {
		fmt.Fprintf(&b, "%s\n", l.F("glassbox anatomy: %s · run %s · %d model calls", loop.Printable(r.File), loop.Printable(r.Run), len(r.Growth)))
	} else {
		fmt.Fprintf(&b, "%s\n", l.F("glassbox anatomy: %s · %d model calls", loop.Printable(r.File), len(r.Growth)))
	}
	for _, c := range r.Calls {
		b.WriteString("\n")
		c.write(&b, l)
	}
	if len(r.Growth) > 1 {
		b.WriteString("\n" + l.T("How the requests grow (bytes sent per call; every call sends the whole conversation again):") + "\n")
		growth(&b, r.Growth)
	}
	for _, u := range r.Unread {
		why := u.Error
		if why == "" {
			why = l.T("not a model call of any dialect glassbox reads")
		}
		b.WriteString("\n" + l.F("not read: %s: %s", u.Call, why) + "\n")
	}
	b.WriteString("\n" + l.F("Estimated tokens: %s.", l.Dyn(anatomy.EstimateRule)) + "\n")
	b.WriteString(l.T("No tokenizer for these model families runs offline in Go, so no figure is counted; the provider's own count, when it reports one, is shown beside the estimate.") + "\n")
	return b.String()
}

func (c Call) write(b *strings.Builder, l lang.Lang) {
	head := []string{l.F("call %d", c.N)}
	if c.Step > 0 {
		head = append(head, l.F("step %d", c.Step))
	}
	head = append(head, c.Dialect, loop.Printable(c.Model), l.F("%s bytes", Num(c.Bytes)))
	fmt.Fprintf(b, "%s\n", strings.Join(head, " · "))
	if len(c.Parts) > 0 {
		for _, p := range c.Parts {
			fmt.Fprintf(b, "  %-12s %-26s %10s %8s\n", p.Kind, clip(loop.Printable(p.Label), 26), Num(p.Len()), Num(p.Tokens))
		}
	} else {
		for _, k := range c.Kinds {
			fmt.Fprintf(b, "  %-12s %-26s %10s %8s\n", k.Kind, l.F("%d parts", k.Parts), Num(k.Bytes), Num(k.Tokens))
		}
	}
	fmt.Fprintf(b, "  %-39s %10s %8s %s\n", l.T("total"), Num(c.Bytes), Num(c.Estimated.N), l.T("estimated"))
	if r := c.Reported; r != nil {
		fmt.Fprintf(b, "  %s\n", l.F("reported by the provider: %s input tokens (%s), %s output; estimate %+d", Num(r.N), r.Field, Num(c.Output.N), -*c.Difference))
		if r.Rule != "" {
			fmt.Fprintf(b, "  %s\n", l.Dyn(r.Rule))
		}
	}
	if cached := c.Cached; cached != nil {
		fmt.Fprintf(b, "  %s\n", l.F("served from the provider's prompt cache: %s input tokens (%s)", Num(cached.N), cached.Field))
	}
	if s := c.Since; s != nil {
		line := l.F("since the call before: %d parts kept (%s bytes), %d appended (%s bytes)", s.Kept.Parts, Num(s.Kept.Bytes), s.Appended.Parts, Num(s.Appended.Bytes))
		if at := s.BreaksAt; at != nil {
			where := string(at.Kind)
			if at.Message >= 0 {
				where = l.F("message %d (%s)", at.Message+1, at.Kind)
			} else if at.Label != "" {
				where += " " + loop.Printable(at.Label)
			}
			line += "; " + l.F("the cache breaks at %s: %d parts after it changed", where, s.Changed.Parts)
		}
		fmt.Fprintf(b, "  %s\n", line)
	}
}

// growth draws the bytes of each call as a bar.
func growth(b *strings.Builder, points []anatomy.Point) {
	most := 1
	for _, p := range points {
		most = max(most, p.Bytes)
	}
	const width = 40
	for _, p := range points {
		n := p.Bytes * width / most
		fmt.Fprintf(b, "  %4d %10s %s\n", p.Call, Num(p.Bytes), strings.Repeat("█", max(n, 1)))
	}
}

// Num writes n with thousands separators: 46,866 (a screen and a page
// write every byte and token count so).
func Num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
