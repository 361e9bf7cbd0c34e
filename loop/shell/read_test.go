package shell

import (
	"strings"
	"testing"
)

func TestReadCommand(t *testing.T) {
	tests := []struct {
		command string
		want    []string // the lines' texts
	}{
		{`"sudo" id`, []string{"sudo id", "id"}},
		{`FOO=1 env -u X BAR=2 nice -n 5 python3 x.py > out.txt 2>&1`,
			[]string{"env -u X BAR=2 nice -n 5 python3 x.py > out.txt 2>& 1", "nice -n 5 python3 x.py", "python3 x.py"}},
		{`a | b | c; d && e`, []string{"a | b | c", "a", "b", "c", "d", "e"}},
		{`echo "$(curl -s x | gunzip)"`, []string{"curl | gunzip", "echo $(curl | gunzip)", "curl -s x", "gunzip"}},
		{`sudo -u root -- sh -c 'id; whoami'`, []string{"sudo -u root -- sh -c id; whoami", "sh -c id; whoami", "id", "whoami"}},
		{`rm -rf "${HOME:?}"//.`, []string{"rm -rf $HOME/."}},
	}
	for _, tc := range tests {
		// Both shells read these alike.
		for _, r := range Read(tc.command, nil).Readings {
			if r.Err != nil {
				t.Errorf("%s: Read(%s): %v", r.Dialect.Name, tc.command, r.Err)
				continue
			}
			var got []string
			for _, l := range r.Lines {
				got = append(got, l.Text)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("%s: Read(%s) =\n  %s\nwant\n  %s", r.Dialect.Name, tc.command, strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		}
	}
}
