package export

import (
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	anatomycmd "github.com/glassbox-dev/glassbox/ui/anatomy"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A handout shows each model call's request the way the glass box's
// Anatomy pane does (docs/anatomy.md): what it is made of, kind by kind
// and part by part, the tokens with where each figure comes from, and
// what it kept from the call before; and, for a run, how its requests
// grow — a table, and in HTML an inline SVG chart (no script, nothing
// fetched: the page's Content-Security-Policy stays as it is).

// anatomyPage is one model call's request on a page.
type anatomyPage struct {
	Head   string // "Anatomy of the request: call 2"
	Call   int    // which call of the run (1, 2, …)
	About  string // "FAMILY · MODEL · 3,681 bytes in 25 parts"
	Unread string // why the request could not be read ("" when it was)
	Kinds  []kindRow
	Parts  []partRow
	Tokens []tokenRow
	Since  string // what it did with the call before
	Breaks bool   // the cache breaks (Since says where)
}

type kindRow struct {
	Kind, Parts, Bytes, Tokens string
	Share                      int // percent of the request's bytes
}

type partRow struct{ Kind, Label, Bytes, Tokens string }

// tokenRow is one token figure and where it comes from.
type tokenRow struct{ Label, N, Source string }

// growthPage is how a run's requests grew, call by call.
type growthPage struct {
	Rows  []growthRow
	Sum   string // what the run sent in all
	Chart chart
}

type growthRow struct {
	Call, Step                       int
	Bytes, Estimated, Reported       string
	Kept, Appended, Breaks, BarChars string
}

// chart is the growth as an inline SVG bar chart: its size, the largest
// value on the axis, and one bar per call (narrower the more calls there
// are: the chart is at most 720 pixels wide).
type chart struct {
	W, H, Base int
	Max        string
	Bars       []bar
}

type bar struct {
	X, Y, W, H float64
	Label      string // the call's number, under the bar ("" where they would crowd)
	Title      string // the figures, as the bar's tooltip
}

// runAnatomy reads the requests of the model calls among steps ts[:last]
// (exchanges loaded by load) and returns each call step's page, by the
// step's index, and the run's growth.
func runAnatomy(l lang.Lang, ts []loop.Transition, last int, load func(i int) (*providers.Exchange, error), c clean) (map[int]*anatomyPage, *growthPage, error) {
	pages := map[int]*anatomyPage{}
	var calls []anatomy.Call
	var rows []growthRow
	var prev *anatomy.Call
	for i, t := range ts[:last] {
		if t.LLM == nil {
			continue
		}
		x, err := load(i)
		if err != nil {
			return nil, nil, err
		}
		p := &anatomyPage{Call: len(pages) + 1, Head: l.F("Anatomy of the request: call %d", len(pages)+1)}
		pages[i] = p
		if x == nil {
			p.Unread = l.T("This model call has no captured HTTP exchange (the provider did not reach the wire).")
			prev = nil
			continue
		}
		a, ok, err := anatomy.FromExchange(backend.Wire(), *x)
		switch {
		case err != nil:
			p.Unread = l.F("glassbox could not read this request: %s", c.s(err.Error()))
		case !ok:
			p.Unread = l.Dyn("not a model call of any dialect glassbox reads")
		}
		if p.Unread != "" {
			prev = nil
			continue
		}
		var since *anatomy.Change
		if prev != nil {
			ch := anatomy.Between(*prev, a)
			since = &ch
		}
		p.fill(l, a, since, len(calls) > 0, c)
		calls = append(calls, a)
		rows = append(rows, growthRowOf(l, p.Call, t.Seq, a, since))
		prev = &a
	}
	if len(calls) == 0 {
		return pages, nil, nil
	}
	return pages, growthOf(l, rows, calls), nil
}

// fill lays call a out on the page.
func (p *anatomyPage) fill(l lang.Lang, a anatomy.Call, since *anatomy.Change, after bool, c clean) {
	about := []string{c.s(a.Family)}
	if a.Dialect != "" && a.Dialect != a.Family {
		about = append(about, c.s(a.Dialect))
	}
	if a.Model != "" {
		about = append(about, c.s(a.Model))
	}
	p.About = strings.Join(about, " · ") + " · " + l.F("%s bytes in %d parts", num(a.Bytes), len(a.Parts))
	for _, k := range a.Kinds {
		p.Kinds = append(p.Kinds, kindRow{Kind: string(k.Kind), Parts: fmt.Sprint(k.Parts), Bytes: num(k.Bytes), Tokens: num(k.Tokens), Share: k.Bytes * 100 / max(a.Bytes, 1)})
	}
	for _, pt := range a.Parts {
		label := c.s(pt.Label)
		if pt.Message >= 0 {
			label = strings.TrimSuffix(l.F("message %d", pt.Message+1)+" · "+label, " · ")
		}
		p.Parts = append(p.Parts, partRow{Kind: string(pt.Kind), Label: label, Bytes: num(pt.Len()), Tokens: num(pt.Tokens)})
	}
	p.Tokens = tokenRows(l, a)
	p.Since, p.Breaks = sinceText(l, since, after, c)
}

// tokenRows are the request's token figures, each with where it comes
// from.
func tokenRows(l lang.Lang, a anatomy.Call) []tokenRow {
	rows := []tokenRow{{l.T("estimated"), num(a.Estimated.N), l.F("Estimated tokens: %s.", l.Dyn(anatomy.EstimateRule))}}
	if r := a.Reported; r != nil {
		src := l.F("reported by the provider in %s", r.Field)
		if r.Rule != "" {
			src += " — " + l.Dyn(r.Rule)
		}
		rows = append(rows, tokenRow{l.T("reported"), num(r.N), src},
			tokenRow{l.T("difference"), signedNum(*a.Difference), l.T("reported minus estimated: what the estimate does not know (the chat template, how tools are rendered, the tokenizer)")})
	} else {
		rows = append(rows, tokenRow{l.T("reported"), "–", l.T("the reply carried no count (an error, or a server that does not report one)")})
	}
	if ca := a.Cached; ca != nil {
		rows = append(rows, tokenRow{l.T("cached"), num(ca.N), l.F("served from the provider's prompt cache, reported in %s", ca.Field)})
	}
	return append(rows, tokenRow{l.T("counted"), "–", l.T("no tokenizer for these model families runs offline in Go")})
}

// sinceText says what a call did with the call before, and whether the
// prompt cache breaks.
func sinceText(l lang.Lang, ch *anatomy.Change, after bool, c clean) (string, bool) {
	switch {
	case ch == nil && after:
		return l.T("The call before could not be read, so there is nothing to compare with."), false
	case ch == nil:
		return l.T("A provider's prompt cache has nothing to reuse yet: every part is new."), false
	}
	s := l.F("Since the call before: %d parts kept (%s bytes), %d appended (%s bytes).", ch.Kept.Parts, num(ch.Kept.Bytes), ch.Appended.Parts, num(ch.Appended.Bytes))
	if at := ch.BreaksAt; at != nil {
		s += " " + l.F("The cache breaks at %s: from there on nothing can come from the cache.", piece(l, *at, c))
	} else {
		s += " " + l.T("The cache does not break: this call only appends to the one before.")
	}
	if ch.Cached != nil {
		s += " " + l.F("The provider served %s input tokens from its cache (%s).", num(ch.Cached.N), ch.Cached.Field)
	}
	return s, ch.BreaksAt != nil
}

// piece names a part of the prompt.
func piece(l lang.Lang, at anatomy.Piece, c clean) string {
	switch {
	case at.Message >= 0:
		return l.F("message %d (%s)", at.Message+1, at.Kind)
	case at.Label != "":
		return string(at.Kind) + " " + c.s(at.Label)
	}
	return string(at.Kind)
}

// growthRowOf is one call's line of the growth table.
func growthRowOf(l lang.Lang, n, step int, a anatomy.Call, since *anatomy.Change) growthRow {
	row := growthRow{Call: n, Step: step, Bytes: num(a.Bytes), Estimated: num(a.Estimated.N), Reported: "–", Kept: "–", Appended: "–", Breaks: "–"}
	if r := a.Reported; r != nil {
		row.Reported = num(r.N)
	}
	if since != nil {
		row.Kept, row.Appended = num(since.Kept.Bytes), num(since.Appended.Bytes)
		if at := since.BreaksAt; at != nil {
			row.Breaks = string(at.Kind)
			if at.Message >= 0 {
				row.Breaks = l.F("message %d (%s)", at.Message+1, at.Kind)
			}
		}
	}
	return row
}

// growthOf is the run's growth: the table's rows with a text bar each,
// the sum sent, and the chart.
func growthOf(l lang.Lang, rows []growthRow, calls []anatomy.Call) *growthPage {
	most, sum := 1, 0
	for _, c := range calls {
		most = max(most, c.Bytes)
		sum += c.Bytes
	}
	const h, base, left = 120.0, 140, 56.0
	step := min(24, 720/float64(len(calls)))
	ch := chart{W: int(left + step*float64(len(calls)) + 8), H: base + 20, Base: base, Max: num(most)}
	every := max(1, int(24/step)) // a number under every call while they do not crowd
	for i, c := range calls {
		bh := max(float64(c.Bytes)*h/float64(most), 1)
		rows[i].BarChars = strings.Repeat("█", max(c.Bytes*20/most, 1))
		b := bar{X: left + float64(i)*step, Y: base - bh, W: step * 0.75, H: bh,
			Title: l.F("call %d: %s bytes, %s tokens estimated", i+1, num(c.Bytes), num(c.Estimated.N))}
		if i%every == 0 || i == len(calls)-1 {
			b.Label = fmt.Sprint(i + 1)
		}
		ch.Bars = append(ch.Bars, b)
	}
	return &growthPage{Rows: rows, Chart: ch,
		Sum: l.F("Sent over the run so far: %s bytes in %d calls — the sum grows with the square of the conversation's length.", num(sum), len(calls))}
}

// signedNum writes n with its sign and thousands separators: "+7,006".
func signedNum(n int) string {
	if n < 0 {
		return "-" + num(-n)
	}
	return "+" + num(n)
}

// num writes n with thousands separators, as the glass box does.
func num(n int) string { return anatomycmd.Num(n) }
