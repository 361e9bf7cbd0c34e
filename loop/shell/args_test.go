package shell

// The argument readers, each a table: how a command's options are read
// decides which words are its command, its code or its files.

import (
	"slices"
	"strings"
	"testing"
)

func TestUnwrap(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sudo -u root id", "id"},
		{"sudo -uroot id", "id"},
		{"sudo --user root id", "id"},
		{"env -i X=1 sh -c x", "sh -c x"},
		{"env -iu X rm f", "rm f"},
		{"env --unset X rm f", "rm f"},
		{"env -C / ls", "ls"},
		{"timeout 5 ls", "ls"},
		{"timeout -vs KILL 5 ls", "ls"},
		{"timeout --signal KILL 5 ls", "ls"},
		{"timeout --signal=KILL 5 ls", "ls"},
		{"nice -n 5 ls", "ls"},
		{"nice -5 ls", "ls"},
		{"xargs -0 rm", "rm"},
		{"xargs -0i rm {}", "rm {}"},
		{"xargs -tn 1 rm", "rm"},
		{"xargs -a list rm", "rm"},
		{"flock /tmp/l ls", "ls"},
		{"chroot /x ls", "ls"},
		{"nohup -- ls", "ls"},
		{"ls -l", ""},
		{"env", ""},
		{"sudo -u", ""},
	} {
		if got := strings.Join(unwrap(strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("unwrap(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClusterValue(t *testing.T) {
	for _, tc := range []struct {
		arg, withValue string
		letter         byte
		value          string
		next           bool
	}{
		{"-c", "c", 'c', "", true},
		{"-lc", "c", 'c', "", true},
		{"-cid", "c", 'c', "id", false},
		{"-uS", "uCS", 'u', "S", false}, // -u takes S as the variable's name
		{"-i", "uCS", 0, "", false},
		{"-iS", "uCS", 'S', "", true},
	} {
		letter, value, next := clusterValue(tc.arg, tc.withValue)
		if letter != tc.letter || value != tc.value || next != tc.next {
			t.Errorf("clusterValue(%s, %s) = %q, %q, %v; want %q, %q, %v", tc.arg, tc.withValue, letter, value, next, tc.letter, tc.value, tc.next)
		}
	}
}

func TestOptionValue(t *testing.T) {
	su := commandOptions["su"]
	for _, tc := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"-c", "id"}, "id", true},
		{[]string{"-lc", "id"}, "id", true},
		{[]string{"-cid"}, "id", true},
		{[]string{"--command", "id"}, "id", true},
		{[]string{"--command=id"}, "id", true},
		{[]string{"-s", "/bin/sh"}, "", false},
		{[]string{"-sc", "x"}, "", false}, // -s takes c as its shell
		{[]string{"-c"}, "", false},
		{[]string{"id"}, "", false},
	} {
		got, ok := optionValue(tc.args[0], tc.args[1:], su)
		if got != tc.want || ok != tc.ok {
			t.Errorf("optionValue(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestShellArgs(t *testing.T) {
	for _, tc := range []struct {
		in        string
		line      string
		dashC     bool
		operand   string
		fromStdin bool
		params    string
	}{
		{"-c id", "id", true, "", false, ""},
		{"-ec id _ a b", "id", true, "", false, "_ a b"},
		{"-o posix -c id", "id", true, "", false, ""},
		{"--rcfile x -c id", "id", true, "", false, ""},
		{"-c -- id", "id", true, "", false, ""},
		{"x.sh a", "", false, "x.sh", false, ""},
		{"-- x.sh", "", false, "x.sh", false, ""},
		{"-s -- --yes", "", false, "", true, ""},
		{"", "", false, "", true, ""},
		{"-x", "", false, "", true, ""},
	} {
		line, dashC, operand, fromStdin, params := shellArgs(strings.Fields(tc.in))
		if line != tc.line || dashC != tc.dashC || operand != tc.operand || fromStdin != tc.fromStdin || strings.Join(params, " ") != tc.params {
			t.Errorf("shellArgs(%s) = %q %v %q %v %q", tc.in, line, dashC, operand, fromStdin, params)
		}
	}
}

func TestInterpreterRead(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		code       string
		script     string
		fromFile   bool
		dash       bool
	}{
		{"python", "-c print(1)", "print(1)", "", false, false},
		{"python", "-cprint(1)", "print(1)", "", false, false},
		{"python", "-Ic x", "x", "", false, false},
		{"python", "-W ignore x.py", "", "x.py", true, false},
		{"python", "-m pytest", "", "", true, false},
		{"python", "-", "", "", false, true},
		{"python", "x.py -c y", "", "x.py", true, false},
		{"node", "--eval=x", "x", "", false, false},
		{"node", "--eval x", "x", "", false, false},
		{"perl", "-E x", "x", "", false, false},
		{"perl", "-I lib x.pl", "", "x.pl", true, false},
		{"deno", "eval x", "x", "", false, false},
		{"ruby", "", "", "", false, false},
	} {
		p := interpreters[tc.name].read(strings.Fields(tc.args))
		if strings.Join(p.code, "\n") != tc.code || p.script != tc.script || p.fromFile != tc.fromFile || p.dash != tc.dash {
			t.Errorf("%s %s: read %+v", tc.name, tc.args, p)
		}
	}
}

func TestSedArgs(t *testing.T) {
	for _, tc := range []struct {
		args           string
		scripts, files []string
	}{
		{"s/a/b/ f", []string{"s/a/b/"}, nil},
		{"-n p f", []string{"p"}, nil},
		{"-e p -e q f", []string{"p", "q"}, nil},
		{"-ne p -ne q f", []string{"p", "q"}, nil},
		{"-ie s/a/b/ f", []string{"s/a/b/"}, nil}, // -i with the suffix e
		{"--expression=p f", []string{"p"}, nil},
		{"-f x.sed f", nil, []string{"x.sed"}},
		{"-nf x.sed f", nil, []string{"x.sed"}},
		{"--file=x.sed f", nil, []string{"x.sed"}},
		{"-l 80 p f", []string{"p"}, nil},
		{"-e", nil, nil},
	} {
		s := sedArgs(strings.Fields(tc.args))
		if !slices.Equal(s.scripts, tc.scripts) || !slices.Equal(s.files, tc.files) {
			t.Errorf("sedArgs(%s) = %q, %q; want %q, %q", tc.args, s.scripts, s.files, tc.scripts, tc.files)
		}
	}
}

func TestSedRunsCommands(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   bool
	}{
		{"s/a/b/", false},
		{"s/a/b/e", true},
		{"s/a/b/ge", true},
		{"s|e|e|g", false},
		{`s/a\/e/b/`, false},
		{"1e id", true},
		{"$e", true},
		{"/e/d", false},
		{"y/abc/efg/", false},
		{"a echo e", false},
		{"# e\np", false},
		{"bend;e id", true},
		{":a;e id", true}, // GNU sed ends a label at ;
		{":a;N;$!ba;s/\\n/ /g", false},
		{"w out.e", false},
	} {
		if got := sedRunsCommands(tc.script); got != tc.want {
			t.Errorf("sedRunsCommands(%q) = %v, want %v", tc.script, got, tc.want)
		}
	}
}

func TestEnvChdir(t *testing.T) {
	for _, tc := range []struct {
		in, dir string
		ok      bool
	}{
		{"env -C / ls", "/", true},
		{"env -C/ ls", "/", true},
		{"env -iC / ls", "/", true},
		{"env --chdir=/ ls", "/", true},
		{"env --chdir / ls", "/", true},
		{"env -u X -C / ls", "/", true},
		{"env X=1 -C / ls", "", false}, // -C is then the command's name
		{"env -uC ls", "", false},      // -u takes C as the variable's name
		{"nice -C / ls", "", false},
	} {
		dir, ok := envChdir(strings.Fields(tc.in))
		if dir != tc.dir || ok != tc.ok {
			t.Errorf("envChdir(%s) = %q, %v; want %q, %v", tc.in, dir, ok, tc.dir, tc.ok)
		}
	}
}
