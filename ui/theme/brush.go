package theme

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Brush is a text style boiled down to the escape codes that open and close
// it, for painting thousands of small pieces of text (JSON tokens, diagram
// cells) where calling lipgloss.Style.Render for each would cost too much.
// It suits styles of colours and attributes only; a style with padding,
// borders, width or margins keeps using Render.
type Brush struct {
	open, close string
	style       lipgloss.Style
	fallback    bool // the style does more than wrap text in codes
	spaced      bool // the style paints spaces on their own (underline, strikethrough)
}

// sentinel is rendered once to find a style's codes; it holds no character
// that an escape sequence could contain.
const sentinel = "W"

// NewBrush finds the codes st wraps around text under the current colour
// profile.
func NewBrush(st lipgloss.Style) Brush {
	out := st.Render(sentinel)
	i := strings.Index(out, sentinel)
	if i < 0 || ansi.Strip(out) != sentinel {
		return Brush{style: st, fallback: true}
	}
	return Brush{open: out[:i], close: out[i+len(sentinel):], style: st,
		spaced: st.GetUnderline() || st.GetStrikethrough()}
}

// Render is exactly the style's Render(s), byte for byte: the codes around
// s when s is one line without tabs (Render's own result then), the
// style's Render otherwise. Paint may differ from Render in bytes that do
// not show (an empty s, spaces under an underline); Render never does.
func (b Brush) Render(s string) string {
	if b.fallback || b.spaced || strings.ContainsAny(s, "\t\r\n") {
		return b.style.Render(s)
	}
	return b.open + s + b.close
}

// Paint returns s wrapped in the brush's codes. s should be one line.
func (b Brush) Paint(s string) string {
	if b.fallback {
		return b.style.Render(s)
	}
	if s == "" || (b.open == "" && b.close == "") {
		return s
	}
	return b.open + s + b.close
}

// PaintTo writes s wrapped in the brush's codes to w, saving the
// allocation of Paint in hot loops.
func (b Brush) PaintTo(w *strings.Builder, s string) {
	if b.fallback {
		w.WriteString(b.style.Render(s))
		return
	}
	if s == "" {
		return
	}
	w.WriteString(b.open)
	w.WriteString(s)
	w.WriteString(b.close)
}

// Codes returns the escape codes the brush writes before and after text;
// both are empty for a plain brush. Caches use them as part of their key,
// since they change with the theme and the colour profile.
func (b Brush) Codes() (open, close string) { return b.open, b.close }
