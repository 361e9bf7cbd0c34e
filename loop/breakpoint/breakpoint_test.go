package breakpoint

import (
	"errors"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"state=CHECKING_POLICY", "state=CHECKING_POLICY"},
		{"state=checking_policy", "state=CHECKING_POLICY"},
		{" State = Checking_Policy ", "state=CHECKING_POLICY"},
		{"edge=tool_call", "edge=tool_call"},
		{"edge=TOOL_CALL", "edge=tool_call"},
		{"tool=execute_command", "tool=execute_command"},
		{"tool~=write_*", "tool~=write_*"},
		{"tool=mcp__demo__echo", "tool=mcp__demo__echo"},
		{"verdict=deny", "verdict=DENY"},
		{"verdict=REQUIRE_USER_CONFIRMATION", "verdict=REQUIRE_USER_CONFIRMATION"},
		{"dialect=gemini", "dialect=gemini"},
		{"dialect=Ollama", "dialect=ollama"},
		{"dialect=llama:native", "dialect=llama:native"},
		{"dialect=ollama:native", "dialect=ollama:native"},
		{"dialect=openai", "dialect=openai"},
		{"tokens>8000", "tokens>8000"},
		{"tokens>=8k", "tokens>=8k"},
		{"tokens<1.5M", "tokens<1.5M"},
		{"bytes>40k", "bytes>40k"},
		{"bytes<=40K", "bytes<=40K"},
		{"path~=*:streamGenerateContent", "path~=*:streamGenerateContent"},
		{"path=/api/chat", "path=/api/chat"},
		{"tool=write_file, verdict=DENY", "tool=write_file,verdict=DENY"},
		{"edge=tool_call,tool~=write_*,dialect=llama,bytes>1k", "edge=tool_call,tool~=write_*,dialect=llama,bytes>1k"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			b, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("Parse(%q) = %q, want %q", tc.in, got, tc.want)
			}
			again, err := Parse(b.String())
			if err != nil || again.String() != b.String() {
				t.Errorf("the canonical form %q does not read back: %v, %q", b.String(), err, again.String())
			}
		})
	}
}

func TestParseSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"tokens>8000": 8000, "bytes>40k": 40000, "bytes>40K": 40000, "tokens>1.5M": 1500000,
		"bytes>0": 0, "tokens>2.5k": 2500, "bytes>.5k": 500,
	} {
		b, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if got := b.Conds[0].n; got != want {
			t.Errorf("Parse(%q) reads %d, want %d", in, got, want)
		}
	}
}

// TestParseErrors: every mistake is refused with a sentence that names the
// wrong part and says what is allowed there.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // each must appear in the message
	}{
		{"", []string{"empty", "state=CHECKING_POLICY", Conditions()}},
		{"   ", []string{"empty"}},
		{"tool=a,,verdict=DENY", []string{"condition 2", "empty", Conditions()}},
		{"tool=a,", []string{"condition 2", "empty"}},
		{"write_file", []string{`"write_file" has no operator`, "NAME=VALUE", Conditions()}},
		{"verdit=DENY", []string{`unknown condition "verdit"`, Conditions()}},
		{"tool=a,verdit=DENY", []string{"condition 2", `unknown condition "verdit"`}},
		{"=DENY", []string{`unknown condition ""`}},
		{"state>3", []string{`"state>3": state takes =`}},
		{"state~=CHECK*", []string{"state takes ="}},
		{"tool>3", []string{"tool takes = ~="}},
		{"tool!=read_file", []string{"tool takes = ~="}},
		{"tokens=8000", []string{"tokens takes > >= < <="}},
		{"state=", []string{`"state=" has no value after state=`}},
		{"state=CHECKING", []string{`there is no state "CHECKING"`, "CHECKING_POLICY", "WAITING_FOR_EVENT", "HALTED"}},
		{"edge=toolcall", []string{`there is no edge "toolcall"`, "tool_call", "next_tool_call", "reported"}},
		{"verdict=NO", []string{`there is no verdict "NO"`, "ALLOW", "DENY", "REQUIRE_USER_CONFIRMATION"}},
		{"dialect=claude", []string{`there is no dialect "claude"`, "gemini", "llama:native", "ollama", "openai"}},
		{"tokens>lots", []string{`"lots" is not a size`, "40k"}},
		{"tokens>8m", []string{`"8m" is not a size`}},
		{"bytes>-1", []string{`"-1" is not a size`}},
		{"bytes>1e9", []string{`"1e9" is not a size`}},
		{"bytes>1.2.3", []string{`"1.2.3" is not a size`}},
		{"bytes>k", []string{`"k" is not a size`}},
		{"bytes>9999999999M", []string{"is not a size"}},
		{"tool=write file", []string{`"write file" has a space`}},
		{"tool=a\x1b[2J", []string{"control character"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = nil error", tc.in)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "--break ") {
				t.Errorf("the message does not start with the flag: %s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Parse(%q): %q lacks %q", tc.in, msg, w)
				}
			}
			var s sentence.Said
			if !errors.As(err, &s) {
				t.Errorf("the error is not a sentence a front end can translate: %T", err)
			}
		})
	}
}

