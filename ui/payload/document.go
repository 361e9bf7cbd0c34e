package payload

import (
	"math"
	"strings"
	"unsafe"

	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// The pane is built in two steps. First the exchange becomes a document:
// logical lines of inked spans, independent of width and colours. Then the
// document is wrapped to the pane's width and painted (wrap.go). Each step
// is cached separately, so a resize only re-wraps.

// ink names the role of a piece of text; the theme decides how it looks.
type ink uint8

const (
	inkPlain ink = iota
	inkMuted
	inkBold
	inkTitle
	inkKey
	inkString
	inkNumber
	inkBool
	inkNull
	inkPunct
	inkRedacted
	inkError
	inkWarning
	inkSuccess
	inkCount // the number of inks; not an ink
)

// style is the theme's style for an ink.
func (k ink) style(th theme.Theme) lipgloss.Style {
	switch k {
	case inkMuted:
		return th.Muted
	case inkBold:
		return th.Bold
	case inkTitle:
		return th.Title
	case inkKey:
		return th.JSONKey
	case inkString:
		return th.JSONString
	case inkNumber:
		return th.JSONNumber
	case inkBool:
		return th.JSONBool
	case inkNull:
		return th.JSONNull
	case inkPunct:
		return th.JSONPunct
	case inkRedacted:
		return th.Redacted
	case inkError:
		return th.Error
	case inkWarning:
		return th.Warning
	case inkSuccess:
		return th.Success
	}
	return lipgloss.NewStyle()
}

// span is a piece of text in one ink. The text is already safe to print:
// no control characters, valid UTF-8. It is held as a pointer and a length
// (16 bytes, not a string header and an ink's 24): a late request in a long
// session is megabytes of JSON, hundreds of thousands of spans, nearly all
// of them pieces of the body itself.
type span struct {
	p   *byte
	n   uint32
	ink ink
}

func newSpan(k ink, text string) span {
	return span{p: unsafe.StringData(text), n: uint32(len(text)), ink: k}
}

// text is the span's text.
func (sp span) text() string { return unsafe.String(sp.p, int(sp.n)) }

// line is one logical line: its indentation, the indentation of its
// continuation lines when it wraps, and where its spans start in the
// document's span list (they end where the next line's start).
type line struct {
	first        uint32
	indent, hang uint16
}

// document is the whole pane before wrapping. All lines share one list of
// spans (a line's spans are contiguous), which keeps a 1 MiB body down to a
// few large allocations.
type document struct {
	lines []line
	spans []span
	lang  lang.Lang // the language of the pane's own words
}

// spansOf returns the spans of line i.
func (d *document) spansOf(i int) []span {
	end := len(d.spans)
	if i+1 < len(d.lines) {
		end = int(d.lines[i+1].first)
	}
	return d.spans[d.lines[i].first:end]
}

// newLine starts a line indented by indent cells whose continuations hang
// at hang cells (at most 65,535: no pane is that wide).
func (d *document) newLine(indent, hang int) {
	d.lines = append(d.lines, line{first: uint32(len(d.spans)), indent: cells(indent), hang: cells(hang)})
}

func cells(n int) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }

// add appends a span to the last line.
func (d *document) add(k ink, text string) {
	for len(text) > math.MaxInt32 { // not in practice: bodies are capped far below
		d.spans = append(d.spans, newSpan(k, text[:math.MaxInt32]))
		text = text[math.MaxInt32:]
	}
	d.spans = append(d.spans, newSpan(k, text))
}

// put appends text in ink to the current line (starting one if needed).
// Control characters and invalid bytes are escaped, and every [REDACTED]
// mark gets the Redacted ink, wherever it appears.
func (d *document) put(k ink, text string) {
	if text == "" {
		return
	}
	if len(d.lines) == 0 {
		d.newLine(0, 0)
	}
	text = clean(text)
	for {
		i := strings.Index(text, providers.RedactedMark)
		if i < 0 || k == inkRedacted {
			break
		}
		if i > 0 {
			d.add(k, text[:i])
		}
		d.add(inkRedacted, providers.RedactedMark)
		text = text[i+len(providers.RedactedMark):]
	}
	if text != "" {
		d.add(k, text)
	}
}

// line writes a whole line of one ink.
func (d *document) line(k ink, text string) {
	d.newLine(0, 0)
	d.put(k, text)
}

// blank writes an empty line.
func (d *document) blank() { d.newLine(0, 0) }

// text writes multi-line text, one logical line per line of s, indented.
// A trailing newline does not make an empty last line; CRLF counts as one
// line break.
func (d *document) text(k ink, s string, indent int) {
	s = strings.TrimSuffix(s, "\n")
	for {
		l, rest, more := strings.Cut(s, "\n")
		d.newLine(indent, indent)
		d.put(k, strings.TrimSuffix(l, "\r"))
		if !more {
			return
		}
		s = rest
	}
}

// clean makes s safe to print in a terminal as one line of the pane:
// loop.Printable's visible escapes, a newline shown as \x0a, tabs as four
// spaces. Clean text is returned as is.
func clean(s string) string {
	s = loop.Printable(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", `\x0a`, "\t", "    ").Replace(s)
	}
	return s
}
