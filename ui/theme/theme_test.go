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
