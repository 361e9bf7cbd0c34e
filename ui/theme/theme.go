// Package theme holds glassbox's colours and text styles in one place, so
// every pane paints the same idea (the current state, a DENY verdict, a JSON
// key) the same way. Colours adapt to light and dark terminals, and NO_COLOR
// (https://no-color.org) turns them off while keeping bold and reverse video,
// so nothing the learner needs depends on colour alone.
package theme

import (
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Theme is a set of ready-made lipgloss styles. It is a plain value: copy it,
// pass it down, never mutate a shared one.
type Theme struct {
	// Name identifies the palette ("color" or "no-color"); caches may use it
	// together with the rendered styles as part of their key.
	Name string
	// NoColor is true when the theme paints with attributes only.
	NoColor bool

	// Chrome.
	Title       lipgloss.Style // a pane's title
	Pane        lipgloss.Style // the border of an unfocused pane
	PaneFocused lipgloss.Style // the border of the focused pane
	Muted       lipgloss.Style // secondary text: timings, hints, arrows at rest
	Bold        lipgloss.Style
	Error       lipgloss.Style
	Success     lipgloss.Style
	Warning     lipgloss.Style

	// State machine diagram.
	Current    lipgloss.Style // the state the engine is in now
	Edge       lipgloss.Style // the edge just taken (its label and arrow)
	Breakpoint lipgloss.Style // the ● marker of a breakpoint
	Selected   lipgloss.Style // the state the cursor is on (for `b`)

	// Conversation roles.
	RoleUser      lipgloss.Style
	RoleAssistant lipgloss.Style
	RoleTool      lipgloss.Style
	RoleFeedback  lipgloss.Style // error feedback written for the model
	Thought       lipgloss.Style // the model's thinking text

	// Security verdicts.
	VerdictAllow   lipgloss.Style
	VerdictDeny    lipgloss.Style
	VerdictConfirm lipgloss.Style

	// Raw payloads.
	JSONKey    lipgloss.Style
	JSONString lipgloss.Style
	JSONNumber lipgloss.Style
	JSONBool   lipgloss.Style
	JSONNull   lipgloss.Style
	JSONPunct  lipgloss.Style
	Redacted   lipgloss.Style // a masked secret: [REDACTED]

	// Bottom lines.
	StatusBar lipgloss.Style
	StatusKey lipgloss.Style // a label inside the status bar
	Help      lipgloss.Style
}

// New returns the glassbox theme. With noColor every style keeps only text
// attributes (bold, italic, underline, reverse): the current state is shown
// in reverse video, a DENY in bold, and so on.
func New(noColor bool) Theme {
	if noColor {
		return plain()
	}
	// The palette. Each colour is adaptive: Light is used on light
	// backgrounds, Dark on dark ones.
	var (
		accent  = ready(lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B4A0FF"}) // violet: titles, focus
		muted   = ready(lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"})
		red     = ready(lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"})
		green   = ready(lipgloss.AdaptiveColor{Light: "#1E7B34", Dark: "#5FD787"})
		amber   = ready(lipgloss.AdaptiveColor{Light: "#8A5A00", Dark: "#FFC94D"})
		blue    = ready(lipgloss.AdaptiveColor{Light: "#1F5FBF", Dark: "#7AB8FF"})
		cyan    = ready(lipgloss.AdaptiveColor{Light: "#006C7A", Dark: "#5FD7D7"})
		magenta = ready(lipgloss.AdaptiveColor{Light: "#9C2A8C", Dark: "#F28FE0"})
		border  = ready(lipgloss.AdaptiveColor{Light: "#B0B0B0", Dark: "#4E4E4E"})
		barBg   = ready(lipgloss.AdaptiveColor{Light: "#E4E4EC", Dark: "#2A2A3A"})
		barFg   = ready(lipgloss.AdaptiveColor{Light: "#202020", Dark: "#E0E0E0"})
		litBg   = ready(lipgloss.AdaptiveColor{Light: "#FFD75F", Dark: "#FFD75F"}) // the lit state
		litFg   = ready(lipgloss.AdaptiveColor{Light: "#000000", Dark: "#000000"})
		selBg   = ready(lipgloss.AdaptiveColor{Light: "#D7D7FF", Dark: "#3A3A5A"})
	)
	s := lipgloss.NewStyle
	pane := s().Border(lipgloss.RoundedBorder()).BorderForeground(border)
	return Theme{
		Name:        "color",
		Title:       s().Bold(true).Foreground(accent),
		Pane:        pane,
		PaneFocused: pane.BorderForeground(accent),
		Muted:       s().Foreground(muted),
		Bold:        s().Bold(true),
		Error:       s().Bold(true).Foreground(red),
		Success:     s().Foreground(green),
		Warning:     s().Bold(true).Foreground(amber),

		Current:    s().Bold(true).Foreground(litFg).Background(litBg),
		Edge:       s().Bold(true).Foreground(amber),
		Breakpoint: s().Bold(true).Foreground(red),
		Selected:   s().Underline(true).Foreground(accent).Background(selBg),

		RoleUser:      s().Bold(true).Foreground(blue),
		RoleAssistant: s().Bold(true).Foreground(green),
		RoleTool:      s().Bold(true).Foreground(magenta),
		RoleFeedback:  s().Bold(true).Foreground(amber),
		Thought:       s().Italic(true).Foreground(muted),

		VerdictAllow:   s().Bold(true).Foreground(green),
		VerdictDeny:    s().Bold(true).Foreground(red),
		VerdictConfirm: s().Bold(true).Foreground(amber),

		JSONKey:    s().Foreground(blue),
		JSONString: s().Foreground(green),
		JSONNumber: s().Foreground(cyan),
		JSONBool:   s().Foreground(magenta),
		JSONNull:   s().Foreground(magenta).Italic(true),
		JSONPunct:  s().Foreground(muted),
		Redacted:   s().Bold(true).Foreground(red).Reverse(true),

		StatusBar: s().Foreground(barFg).Background(barBg),
		StatusKey: s().Bold(true).Foreground(accent).Background(barBg),
		Help:      s().Foreground(muted),
	}
}

// ready is c with its 256- and 16-colour forms worked out once, here. Given
// a hex colour, lipgloss finds the nearest of the 256 on every Render (a
// search through a perceptual colour space, most of a frame's time in a
// served room, where every terminal gets 256 colours); given the numbers it
// only reads them. The escape codes are the same: the numbers are what
// lipgloss's own conversion (termenv's) picks, and a true-colour terminal
// still gets the hex.
func ready(c lipgloss.AdaptiveColor) lipgloss.CompleteAdaptiveColor {
	return lipgloss.CompleteAdaptiveColor{Light: complete(c.Light), Dark: complete(c.Dark)}
}

// complete is the hex colour hex in each colour profile.
func complete(hex string) lipgloss.CompleteColor {
	return lipgloss.CompleteColor{
		TrueColor: hex,
		ANSI256:   number(termenv.ANSI256.Color(hex)),
		ANSI:      number(termenv.ANSI.Color(hex)),
	}
}

// number is a palette colour's number as lipgloss reads it ("" for any
// other colour, which lipgloss leaves unpainted).
func number(c termenv.Color) string {
	switch c := c.(type) {
	case termenv.ANSI256Color:
		return strconv.Itoa(int(c))
	case termenv.ANSIColor:
		return strconv.Itoa(int(c))
	}
	return ""
}

// plain is the NO_COLOR theme: attributes only.
func plain() Theme {
	s := lipgloss.NewStyle
	pane := s().Border(lipgloss.RoundedBorder())
	return Theme{
		Name:        "no-color",
		NoColor:     true,
		Title:       s().Bold(true),
		Pane:        pane,
		PaneFocused: s().Border(lipgloss.ThickBorder()),
		Muted:       s(),
		Bold:        s().Bold(true),
		Error:       s().Bold(true),
		Success:     s(),
		Warning:     s().Bold(true),

		Current:    s().Bold(true).Reverse(true),
		Edge:       s().Bold(true).Underline(true),
		Breakpoint: s().Bold(true),
		Selected:   s().Underline(true),

		RoleUser:      s().Bold(true),
		RoleAssistant: s().Bold(true),
		RoleTool:      s().Bold(true),
		RoleFeedback:  s().Bold(true),
		Thought:       s().Italic(true),

		VerdictAllow:   s().Bold(true),
		VerdictDeny:    s().Bold(true).Reverse(true),
		VerdictConfirm: s().Bold(true).Underline(true),

		JSONKey:    s(),
		JSONString: s(),
		JSONNumber: s(),
		JSONBool:   s(),
		JSONNull:   s(),
		JSONPunct:  s(),
		Redacted:   s().Reverse(true),

		StatusBar: s().Reverse(true),
		StatusKey: s().Reverse(true).Bold(true),
		Help:      s(),
	}
}

// FromEnv returns New(true) when the NO_COLOR environment variable is set to
// any non-empty value, New(false) otherwise.
func FromEnv() Theme {
	return New(os.Getenv("NO_COLOR") != "")
}

// Verdict returns the style of a security verdict as the policy names it:
// "ALLOW", "DENY" or "REQUIRE_USER_CONFIRMATION" (case-insensitive). Anything
// else is shown Bold.
func (t Theme) Verdict(v string) lipgloss.Style {
	switch strings.ToUpper(v) {
	case "ALLOW":
		return t.VerdictAllow
	case "DENY":
		return t.VerdictDeny
	case "REQUIRE_USER_CONFIRMATION", "CONFIRM":
		return t.VerdictConfirm
	}
	return t.Bold
}
