package theme

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// styles returns every lipgloss.Style field of th by name.
func styles(th Theme) map[string]lipgloss.Style {
	out := map[string]lipgloss.Style{}
	v := reflect.ValueOf(th)
	for i := 0; i < v.NumField(); i++ {
		if st, ok := v.Field(i).Interface().(lipgloss.Style); ok {
			out[v.Type().Field(i).Name] = st
		}
	}
	return out
}

func TestNoColorHasNoColours(t *testing.T) {
	for name, st := range styles(New(true)) {
		if _, none := st.GetForeground().(lipgloss.NoColor); !none {
			t.Errorf("%s has a foreground colour", name)
		}
		if _, none := st.GetBackground().(lipgloss.NoColor); !none {
			t.Errorf("%s has a background colour", name)
		}
		if _, none := st.GetBorderTopForeground().(lipgloss.NoColor); !none {
			t.Errorf("%s has a border colour", name)
		}
	}
}

func TestColourThemeIsComplete(t *testing.T) {
	th := New(false)
	// The styles that carry meaning must differ from plain text.
	for _, name := range []string{"Current", "Edge", "Breakpoint", "Selected", "Error", "Warning",
		"VerdictAllow", "VerdictDeny", "VerdictConfirm", "JSONKey", "JSONString", "Redacted"} {
		st := styles(th)[name]
		if reflect.DeepEqual(st, lipgloss.NewStyle()) {
			t.Errorf("%s is an empty style", name)
		}
	}
	// The current state stays visible without colour.
	if !New(true).Current.GetReverse() {
		t.Error("no-colour Current should be reverse video")
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		value   string
		noColor bool
	}{{"", false}, {"1", true}, {"0", true}, {"yes", true}}
	for _, tt := range tests {
		t.Run("NO_COLOR="+tt.value, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.value)
			if got := FromEnv().NoColor; got != tt.noColor {
				t.Errorf("NoColor = %v, want %v", got, tt.noColor)
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	th := New(false)
	tests := []struct {
		in   string
		want lipgloss.Style
	}{
		{"ALLOW", th.VerdictAllow}, {"deny", th.VerdictDeny},
		{"REQUIRE_USER_CONFIRMATION", th.VerdictConfirm}, {"maybe", th.Bold},
	}
	for _, tt := range tests {
		if got := th.Verdict(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Verdict(%q) is not the expected style", tt.in)
		}
	}
}

func TestBrushMatchesRender(t *testing.T) {
	defer lipgloss.SetColorProfile(lipgloss.ColorProfile())
	for _, profile := range []termenv.Profile{termenv.Ascii, termenv.ANSI256, termenv.TrueColor} {
		lipgloss.SetColorProfile(profile)
		for _, noColor := range []bool{false, true} {
			for name, st := range styles(New(noColor)) {
				b := NewBrush(st)
				for _, s := range []string{"key", `"a b"`, "日本語"} {
					got, want := b.Paint(s), st.Render(s)
					var to strings.Builder
					b.PaintTo(&to, s)
					if to.String() != got {
						t.Errorf("%s: PaintTo wrote %q, Paint gives %q", name, to.String(), got)
					}
					if ansi.Strip(got) != ansi.Strip(want) {
						t.Errorf("profile %v %s: Paint(%q) text = %q, Render gives %q", profile, name, s, ansi.Strip(got), ansi.Strip(want))
					}
					if !strings.Contains(name, "Pane") && !b.fallback && profile == termenv.TrueColor && !noColor &&
						st.GetForeground() != (lipgloss.NoColor{}) && got == s {
						t.Errorf("%s: coloured brush painted nothing", name)
					}
				}
			}
		}
	}
}

// hexTwin is st with each of its colours given as the hex lipgloss
// converts itself (the theme's colours before they were made ready).
func hexTwin(t *testing.T, st lipgloss.Style) lipgloss.Style {
	t.Helper()
	hex := func(c lipgloss.TerminalColor) lipgloss.TerminalColor {
		switch c := c.(type) {
		case lipgloss.CompleteAdaptiveColor:
			return lipgloss.AdaptiveColor{Light: c.Light.TrueColor, Dark: c.Dark.TrueColor}
		case lipgloss.NoColor:
			return c
		}
		t.Fatalf("a theme colour of type %T", c)
		return nil
	}
	return st.Foreground(hex(st.GetForeground())).Background(hex(st.GetBackground())).
		BorderTopForeground(hex(st.GetBorderTopForeground())).
		BorderRightForeground(hex(st.GetBorderRightForeground())).
		BorderBottomForeground(hex(st.GetBorderBottomForeground())).
		BorderLeftForeground(hex(st.GetBorderLeftForeground()))
}

// The theme's colours are worked out once per colour profile (ready), and
// paint exactly what lipgloss's own conversion of the hex would, in every
// profile, on light and dark backgrounds.
func TestReadyColoursPaintAsTheHex(t *testing.T) {
	profile, dark := lipgloss.ColorProfile(), lipgloss.HasDarkBackground()
	defer func() { lipgloss.SetColorProfile(profile); lipgloss.SetHasDarkBackground(dark) }()
	for name, st := range styles(New(false)) {
		if _, ok := st.GetForeground().(lipgloss.AdaptiveColor); ok {
			t.Errorf("%s: a hex colour that every Render converts again", name)
		}
		twin := hexTwin(t, st)
		for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
			lipgloss.SetColorProfile(p)
			for _, dk := range []bool{false, true} {
				lipgloss.SetHasDarkBackground(dk)
				for _, s := range []string{"key", "日本語", "", "two\nlines"} {
					if got, want := st.Render(s), twin.Render(s); got != want {
						t.Errorf("%s, profile %v, dark %v: Render(%q) = %q, lipgloss converting the hex gives %q", name, p, dk, s, got, want)
					}
				}
			}
		}
	}
}

// A brush's Render is the style's Render, byte for byte, whatever the
// text: the frame and the status bar draw with it.
func TestBrushRenderIsRender(t *testing.T) {
	profile := lipgloss.ColorProfile()
	defer lipgloss.SetColorProfile(profile)
	texts := []string{"", " ", "key", " a b ", "日本語", "a\tb", "two\nlines", "cr\r\nlf", "\x1b[1mbold\x1b[0m", "╭──"}
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
		lipgloss.SetColorProfile(p)
		for _, noColor := range []bool{false, true} {
			for name, st := range styles(New(noColor)) {
				b := NewBrush(st)
				for _, s := range texts {
					if got, want := b.Render(s), st.Render(s); got != want {
						t.Errorf("profile %v, no colour %v, %s: Brush.Render(%q) = %q, Render gives %q", p, noColor, name, s, got, want)
					}
				}
			}
		}
	}
}