func TestParseAll(t *testing.T) {
	bps, err := ParseAll([]string{"tool=write_file", "state=HALTED"})
	if err != nil || len(bps) != 2 || bps[1].String() != "state=HALTED" {
		t.Fatalf("ParseAll = %v, %v", bps, err)
	}
	if _, err := ParseAll([]string{"tool=write_file", "stat=HALTED"}); err == nil || !strings.Contains(err.Error(), `"stat=HALTED"`) {
		t.Errorf("ParseAll with a bad second value: %v", err)
	}
}

func TestConditions(t *testing.T) {
	want := "state=, edge=, tool=|tool~=, verdict=, dialect=, tokens>|>=|<|<=, bytes>|>=|<|<=, path=|path~="
	if got := Conditions(); got != want {
		t.Errorf("Conditions() = %q, want %q", got, want)
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"write_*", "write_file", true},
		{"write_*", "write_", true},
		{"write_*", "read_file", false},
		{"*_file", "read_file", true},
		{"*", "", true},
		{"", "", true},
		{"", "a", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"*stream*", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", true},
		{"/v1beta/*:generateContent", "/v1beta/models/m:generateContent", true},
		{"/v1beta/*:generateContent", "/v1beta/models/m:streamGenerateContent", false},
		{"*a*b*c", "xxaxxbxxc", true},
		{"*a*b*c", "xxaxxcxxb", false},
		{"ツール*", "ツール名", true},
		{"?", "名", true},
		{"a**b", "ab", true},
	} {
		if got := glob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// FuzzParse: any text is read or refused with a message, never a panic;
// what is read prints in a form that reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"state=CHECKING_POLICY", "edge=tool_call", "tool~=write_*", "verdict=DENY",
		"dialect=ollama:native", "tokens>8000", "bytes>40k", "path~=*:streamGenerateContent",
		"tool=a,verdict=deny", ",", "=", "~=", ">=1.5M", "tokens>.", "state=\x00", "tool=名前",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b, err := Parse(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--break ") {
				t.Fatalf("Parse(%q): the message does not name the flag: %v", in, err)
			}
			return
		}
		if len(b.Conds) == 0 {
			t.Fatalf("Parse(%q) read no condition and no error", in)
		}
		again, err := Parse(b.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not read back: %v", in, b.String(), err)
		}
		if again.String() != b.String() {
			t.Fatalf("Parse(%q) = %q, read back as %q", in, b.String(), again.String())
		}
		if got := len(again.Conds); got != len(b.Conds) {
			t.Fatalf("%q has %d conditions, read back %d", b.String(), len(b.Conds), got)
		}
	})
}
