package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestWriteTargets: each command's table entry finds the files it writes
// among its arguments, options and their values told apart as getopt
// tells them.
func TestWriteTargets(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"tee -a a b", []string{"a", "b"}},
		{"tee -- -x", []string{"-x"}},
		{"cp a b", []string{"b"}},
		{"cp a b c/", []string{"c/"}},
		{"cp a", nil},
		{"cp -S .old a b", []string{"b"}},
		{"cp -t d a b", []string{"d"}},
		{"cp -rtd a", []string{"d"}},
		{"cp --target-directory=d a", []string{"d"}},
		{"cp -- -t a", []string{"a"}},
		{"mv -T a b", []string{"b"}},
		{"ln -sf a b", []string{"b"}},
		{"install -m 755 a b", []string{"b"}},
		{"install -d a b", []string{"a", "b"}},
		{"install -Dm644 a b", []string{"b"}}, // -D makes the folders above b
		{"install -md 644 a", []string{"a"}},  // -m takes d as its value: no -d
		{"dd if=a of=b bs=1", []string{"b"}},
		{"touch -d now a -r ref b", []string{"a", "b"}},
		{"mkdir -pm 700 a", []string{"a"}},
		{"mkdir -Z a", []string{"a"}},
		{"sed s/a/b/ f", nil},
		{"sed -i s/a/b/ f g", []string{"f", "g"}},
		{"sed -ni -e p f", []string{"f"}},
		{"sed -i.bak -f x.sed f", []string{"f"}},
		{"sed --in-place=.bak p f", []string{"f"}},
		{"curl -o a x", []string{"a"}},
		{"curl -sSLo a x", []string{"a"}},
		{"curl -dfoo=1 x", nil}, // -d takes foo=1: no -o
		{"curl -o - x", nil},
		{"curl -O x", nil},
		{"wget -qO a x", []string{"a"}},
		{"wget -O- x", nil},
		{"wget --output-document=a x", []string{"a"}},
	} {
		words := strings.Fields(tc.command)
		if got := writeTargets[words[0]](words[1:]); !slices.Equal(got, tc.want) {
			t.Errorf("%s: writes %q, want %q", tc.command, got, tc.want)
		}
	}
}
