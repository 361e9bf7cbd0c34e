package payload

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/ui/theme"
)

// brushes holds one theme.Brush per ink.
type brushes [inkCount]theme.Brush

func newBrushes(th theme.Theme) *brushes {
	var b brushes
	for k := range b {
		b[k] = theme.NewBrush(ink(k).style(th))
	}
	return &b
}

// fingerprint identifies what the brushes paint: the codes of every ink.
// Two themes (or colour profiles) that paint alike share cached lines.
func (b *brushes) fingerprint() string {
	var s strings.Builder
	for _, br := range b {
		open, close := br.Codes()
		s.WriteString(open)
		s.WriteByte(0)
		s.WriteString(close)
		s.WriteByte(0)
	}
	return s.String()
}

// wrap breaks the document's lines at width cells and paints them. A line
// breaks after a space when there is one near the end, anywhere otherwise
// (a base64 signature or Japanese text has none); each piece is painted on
// its own, so every output line is self-contained.
// Indentation is capped at half the width so deep nesting stays readable.
func wrap(doc *document, width int, br *brushes) []string {
	if width <= 0 {
		return nil
	}
	// Every line is written into one buffer and handed out as a piece of
	// it: a megabyte request wraps into hundreds of thousands of lines, and
	// one allocation holds them all.
	ends := make([]int, 0, len(doc.lines)+len(doc.lines)/4)
	var b strings.Builder
	for i, l := range doc.lines {
		indent := min(int(l.indent), width/2)
		hang := min(int(l.hang), width/2)
		b.WriteString(spaces(indent))
		used := indent
		for _, sp := range doc.spansOf(i) {
			text := sp.text()
			for text != "" {
				if used >= width {
					ends = append(ends, b.Len())
					b.WriteString(spaces(hang))
					used = hang
				}
				piece, w := prefixFitting(text, width-used)
				if len(piece) < len(text) {
					piece, w = atSpace(piece, w, width-used)
					if used > hang && !strings.Contains(piece, " ") && wordFits(text, width-hang) {
						used = width // a short word starting late: move it down whole
						continue
					}
				}
				if piece == "" {
					if used > hang { // the next grapheme is too wide: new line
						used = width
						continue
					}
					// Too wide even for a fresh line (a wide rune in a
					// one-cell pane): show a one-cell stand-in.
					g, _ := firstGrapheme(text)
					piece, w = "…", 1
					text = text[len(g):]
					br[sp.ink].PaintTo(&b, piece)
					used += w
					continue
				}
				br[sp.ink].PaintTo(&b, piece)
				used += w
				text = text[len(piece):]
				if text != "" { // the span goes on: this line is full
					used = width
				}
			}
		}
		ends = append(ends, b.Len())
	}
	all := b.String()
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// atSpace shortens a piece that ends a line to end after its last space,
// so words stay whole, unless that would waste more than half the room.
func atSpace(piece string, w, room int) (string, int) {
	i := strings.LastIndexByte(piece, ' ')
	if i < 0 {
		return piece, w
	}
	cut := piece[:i+1]
	cw := len(cut)
	if !isASCII(cut) {
		cw = ansi.StringWidth(cut)
	}
	if cw*2 < room {
		return piece, w
	}
	return cut, cw
}

// wordFits reports whether the first word of s fits in room cells.
func wordFits(s string, room int) bool {
	word, _, _ := strings.Cut(s, " ")
	if len(word) > 4*room { // no cell holds more than four bytes of text
		return false
	}
	return ansi.StringWidth(word) <= room
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// prefixFitting returns the longest prefix of s that is at most room cells wide, and
// its width. Printable ASCII takes the fast path: one byte, one cell.
func prefixFitting(s string, room int) (string, int) {
	if room <= 0 {
		return "", 0
	}
	n := 0
	for n < len(s) && n < room && s[n] < 0x80 {
		n++
	}
	if n == len(s) || (n == room && s[n] < 0x80) {
		return s[:n], n
	}
	// Non-ASCII follows. The last ASCII character may start a cluster with
	// it (e + a combining accent), so walk grapheme clusters from there.
	if n > 0 {
		n--
	}
	w := n
	for n < len(s) {
		g, gw := firstGrapheme(s[n:])
		if w+gw > room {
			break
		}
		n += len(g)
		w += gw
	}
	return s[:n], w
}

// firstGrapheme returns the first grapheme cluster of s and its width in
// cells, measured as lipgloss measures it.
func firstGrapheme(s string) (string, int) {
	if s[0] < 0x80 {
		return s[:1], 1
	}
	g, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	if g == "" {
		return s[:1], 1
	}
	return g, w
}

// spaces returns n spaces.
func spaces(n int) string {
	const blank = "                                                                                "
	if n <= len(blank) {
		return blank[:n]
	}
	return strings.Repeat(" ", n)
}
